//! A file of start URLs, one a line: read in bounded memory and time,
//! whatever the file holds.
//!
//! The file is read a line at a time, each line at most
//! [`MAX_LINE_BYTES`], the file at most [`MAX_FILE_BYTES`] and
//! [`MAX_SEEDS`] URLs: a huge file, an endless line or binary data is
//! refused after reading at most a line's bytes past the point that
//! decides it, with the line number.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use url::Url;

/// The most start URLs a seed file may hold; a larger list is a dataset
/// for `batch`.
pub const MAX_SEEDS: usize = 100_000;
/// The largest seed file read, in bytes.
pub const MAX_FILE_BYTES: u64 = 256 << 20;
/// The longest line read, in bytes.
pub const MAX_LINE_BYTES: usize = 4096;

/// Why a seed file was refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SeedFileError {
    /// The file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        source: io::Error,
    },
    /// The file is larger than [`MAX_FILE_BYTES`].
    #[error("{}: larger than {} MiB", path.display(), MAX_FILE_BYTES >> 20)]
    TooLarge {
        /// The file.
        path: PathBuf,
    },
    /// The file holds more than [`MAX_SEEDS`] URLs.
    #[error("{}: more than {MAX_SEEDS} start URLs", path.display())]
    TooMany {
        /// The file.
        path: PathBuf,
    },
    /// A line is longer than [`MAX_LINE_BYTES`].
    #[error("{}: line {line} is longer than 4 KiB", path.display())]
    LongLine {
        /// The file.
        path: PathBuf,
        /// The 1-based line number.
        line: usize,
    },
    /// A line is not UTF-8 text, or holds control characters.
    #[error("{}: line {line} is not text (binary data?)", path.display())]
    NotText {
        /// The file.
        path: PathBuf,
        /// The 1-based line number.
        line: usize,
    },
    /// A line is not an absolute http(s) URL.
    #[error("{}: line {line}: `{text}` is not an http(s) URL: {reason}", path.display())]
    NotUrl {
        /// The file.
        path: PathBuf,
        /// The 1-based line number.
        line: usize,
        /// The line, cut at 100 characters.
        text: String,
        /// Why it is not one.
        reason: String,
    },
}

/// The start URLs of the file at `path`: one a line, surrounding white
/// space trimmed, blank lines and lines starting with `#` skipped.
pub fn read_seed_file(path: &Path) -> Result<Vec<Url>, SeedFileError> {
    let io_error = |source| SeedFileError::Io { path: path.to_path_buf(), source };
    let file = File::open(path).map_err(io_error)?;
    if file.metadata().map_err(io_error)?.len() > MAX_FILE_BYTES {
        return Err(SeedFileError::TooLarge { path: path.to_path_buf() });
    }
    // Bounded again while reading: a file that grows, or a pipe.
    let mut reader = BufReader::new(file.take(MAX_FILE_BYTES + 1));
    let mut seeds = Vec::new();
    let mut bytes = Vec::with_capacity(MAX_LINE_BYTES);
    let mut read_total = 0u64;
    for line in 1.. {
        bytes.clear();
        let read = (&mut reader).take(MAX_LINE_BYTES as u64 + 1).read_until(b'\n', &mut bytes).map_err(io_error)?;
        if read == 0 {
            break;
        }
        read_total += read as u64;
        if read_total > MAX_FILE_BYTES {
            return Err(SeedFileError::TooLarge { path: path.to_path_buf() });
        }
        if bytes.strip_suffix(b"\n").unwrap_or(&bytes).len() > MAX_LINE_BYTES {
            return Err(SeedFileError::LongLine { path: path.to_path_buf(), line });
        }
        let text = std::str::from_utf8(&bytes)
            .ok()
            .map(str::trim)
            .filter(|t| !t.chars().any(char::is_control))
            .ok_or_else(|| SeedFileError::NotText { path: path.to_path_buf(), line })?;
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        if seeds.len() == MAX_SEEDS {
            return Err(SeedFileError::TooMany { path: path.to_path_buf() });
        }
        seeds.push(webcanon_client::web_url::parse(text).map_err(|reason| SeedFileError::NotUrl {
            path: path.to_path_buf(),
            line,
            text: text.chars().take(100).collect(),
            reason: reason.to_string(),
        })?);
    }
    Ok(seeds)
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;

    fn read(contents: &[u8]) -> Result<Vec<String>, String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("seeds.txt");
        std::fs::write(&path, contents).unwrap();
        read_seed_file(&path).map(|urls| urls.into_iter().map(String::from).collect()).map_err(|e| {
            let message = e.to_string();
            message.split_once(": ").map_or(message.clone(), |(_, rest)| rest.to_string())
        })
    }

    #[test]
    fn urls_comments_and_blank_lines() {
        let seeds = read(b"# sites\n\n  https://a.example/docs/  \r\nhttp://b.example\n").unwrap();
        assert_eq!(seeds, ["https://a.example/docs/", "http://b.example/"]);
    }

    #[test]
    fn bad_lines_are_named_by_number() {
        assert_eq!(
            read(b"https://a.example/\nftp://b.example/\n").unwrap_err(),
            "line 2: `ftp://b.example/` is not an http(s) URL: scheme `ftp` is not http or https"
        );
        assert_eq!(
            read(b"https://a.example/\nnot a url\n").unwrap_err(),
            "line 2: `not a url` is not an http(s) URL: relative URL without a base"
        );
        assert_eq!(read(b"\n\xff\xfe\x00garbage\n").unwrap_err(), "line 2 is not text (binary data?)");
        assert_eq!(read(b"https://a.example/\x00\n").unwrap_err(), "line 1 is not text (binary data?)");
    }

    /// Writes a test's seed file.
    type MakeFile = dyn Fn(&Path);

    #[test]
    fn hostile_files_are_refused_in_bounded_time() {
        let dir = tempfile::tempdir().unwrap();
        let cases: [(&str, Box<MakeFile>, &str); 4] = [
            // A sparse file past the size limit: refused before a byte is read.
            (
                "huge",
                Box::new(|p| File::create(p).unwrap().set_len(MAX_FILE_BYTES + 1).unwrap()),
                "larger than 256 MiB",
            ),
            (
                "one endless line",
                Box::new(|p| std::fs::write(p, vec![b'x'; 64 << 20]).unwrap()),
                "line 1 is longer than 4 KiB",
            ),
            (
                "binary garbage",
                Box::new(|p| {
                    let garbage: Vec<u8> =
                        (0..16u32 << 20).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
                    std::fs::write(p, garbage).unwrap()
                }),
                "is not text (binary data?)",
            ),
            (
                "too many URLs",
                Box::new(|p| std::fs::write(p, "https://a.example/\n".repeat(MAX_SEEDS + 1)).unwrap()),
                "more than 100000 start URLs",
            ),
        ];
        for (name, write, expected) in cases {
            let path = dir.path().join(name);
            write(&path);
            let started = Instant::now();
            let error = read_seed_file(&path).unwrap_err().to_string();
            assert!(error.contains(expected), "{name}: {error}");
            assert!(started.elapsed() < Duration::from_secs(5), "{name}: {:?}", started.elapsed());
        }
    }
}
