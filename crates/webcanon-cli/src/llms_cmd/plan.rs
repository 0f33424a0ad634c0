//! What `check` and `full` share: the llms.txt URL a command-line URL
//! means, loading that file, resolving its links and planning one request
//! per distinct URL.

use std::collections::HashMap;
use std::process::ExitCode;

use url::Url;
use webcanon_client::error::{Error, FetchError};
use webcanon_client::web_url::{WebUrl, WebUrlError};
use webcanon_client::{Client, RawResponse};
use webcanon_core::llms::LinkRef;

use super::args::LinkCap;
use crate::client_args::report_error;
use crate::error::CliError;

/// Whether a command-line target names a URL rather than a file.
pub(super) fn is_url(target: &str) -> bool {
    target.contains("://")
}

/// The llms.txt URL for a command-line URL, by the client's one rule
/// ([`webcanon_client::llms_txt_url`]): the file named, the
/// `llms.txt` of a directory, or the site's `/llms.txt` for a page.
pub(super) fn llms_url(input: &str) -> Result<WebUrl, CliError> {
    let hint = "give an http(s) URL such as https://example.com/ or https://example.com/docs/llms.txt";
    let refused = |e: WebUrlError| CliError::usage(format!("invalid URL `{input}`: {e}")).with_hint(hint);
    let url = WebUrl::parse(input).map_err(|e| refused(e.reason))?;
    WebUrl::try_from(webcanon_client::llms_txt_url(&url)).map_err(refused)
}

/// Fetches the llms.txt at `url`. A refusal, a failure or a non-2xx answer
/// is reported (as an error object with `json`) and becomes the exit status.
pub(super) async fn load_remote(
    client: &Client,
    url: &WebUrl,
    json: bool,
) -> Result<Result<RawResponse, ExitCode>, CliError> {
    let waiting = crate::progress::spinner(format!("reading {url}"));
    let answer = client.llms_txt(url).await;
    waiting.finish_and_clear();
    let response = match answer {
        Ok(response) => response,
        Err(err) => return Ok(Err(report_error(&err, url.as_str(), json)?)),
    };
    if response.is_success() {
        return Ok(Ok(response));
    }
    let status = response.status;
    let err = Error::Fetch(FetchError::Status { url: response.final_url.clone(), status });
    let code = report_error(&err, url.as_str(), json)?;
    if !json {
        match status {
            404 | 410 => eprintln!(
                "hint: there is no llms.txt at this address; a site's llms.txt lives at its root (`/llms.txt`), \
                 one for part of a site under that part's path (`/docs/llms.txt`)"
            ),
            429 | 500..=599 => eprintln!("hint: the server is failing or limiting requests; try again later"),
            _ => {}
        }
    }
    Ok(Err(code))
}

/// A link target resolved for a request: absolute http(s), no fragment.
fn resolve(base: Option<&Url>, href: &str) -> Result<Url, String> {
    let parsed = match base {
        Some(base) => base.join(href),
        None => Url::parse(href),
    };
    let mut url = match parsed {
        Ok(url) => url,
        Err(url::ParseError::RelativeUrlWithoutBase) => {
            return Err("a relative URL, and a local file has no URL to resolve it against".into());
        }
        Err(e) => return Err(format!("not a valid URL: {e}")),
    };
    match webcanon_client::web_url::check(&url) {
        Ok(()) => {}
        Err(WebUrlError::Scheme(scheme)) => {
            return Err(format!("a `{scheme}:` link; only http and https links can be requested"));
        }
        Err(_) => return Err("a URL without a host".into()),
    }
    url.set_fragment(None);
    Ok(url)
}

/// Distinct request URLs in first-seen order, and for each link its slot.
pub(super) struct Plan {
    pub(super) urls: Vec<Url>,
    pub(super) slots: Vec<Result<usize, String>>,
    /// How many of `urls` (the first ones) are requested: all of them, or
    /// the `--max-links` cap.
    pub(super) requested: usize,
}

impl Plan {
    pub(super) fn new<'a>(links: impl Iterator<Item = LinkRef<'a>>, base: Option<&Url>) -> Plan {
        let mut urls = Vec::new();
        let mut seen: HashMap<String, usize> = HashMap::new();
        let slots = links
            .map(|link| {
                resolve(base, &link.link.url).map(|url| {
                    *seen.entry(url.to_string()).or_insert_with(|| {
                        urls.push(url);
                        urls.len() - 1
                    })
                })
            })
            .collect();
        let requested = urls.len();
        Plan { urls, slots, requested }
    }

    /// The plan with at most `cap.max_links` URLs requested.
    pub(super) fn capped(mut self, cap: LinkCap) -> Plan {
        self.requested = self.urls.len().min(cap.max_links);
        self
    }

    /// The URLs to request.
    pub(super) fn to_request(&self) -> &[Url] {
        &self.urls[..self.requested]
    }

    /// How many distinct URLs are left out by the cap.
    pub(super) fn left_out(&self) -> usize {
        self.urls.len() - self.requested
    }

    /// Says on stderr (unless `-q`) how many distinct links the cap left out.
    pub(super) fn note_left_out(&self, what: &str) {
        if self.left_out() > 0 {
            crate::output::note!(
                "note: requested the first {} of {} distinct {what}; {} left out (--max-links {} raises the cap)",
                self.requested,
                self.urls.len(),
                self.left_out(),
                self.urls.len()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn site_urls_mean_their_llms_txt() {
        assert_eq!(llms_url("https://example.com").unwrap().as_str(), "https://example.com/llms.txt");
        assert_eq!(llms_url("https://example.com/?x=1#a").unwrap().as_str(), "https://example.com/llms.txt");
        assert_eq!(
            llms_url("https://example.com/docs/llms.txt").unwrap().as_str(),
            "https://example.com/docs/llms.txt"
        );
        // A directory means its own llms.txt (the rule the MCP tool shares).
        assert_eq!(llms_url("http://example.com/docs/").unwrap().as_str(), "http://example.com/docs/llms.txt");
        assert!(llms_url("ftp://example.com/").is_err());
        assert!(llms_url("https://").is_err());
    }

    #[test]
    fn links_resolve_against_the_base_without_fragments() {
        let base = Url::parse("https://example.com/docs/llms.txt").unwrap();
        assert_eq!(resolve(Some(&base), "guide.md#intro").unwrap().as_str(), "https://example.com/docs/guide.md");
        assert_eq!(resolve(Some(&base), "/a.md").unwrap().as_str(), "https://example.com/a.md");
        assert!(resolve(Some(&base), "mailto:a@example.com").unwrap_err().contains("mailto:"));
        assert!(resolve(None, "guide.md").unwrap_err().contains("relative"));
    }
}
