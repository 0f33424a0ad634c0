//! Rendering pages that need JavaScript in headless Chromium, on the same
//! policy path as every other fetch.
//!
//! The page's HTML is fetched by the normal path (SSRF guard, robots.txt,
//! redirects); the browser gets it by answering its navigation request.
//! Every request the page then makes is paused by the DevTools Fetch
//! domain and decided by webcanon: fetched by the client (SSRF guard on
//! every URL, address and redirect hop; robots.txt of each request's
//! origin under the client's mode, as search engines' renderers do for
//! subresources) or refused. The browser itself never resolves a name or
//! opens a connection: it is started with a proxy that goes nowhere and a
//! resolver that finds nothing (the `launch` module), so what interception does
//! not see (WebSocket, WebRTC) has nowhere to go either. The rendered DOM
//! goes through the same HTML extraction and warnings as fetched HTML.
//!
//! Lifecycle: one browser per [`crate::Client`] (clones share it),
//! started on the first render and kept; each page in a browser context of
//! its own, disposed after; at most [`RenderLimits::pages_at_once`] pages
//! at once. Each page has a wall-time limit, a request count and a byte
//! budget; past one, the text is what the page had by then, with a
//! `render_limit` warning.
//!
//! The DevTools protocol is spoken directly over the browser's pipe
//! (the `cdp` module; no port is opened): rendering needs a dozen commands, and a client generated from
//! the whole protocol (`chromiumoxide`) costs minutes of build on every
//! clean build and handles the Fetch domain's events in its own loop,
//! where every decision here must be webcanon's.

mod auto;
mod cdp;
mod fetcher;
mod launch;
pub(crate) mod mode;
mod page;
mod process;
mod report;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub use self::auto::{AUTO_MAX_TEXT_CHARS, AUTO_MIN_SCRIPTS, count_scripts, main_text_chars, wants_render};
pub(crate) use self::fetcher::PageFetcher;
pub use self::mode::{RenderMode, UnknownRenderMode};
pub(crate) use self::page::{MainDocument, Rendered};
pub use self::report::{RefusedRequest, RenderLimits, RenderReport};

/// The browser a client renders with: which one, its limits, and the
/// running process once started.
#[derive(Debug)]
pub(crate) struct Renderer {
    chromium: Option<PathBuf>,
    limits: RenderLimits,
    browser: tokio::sync::Mutex<Option<Arc<launch::Browser>>>,
    permits: Arc<tokio::sync::Semaphore>,
}

impl Renderer {
    /// A renderer for the browser at `chromium` (else found on `PATH`),
    /// started on first use.
    pub fn new(chromium: Option<PathBuf>, limits: RenderLimits) -> Renderer {
        let permits = Arc::new(tokio::sync::Semaphore::new(limits.pages_at_once.max(1)));
        Renderer { chromium, limits, browser: tokio::sync::Mutex::new(None), permits }
    }

    /// The running browser, started (again) if need be.
    async fn browser(&self) -> Result<Arc<launch::Browser>, String> {
        let mut slot = self.browser.lock().await;
        if let Some(browser) = slot.as_ref().filter(|b| b.is_alive()) {
            return Ok(browser.clone());
        }
        // A dead one is dropped first: its process is reaped, its profile removed.
        slot.take();
        let path = launch::locate(self.chromium.as_deref())?;
        let browser = Arc::new(launch::Browser::start(&path).await?);
        *slot = Some(browser.clone());
        Ok(browser)
    }

    /// Renders `main` with `client` deciding every request; `Err` when no
    /// browser could be had.
    pub async fn render<F: PageFetcher>(&self, fetcher: &F, main: MainDocument) -> Result<Rendered, String> {
        let queued = tokio::time::Instant::now();
        let _permit = self.permits.acquire().await.map_err(|e| e.to_string())?;
        let browser = self.browser().await?;
        let started = tokio::time::Instant::now();
        let deadline = started + self.limits.wall_time;
        let page = Page { started, deadline, waited: started - queued };
        let opened = match browser.open_page(deadline).await {
            Ok(opened) => opened,
            Err(first) if !browser.is_alive() => {
                // The browser died between the check and the call: one
                // more try with a new one, within the same time.
                tracing::debug!("opening a page failed ({first}); starting the browser again");
                self.browser.lock().await.take();
                let browser = self.browser().await?;
                let opened = browser.open_page(deadline).await?;
                return Ok(self.render_on(&browser, opened, fetcher, main, page).await);
            }
            Err(first) => return Err(first),
        };
        Ok(self.render_on(&browser, opened, fetcher, main, page).await)
    }

    async fn render_on<F: PageFetcher>(
        &self,
        browser: &launch::Browser,
        (context, target, session): (String, String, String),
        fetcher: &F,
        main: MainDocument,
        page: Page,
    ) -> Rendered {
        /// Disposes of the context however the render ends (a dropped
        /// request included).
        struct Dispose<'a>(&'a launch::Browser, String);
        impl Drop for Dispose<'_> {
            fn drop(&mut self) {
                self.0.close_context(&self.1);
            }
        }
        let _dispose = Dispose(browser, context);
        let mut rendered =
            page::render(&browser.cdp, &target, &session, fetcher, main, self.limits, page.started, page.deadline)
                .await;
        rendered.report.wait_ms = u64::try_from(page.waited.as_millis()).unwrap_or(u64::MAX);
        rendered
    }
}

/// When a page's time began and ends, and how long it waited for it.
#[derive(Debug, Clone, Copy)]
struct Page {
    started: tokio::time::Instant,
    deadline: tokio::time::Instant,
    waited: Duration,
}
