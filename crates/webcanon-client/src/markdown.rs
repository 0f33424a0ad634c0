//! HTML to Markdown and the content's shape, as the faces name them: the
//! conversion is `webcanon-extract`'s ([`webcanon_extract::html`],
//! [`webcanon_extract::shape`]); the client runs it on the blocking pool
//! under the conversion permit, within its time limit.

pub use webcanon_extract::html::{
    Comments, Extracted, HeadTag, HtmlLimits, LinkLimits, LinkSource, Method, OverLimit, PageLink, PageLinks,
    absolutize_links, decode_entities, extract, head_tags, is_markdown_media_type, read_links, strip_tags, text_only,
};
pub use webcanon_extract::shape::{ContentFormat, ContentShape, ImageStyle, LinkStyle, UnknownValue};
