//! A job's results file: JSON lines appended by its runner, read back a
//! page at a time from a byte offset. Readers see only the committed
//! length (whole lines, flushed), never a line being written.

use std::io::SeekFrom;
use std::path::Path;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncSeekExt, BufReader};

use crate::JobsError;
use crate::limits::{MAX_PAGE_BYTES, MAX_PAGE_RECORDS};

/// Records read from `path` starting at byte `cursor`, at most `limit`
/// of them (and [`MAX_PAGE_RECORDS`]) and at most `max_bytes` of lines (and
/// [`MAX_PAGE_BYTES`]; the first record is read whatever its size), within
/// the first `committed` bytes; with the offset after the last one read.
///
/// A cursor past `committed`, or not at the start of a line, is refused:
/// a cursor is only ever one this module handed out.
pub(crate) async fn read_page(
    path: &Path,
    cursor: u64,
    committed: u64,
    limit: usize,
    max_bytes: usize,
) -> Result<(Vec<serde_json::Value>, u64), JobsError> {
    if cursor > committed {
        return Err(JobsError::InvalidCursor { cursor });
    }
    let mut file = tokio::fs::File::open(path).await?;
    if cursor > 0 {
        file.seek(SeekFrom::Start(cursor - 1)).await?;
        if file.read_u8().await? != b'\n' {
            return Err(JobsError::InvalidCursor { cursor });
        }
    }
    let max_bytes = max_bytes.min(MAX_PAGE_BYTES);
    let mut lines = BufReader::new(file.take(committed - cursor));
    let mut records = Vec::new();
    let mut read_bytes = 0usize;
    let mut line = Vec::new();
    while records.len() < limit.clamp(1, MAX_PAGE_RECORDS) {
        line.clear();
        let length = lines.read_until(b'\n', &mut line).await?;
        if length == 0 || (!records.is_empty() && read_bytes + length > max_bytes) {
            break;
        }
        let record = serde_json::from_slice(&line).map_err(|error| JobsError::CorruptResults(error.to_string()))?;
        records.push(record);
        read_bytes += length;
    }
    Ok((records, cursor + read_bytes as u64))
}
