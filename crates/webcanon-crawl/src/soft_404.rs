//! Soft 404s: pages that answer 200 with the site's "not found" text.
//!
//! Each host is asked once, before its first page, for a random path
//! that cannot exist (through the same policy path as every request: a
//! path robots.txt disallows is not asked). When the answer is a page
//! (status 200 with content), its text hash is the host's soft-404
//! hash, and every later page of the host with that hash is recorded as
//! `soft_not_found`, without content, and its links are not followed.
//! A host that answers the probe with an error status has no soft 404s
//! to find. See DESIGN.md, "Crawl: soft 404s".

use url::Url;
use webcanon_client::{Client, ContentHash, FetchOptions, NotFetchedReason, PageRecord};

/// The path asked of every host: a name no site serves, with a part that
/// changes on every run so no cache answers it.
pub fn probe_url(page: &Url) -> Url {
    let nonce = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let token = xxhash_rust::xxh3::xxh3_64(&nonce.to_le_bytes());
    let mut url = page.clone();
    url.set_path(&format!("/webcanon-not-found-probe-{token:016x}"));
    url.set_query(None);
    url.set_fragment(None);
    url
}

/// Asks the host of `page` for a random path: the text hash of the page
/// it answers with, if it answers with one.
pub async fn probe(client: &Client, options: &FetchOptions, page: &str) -> Option<ContentHash> {
    let url = probe_url(&Url::parse(page).ok()?);
    let answer = client.fetch_with(url.as_str(), options).await.ok()?;
    (answer.status == 200 && !answer.content.trim().is_empty()).then(|| ContentHash::of(&answer.content))
}

/// Turns the record of a fetched page into the record of a soft 404.
pub fn mark(record: &mut PageRecord) {
    record.not_fetched = Some(NotFetchedReason::SoftNotFound);
    record.content = None;
    record.error = Some("the same text as the site's answer to a random path".into());
}
