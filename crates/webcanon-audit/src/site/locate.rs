//! Finding and reading what a document on the site points at: the base a
//! document's links resolve against, where a link can be read from (a URL,
//! or a site path for a folder), many reads at once, and what a read gave
//! as evidence. Every check that follows links uses these.

use std::sync::Arc;

use futures_util::StreamExt;
use serde::Serialize;
use url::Url;

use super::{Resource, Site, Target};

/// Reads in flight at once, for every check that reads many resources.
const CONCURRENCY: usize = 4;

/// The base URL a folder without a known public origin is read under.
pub(crate) const FOLDER_BASE: &str = "http://folder.invalid/";

impl Site {
    /// The URL the site's paths resolve against: the origin, or for a
    /// folder the origin it is published at (a placeholder host when
    /// unknown).
    pub(crate) fn base(&self) -> Url {
        let fallback = || Url::parse(FOLDER_BASE).expect("a constant, valid URL");
        match self.target() {
            Target::Origin(origin) => origin.join("/").unwrap_or_else(|_| origin.clone()),
            Target::Folder(_) => self.published_origin().cloned().unwrap_or_else(fallback),
        }
    }

    /// The URL a document read from the site resolves its relative links
    /// against: where it ended after redirects, or its site path.
    pub(crate) fn document_base(&self, resource: &Resource, path: &str) -> Url {
        let base = self.base();
        match self.target() {
            Target::Origin(_) => Url::parse(&resource.final_url).unwrap_or(base),
            Target::Folder(_) => base.join(path).unwrap_or(base),
        }
    }

    /// Where to read `target` (a URL, or a path relative to `base`): the
    /// key for [`Site::get_url`], or why it cannot be read. For a folder
    /// only the site's own host can be read (as a site path).
    pub(crate) fn locate(&self, base: &Url, target: &str) -> Result<String, String> {
        let url = base.join(target.trim()).map_err(|e| format!("not a valid URL ({e})"))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!("a {}: URL, which agents do not fetch", url.scheme()));
        }
        if self.is_origin() {
            return Ok(url.to_string());
        }
        if url.host_str().map(str::to_ascii_lowercase) == base.host_str().map(str::to_ascii_lowercase) {
            Ok(path_and_query(&url))
        } else {
            Err(format!("on another host ({}), which a folder cannot hold", url.host_str().unwrap_or("no host")))
        }
    }

    /// Reads every key (at most [`CONCURRENCY`] at a time), in order.
    ///
    /// The keys are cloned into the stream so that the future is `Send` for
    /// callers that spawn audits (a closure over borrowed keys is not, to
    /// the compiler: rust-lang/rust#64552).
    pub(crate) async fn read_many(&self, keys: &[String]) -> Vec<Arc<Resource>> {
        futures_util::stream::iter(keys.iter().cloned())
            .map(|key| async move { self.get_url(&key).await })
            .buffered(CONCURRENCY)
            .collect()
            .await
    }

    /// Locates and reads each target: the resource, or why it was not read.
    pub(crate) async fn read_located(&self, base: &Url, targets: &[String]) -> Vec<Result<Arc<Resource>, String>> {
        let planned: Vec<Result<String, String>> = targets.iter().map(|t| self.locate(base, t)).collect();
        let keys: Vec<String> = planned.iter().filter_map(|k| k.clone().ok()).collect();
        let mut read = self.read_many(&keys).await.into_iter();
        planned.into_iter().map(|key| key.and_then(|_| read.next().ok_or_else(|| "not read".to_string()))).collect()
    }
}

/// `/path?query` of a URL: how a folder names its files.
pub(crate) fn path_and_query(url: &Url) -> String {
    match url.query() {
        Some(query) => format!("{}?{query}", url.path()),
        None => url.path().to_string(),
    }
}

/// What a read gave, as a step's evidence shows it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ReadEvidence<'a> {
    url: &'a str,
    final_url: &'a str,
    status: Option<u16>,
    media_type: Option<&'a str>,
    redirects: Vec<RedirectEvidence<'a>>,
    bytes: usize,
    error: Option<&'a str>,
}

#[derive(Debug, Clone, Serialize)]
struct RedirectEvidence<'a> {
    url: &'a str,
    status: u16,
}

impl Resource {
    /// What the read gave, as evidence.
    pub(crate) fn evidence(&self) -> ReadEvidence<'_> {
        ReadEvidence {
            url: &self.url,
            final_url: &self.final_url,
            status: self.status,
            media_type: self.media_type.as_deref(),
            redirects: self.redirects.iter().map(|(url, status)| RedirectEvidence { url, status: *status }).collect(),
            bytes: self.body.len(),
            error: self.error.as_ref().map(super::ReadError::message),
        }
    }

    /// Whether the answer is an HTML page (by media type or by its first
    /// bytes).
    pub(crate) fn is_html(&self) -> bool {
        if matches!(self.media_type.as_deref(), Some("text/html" | "application/xhtml+xml")) {
            return true;
        }
        webcanon_core::sniff::looks_like_html(&self.body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_read_only_their_own_host() {
        let site = Site::folder(std::env::temp_dir().join("webcanon-no-such-folder"));
        let base = site.base();
        assert_eq!(site.locate(&base, "/docs/a.md?x=1"), Ok("/docs/a.md?x=1".to_string()));
        assert_eq!(site.locate(&base.join("/docs/").unwrap(), "b.md"), Ok("/docs/b.md".to_string()));
        assert!(site.locate(&base, "https://other.test/a").unwrap_err().contains("other.test"));
        assert!(site.locate(&base, "mailto:a@b.test").unwrap_err().contains("mailto"));
    }
}
