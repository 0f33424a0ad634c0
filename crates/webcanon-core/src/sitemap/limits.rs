//! The protocol's limits, and the parser's own.

/// Entries kept per file; the protocol's limit. Later entries are dropped
/// with [`SitemapCode::TooManyUrls`](super::SitemapCode::TooManyUrls).
pub const MAX_ENTRIES: usize = 50_000;

/// Uncompressed bytes read per file: the protocol's 50 MB (52,428,800
/// bytes). Also the decompression cap.
pub const MAX_BYTES: usize = 52_428_800;

/// A news sitemap should list at most this many news entries (Google).
pub const MAX_NEWS_ENTRIES: usize = 1_000;

/// Findings kept per file; a file with a million bad lines yields this many
/// and one [`SitemapCode::TooManyDiagnostics`](super::SitemapCode::TooManyDiagnostics).
pub const MAX_DIAGNOSTICS: usize = 1_000;
