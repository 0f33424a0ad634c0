//! What the browser needs from whoever decides a page's requests: one
//! call that vets, admits and fetches a request, so the browser knows
//! nothing of the client that renders with it.

use std::future::Future;

use url::Url;

use crate::error::Error;
use crate::http::Answer;

/// Fetches the requests a page makes while it is rendered, each decided by
/// the fetcher's own policy (the client: SSRF guard, robots.txt of the
/// request's origin, redirects vetted hop by hop).
pub(crate) trait PageFetcher: Clone + Send + Sync + 'static {
    /// One request of the page, its body read up to `max_bytes`; an error
    /// when the request is refused or fails.
    fn fetch_for_page(&self, url: &Url, max_bytes: usize) -> impl Future<Output = Result<Answer, Error>> + Send;
}
