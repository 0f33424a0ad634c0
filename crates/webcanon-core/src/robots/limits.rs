//! How much of a robots.txt body is read.

/// Only this many octets of a robots.txt body are parsed (RFC 9309 §2.5
/// requires at least 500 KiB; the rest is ignored with a diagnostic).
pub const MAX_PARSE_BYTES: usize = 500 * 1024;

/// Lines longer than this are cut here; what remains still applies. This is
/// Google's limit: its line buffer holds eight times 2,083 bytes (the longest
/// URL it handles), one of which is kept for the string's terminator.
pub const MAX_LINE_BYTES: usize = 16_663;
