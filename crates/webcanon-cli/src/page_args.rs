//! What the commands that fetch pages (`fetch`, `batch --content`) share:
//! the flags that shape a page, applied to the client's one options type.

use clap::Args;
use webcanon_client::ClientBuilder;
use webcanon_client::browser::RenderMode;
use webcanon_client::markdown::{ContentFormat, ContentShape, ImageStyle, LinkStyle};

/// The page flags: body limit, Markdown alternatives, content shape,
/// rendering.
#[derive(Debug, Args, Clone)]
pub struct PageArgs {
    /// The page body limit in bytes, counted after decompression.
    #[arg(long, value_name = "N", default_value_t = webcanon_client::DEFAULT_MAX_BYTES)]
    pub max_bytes: usize,
    /// Do not look for a Markdown copy of the page (llms.txt, rel="alternate",
    /// Accept: text/markdown): fetch the URL itself.
    #[arg(long)]
    pub no_alternatives: bool,
    /// The content as Markdown or as plain text.
    #[arg(long, value_name = "markdown|text", default_value = "markdown", value_parser = str::parse::<ContentFormat>)]
    pub format: ContentFormat,
    /// Links where they are (inline), as numbered references listed once
    /// at the end (references), or as their text only (drop).
    #[arg(long, value_name = "inline|references|drop", default_value = "references", value_parser = str::parse::<LinkStyle>)]
    pub links: LinkStyle,
    /// Render the page in headless Chromium before extracting its text (for
    /// pages whose text arrives through scripts): `--render` alone is `on`;
    /// `auto` renders only a page with little text but scripts. Every
    /// request the page makes goes through the SSRF guard and robots.txt.
    /// Its mode is optional, so a bare `--render` goes after the URL.
    #[arg(long, value_name = "on|auto|off", num_args = 0..=1, default_value = "off", default_missing_value = "on", value_parser = render_mode)]
    pub render: RenderMode,
    /// Images as Markdown images (keep) or not at all (drop).
    #[arg(long, value_name = "keep|drop", default_value = "drop", value_parser = str::parse::<ImageStyle>)]
    pub images: ImageStyle,
}

impl PageArgs {
    /// `builder` with these flags in its fetch options.
    pub fn apply(&self, builder: ClientBuilder) -> ClientBuilder {
        builder
            .max_bytes(self.max_bytes)
            .alternatives(!self.no_alternatives)
            .content_shape(ContentShape { format: self.format, links: self.links, images: self.images })
            .render(self.render)
    }
}

/// `--render`'s mode, with a hint when it took the URL for one.
fn render_mode(given: &str) -> Result<RenderMode, String> {
    given.parse().map_err(|e: webcanon_client::browser::UnknownRenderMode| {
        if given.contains("://") {
            format!("{e} (a bare --render goes after the URL: `webcanon fetch URL --render`)")
        } else {
            e.to_string()
        }
    })
}
