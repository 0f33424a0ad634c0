//! Distinct origins in bounded memory: the origins of the input, spilled to
//! disk in hash partitions, each small enough to deduplicate in memory.
//!
//! The input is read once; the origin of every URL of the shard is
//! appended to one of `count` partition files, chosen by a hash of the
//! origin's *host* (so every origin of a host lands in the same partition
//! and the fetch pass can keep a host to one request at a time). A
//! partition is then read alone, its origins sorted and deduplicated: the
//! memory this takes is that of one partition, never of the whole input.
//!
//! The partition count is chosen before reading, from the input's size:
//! the bytes of its URLs (for Parquet, the uncompressed size of the column
//! from the file's metadata) divided by a budget of origin text per
//! partition ([`PARTITION_BYTES`]). An origin is never longer than its URL
//! by more than its IDNA encoding adds, so a partition's file, which holds
//! at most the origins of its URLs, stays near the budget and its distinct
//! origins within it, whatever the number of origins. The count is capped
//! ([`MAX_PARTITIONS`], and a quarter of the open-file limit, as every
//! partition file is open while the input is read); an input larger than
//! the cap times the budget gets proportionally larger partitions, which
//! the run's summary reports.
//!
//! The partition hash is FNV-1a 64 of the lower-cased host, its upper 32
//! bits modulo the count.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use arrow::array::Array;

use crate::BatchError;
use crate::input::{InputFormat, UrlReader};
use crate::origin::{Shard, host_of_origin, parse_url, shard_hash, write_origin};
use crate::run::{Pass, Progress};

/// The budget of origin text per partition: 16 MiB, about 400,000 origins
/// of 40 bytes, which deduplicate and group in well under 100 MB.
pub const PARTITION_BYTES: u64 = 16 << 20;

/// The most partitions, whatever the input's size.
pub const MAX_PARTITIONS: u32 = 1024;

/// The partition of `origin` among `count`.
pub fn partition_of(origin: &str, count: u32) -> u32 {
    let host = host_of_origin(origin);
    let hash = if host.bytes().any(|b| b.is_ascii_uppercase()) {
        shard_hash(&host.to_ascii_lowercase())
    } else {
        shard_hash(host)
    };
    ((hash >> 32) % u64::from(count.max(1))) as u32
}

/// How many partitions an input of `input_bytes` of URL text takes, with
/// `budget` bytes per partition and at most `max` partitions.
pub fn partition_count(input_bytes: u64, budget: u64, max: u32) -> u32 {
    let wanted = input_bytes.div_ceil(budget.max(1)).max(1);
    u32::try_from(wanted).unwrap_or(u32::MAX).clamp(1, max.max(1))
}

/// The bytes of URL text in `path`: the file's size for text and CSV, the
/// uncompressed size of `column` for Parquet.
pub fn url_bytes(path: &Path, column: &str) -> Result<u64, BatchError> {
    if InputFormat::from_path(path)? == InputFormat::Parquet {
        let file = File::open(path).map_err(|e| BatchError::io(path, e))?;
        let reader = parquet::file::serialized_reader::SerializedFileReader::new(file)
            .map_err(|e| BatchError::parquet(path, e))?;
        use parquet::file::reader::FileReader;
        let meta = reader.metadata();
        let schema = meta.file_metadata().schema_descr();
        let index = (0..schema.num_columns())
            .find(|&i| schema.column(i).path().parts().first().map(String::as_str) == Some(column));
        let Some(index) = index else { return Ok(0) };
        return Ok(meta.row_groups().iter().map(|g| g.column(index).uncompressed_size().max(0) as u64).sum());
    }
    std::fs::metadata(path).map(|m| m.len()).map_err(|e| BatchError::io(path, e))
}

/// The origins of a shard of the input, partitioned on disk.
#[derive(Debug, Clone)]
pub struct Partitions {
    dir: PathBuf,
    count: u32,
}

impl Partitions {
    /// The file of partition `index`.
    fn file(dir: &Path, index: u32) -> PathBuf {
        dir.join(format!("origins-{index:05}.txt"))
    }

