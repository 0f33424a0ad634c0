//! The client's handle and the state its clones share, apart from the
//! methods, so that every part of the client imports them from here.

use std::sync::Arc;

use webcanon_core::policy::RobotsMode;

use crate::agent::ProductToken;
use crate::browser::Renderer;
use crate::fetch_options::FetchOptions;
use crate::http::Http;
use crate::llms_hint::LlmsCache;
use crate::robots_cache::RobotsCache;
use crate::rsl_cache::RslCache;

/// Fetches pages for LLM agents: robots.txt evaluated before every request
/// (redirect hops included), the SSRF guard on every address, content as
/// Markdown, usage signals as warnings. Cheap to clone; clones share the
/// robots cache.
#[derive(Debug, Clone)]
pub struct Client {
    pub(super) inner: Arc<Inner>,
}

/// What the clones of a [`Client`] share.
#[derive(Debug)]
pub(super) struct Inner {
    pub(super) http: Http,
    pub(super) cache: Arc<RobotsCache>,
    pub(super) llms: Arc<LlmsCache>,
    /// RSL license documents, read when a use is declared.
    pub(super) licenses: Arc<RslCache>,
    /// The `User-Agent` set on the builder, kept by [`Client::with_agent`].
    pub(super) explicit_user_agent: Option<String>,
    /// What [`Client::fetch`] does with a page.
    pub(super) fetch: FetchOptions,
    /// The browser, shared by every client derived from this one.
    pub(super) renderer: Arc<Renderer>,
    pub(super) agent: ProductToken,
    pub(super) mode: RobotsMode,
    pub(super) max_redirects: usize,
    pub(super) auth_disallows: bool,
    /// Where PDFs are read: a worker process, or this one.
    pub(super) pdf_worker: Option<Arc<crate::pdf::PdfWorker>>,
}
