//! How much of an llms.txt body is read, and what counts as large.

/// Files over this many bytes get
/// [`LlmsCode::LargeFile`](super::LlmsCode::LargeFile): an index that large
/// defeats its purpose for agents with small context windows.
pub const LARGE_FILE_BYTES: usize = 100 * 1024;

/// Only this many bytes are parsed; the rest is ignored with
/// [`LlmsCode::FileTruncated`](super::LlmsCode::FileTruncated), so a hostile
/// file cannot cost unbounded work.
pub const MAX_PARSE_BYTES: usize = 10 * 1024 * 1024;