    /// How many partitions there are.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// Reads the input once and spills the origins of the shard's URLs into
    /// `count` partition files in `dir` (created, emptied first). A marker
    /// file is written last: [`Partitions::open`] finds a complete spill.
    pub fn spill(
        input: &Path,
        column: &str,
        batch_rows: usize,
        shard: Shard,
        dir: &Path,
        count: u32,
        progress: &dyn Progress,
    ) -> Result<Partitions, BatchError> {
        if dir.exists() {
            std::fs::remove_dir_all(dir).map_err(|e| BatchError::io(dir, e))?;
        }
        std::fs::create_dir_all(dir).map_err(|e| BatchError::io(dir, e))?;
        let mut writers = (0..count)
            .map(|i| {
                let path = Partitions::file(dir, i);
                File::create(&path)
                    .map(|f| BufWriter::with_capacity(64 * 1024, f))
                    .map_err(|e| BatchError::io(&path, e))
            })
            .collect::<Result<Vec<_>, _>>()?;
        // The last origin written to each partition: runs of URLs of one
        // origin (the common case) are written once.
        let mut last: Vec<String> = vec![String::new(); count as usize];
        let mut origin = String::new();
        progress.begin(Pass::Origins, None, 0);
        for urls in UrlReader::open(input, column, batch_rows).map_err(BatchError::input)? {
            let urls = urls.map_err(BatchError::input)?;
            for url in urls.iter().flatten() {
                let Ok(parsed) = parse_url(url) else { continue };
                write_origin(&parsed, &mut origin);
                if !shard.contains(&origin) {
                    continue;
                }
                let p = partition_of(&origin, count) as usize;
                if last[p] == origin {
                    continue;
                }
                let path = || Partitions::file(dir, p as u32);
                writers[p].write_all(origin.as_bytes()).map_err(|e| BatchError::io(path(), e))?;
                writers[p].write_all(b"\n").map_err(|e| BatchError::io(path(), e))?;
                last[p].clone_from(&origin);
            }
            progress.advance(Pass::Origins, urls.len() as u64);
        }
        for (i, writer) in writers.into_iter().enumerate() {
            let path = Partitions::file(dir, i as u32);
            writer.into_inner().map_err(|e| BatchError::io(&path, e.into_error()))?;
        }
        let marker = dir.join("complete");
        std::fs::write(&marker, count.to_string()).map_err(|e| BatchError::io(&marker, e))?;
        progress.end(Pass::Origins);
        Ok(Partitions { dir: dir.to_path_buf(), count })
    }

    /// The partitions a complete spill left in `dir`, if there is one.
    pub fn open(dir: &Path) -> Option<Partitions> {
        let count = std::fs::read_to_string(dir.join("complete")).ok()?.trim().parse().ok()?;
        Some(Partitions { dir: dir.to_path_buf(), count })
    }

    /// The distinct origins of partition `index`, sorted.
    pub fn origins(&self, index: u32) -> Result<Vec<String>, BatchError> {
        let path = Partitions::file(&self.dir, index);
        let file = File::open(&path).map_err(|e| BatchError::io(&path, e))?;
        let mut origins = Vec::new();
        for line in BufReader::with_capacity(1 << 20, file).lines() {
            let line = line.map_err(|e| BatchError::io(&path, e))?;
            origins.push(line);
        }
        origins.sort_unstable();
        origins.dedup();
        origins.shrink_to_fit();
        Ok(origins)
    }

