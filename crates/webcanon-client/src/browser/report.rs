//! What rendering is bounded by and what it reports: the types the
//! browser's parts share and the client's results carry.

use std::time::Duration;

use serde::Serialize;

/// The bounds of rendering: pages at once, and each page's wall time,
/// requests and bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RenderLimits {
    /// Pages rendered at once by one client (the rest wait their turn, in
    /// the order they came).
    pub pages_at_once: usize,
    /// A page's whole time in the browser: from the moment it has its
    /// slot and a running browser, through opening, loading and running
    /// it, to its DOM read; the last fifth of it (at most 2 s) is kept for
    /// stopping its scripts and reading its DOM. The wait for a slot and
    /// the browser's start are not part of it (see
    /// [`RenderReport::wait_ms`]).
    pub wall_time: Duration,
    /// Requests a page may make (fetched and refused alike); the main
    /// document is not counted.
    pub max_requests: usize,
    /// Bytes of the bodies fetched for a page (after decompression); the
    /// main document is not counted.
    pub max_bytes: usize,
}

impl Default for RenderLimits {
    fn default() -> RenderLimits {
        RenderLimits {
            pages_at_once: std::thread::available_parallelism().map_or(2, |n| n.get()).min(4),
            wall_time: Duration::from_secs(15),
            max_requests: 150,
            max_bytes: 20 * 1024 * 1024,
        }
    }
}

/// A request of the page that webcanon refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
pub struct RefusedRequest {
    /// The URL asked for (for a worker or window, the URL it was to load).
    pub url: String,
    /// Why, as a stable word: `ssrf` (the SSRF guard), `robots` (robots.txt
    /// of its origin), `resource_type` (images, media, fonts, pings…),
    /// `document` (frames, navigations away), `method` (anything but GET
    /// and HEAD), `scheme`, `requests` or `bytes` (the page's limits),
    /// `worker` or `window` (never let run).
    pub reason: String,
}

/// What a render did: the requests the page made and how they were
/// decided.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
pub struct RenderReport {
    /// Requests fetched for the page by webcanon (the main document not
    /// counted), failures of the site included.
    pub requests_made: usize,
    /// Requests refused.
    pub requests_refused: usize,
    /// Bytes fetched for the page (after decompression).
    pub bytes: u64,
    /// The first 50 refused requests, in order.
    pub refused: Vec<RefusedRequest>,
    /// The page's time in the browser, from its slot to its DOM read, in
    /// milliseconds: what [`RenderLimits::wall_time`] bounds.
    pub render_ms: u64,
    /// How long the page waited for a free slot (and, the first time, for
    /// the browser to start) before its time began, in milliseconds.
    pub wait_ms: u64,
}