    /// Removes partition `index`'s file (its origins are all recorded).
    pub fn remove(&self, index: u32) -> Result<(), BatchError> {
        let path = Partitions::file(&self.dir, index);
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(BatchError::io(&path, e)),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_follow_the_budget_within_their_bounds() {
        let table = [
            (0, 100, 8, 1),
            (100, 100, 8, 1),
            (101, 100, 8, 2),
            (1_000, 100, 8, 8),
            (10 << 30, PARTITION_BYTES, MAX_PARTITIONS, 640),
            (u64::MAX, 1, MAX_PARTITIONS, MAX_PARTITIONS),
            (5, 0, 0, 1),
        ];
        for (bytes, budget, max, expected) in table {
            assert_eq!(partition_count(bytes, budget, max), expected, "{bytes} {budget} {max}");
        }
    }

    /// The memory that finding distinct origins takes is one partition's:
    /// over 60,000 origins (each twice, far apart, plus invalid rows) the
    /// largest partition holds about its share of the budget, and the
    /// partitions together hold every origin of the shard exactly once.
    #[test]
    fn distinct_origins_take_one_partition_of_memory() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("urls.txt");
        let origins = 60_000;
        let mut text = String::new();
        for round in 0..2 {
            for i in 0..origins {
                text.push_str(&format!("https://h{i}.test/page/{round}\n"));
            }
            text.push_str("not a url\n");
        }
        std::fs::write(&input, &text).unwrap();
        for (shard, budget) in [(Shard::ALL, 256 * 1024), (Shard::new(1, 3).unwrap(), 64 * 1024)] {
            let bytes = url_bytes(&input, "url").unwrap();
            let count = partition_count(bytes, budget, MAX_PARTITIONS);
            assert_eq!(count as u64, bytes.div_ceil(budget), "{shard}");
            let spill = dir.path().join(format!("spill-{}", shard.index));
            let partitions =
                Partitions::spill(&input, "url", 4096, shard, &spill, count, &crate::run::NoProgress).unwrap();
            let reopened = Partitions::open(&spill).expect("a complete spill");
            assert_eq!(reopened.count(), count);
            let mut all = Vec::new();
            let mut largest = 0u64;
            for p in 0..count {
                let part = partitions.origins(p).unwrap();
                let held: u64 = part.iter().map(|o| o.len() as u64 + 1).sum();
                largest = largest.max(held);
                assert!(part.iter().all(|o| partition_of(o, count) == p));
                all.extend(part);
            }
            let expected: Vec<String> =
                (0..origins).map(|i| format!("https://h{i}.test")).filter(|o| shard.contains(o)).collect();
            let total: u64 = expected.iter().map(|o| o.len() as u64 + 1).sum();
            // Each partition near its share of the distinct origins: never
            // the whole shard, and within the budget.
            assert!(largest <= total / u64::from(count) * 13 / 10, "{largest} of {total} in {count}");
            assert!(largest <= budget, "{largest} > {budget}");
            all.sort();
            let mut expected = expected;
            expected.sort();
            assert_eq!(all, expected, "{shard}: every origin once");
        }
        // A spill cut short (no marker) is not taken for a complete one.
        std::fs::remove_file(dir.path().join("spill-0").join("complete")).unwrap();
        assert!(Partitions::open(&dir.path().join("spill-0")).is_none());
    }

    #[test]
    fn every_origin_of_a_host_shares_a_partition_and_hosts_spread() {
        for count in [1, 7, 64] {
            for host in ["a.test", "B.test", "[::1]", "127.0.0.1"] {
                let lower = host.to_ascii_lowercase();
                let parts: Vec<u32> = [
                    format!("http://{host}"),
                    format!("https://{host}"),
                    format!("https://{host}:8443"),
                    format!("http://{lower}:81"),
                ]
                .iter()
                .map(|o| partition_of(o, count))
                .collect();
                assert!(parts.iter().all(|&p| p == parts[0] && p < count), "{host} {count}: {parts:?}");
            }
        }
        // Within one shard (fixed low bits of the origin hash), hosts still
        // spread over every partition.
        let shard = Shard::new(1, 4).unwrap();
        let mut seen = [0u32; 16];
        for i in 0..20_000 {
            let origin = format!("https://h{i}.test");
            if shard.contains(&origin) {
                seen[partition_of(&origin, 16) as usize] += 1;
            }
        }
        assert!(seen.iter().all(|&n| n > 200), "{seen:?}");
    }
}
