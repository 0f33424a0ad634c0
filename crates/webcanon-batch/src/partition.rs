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
//!
//! A spill is durable before it counts: every partition file is flushed and
//! synced, then the `complete` marker is written (synced, renamed into
//! place, the directory synced) with each file's size and FNV-1a 64 digest.
//! A resume checks every partition file still on disk against the marker
//! ([`Partitions::open`]); a file cut short or garbled by a crash or a full
//! disk is not read as a partition with fewer origins: the spill is redone.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use arrow::array::Array;
use serde::{Deserialize, Serialize};

use crate::BatchError;
use crate::input::{InputFormat, UrlReader};
use crate::origin::{Shard, host_of_origin, parse_url, shard_hash, write_origin};
use crate::progress::{Pass, Progress};

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

/// What a spill directory holds, as [`Partitions::open`] finds it.
#[derive(Debug)]
pub enum SpillState {
    /// No complete spill: none was made, or it was cut short.
    Missing,
    /// A complete spill whose partition files match its marker.
    Complete(Partitions),
    /// A spill whose marker or one of whose files no longer matches what
    /// was written. The spill must be redone.
    Damaged {
        /// The partition count the marker recorded, when it is readable
        /// (the partitions already fetched are numbered by it).
        count: Option<u32>,
        /// What does not match, naming the file.
        why: String,
    },
}

/// The `complete` marker: the partition count and, for each partition
/// file, its size and FNV-1a 64 digest as written.
#[derive(Debug, Serialize, Deserialize)]
struct Marker {
    count: u32,
    files: Vec<FileSeal>,
}

/// A partition file's size and digest as the spill wrote it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
struct FileSeal {
    bytes: u64,
    fnv1a: u64,
}

impl FileSeal {
    const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

    fn new() -> FileSeal {
        FileSeal { bytes: 0, fnv1a: FileSeal::FNV_OFFSET }
    }

    fn add(&mut self, data: &[u8]) {
        self.bytes += data.len() as u64;
        for &b in data {
            self.fnv1a ^= u64::from(b);
            self.fnv1a = self.fnv1a.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    /// The seal of the file at `path`, read in full.
    fn of_file(path: &Path) -> std::io::Result<FileSeal> {
        let mut file = File::open(path)?;
        let mut seal = FileSeal::new();
        let mut buffer = vec![0; 1 << 16];
        loop {
            match file.read(&mut buffer)? {
                0 => return Ok(seal),
                n => seal.add(&buffer[..n]),
            }
        }
    }
}

/// Makes the entries of `dir` (a file created or renamed in it) durable.
fn sync_dir(dir: &Path) -> Result<(), BatchError> {
    File::open(dir).and_then(|d| d.sync_all()).map_err(|e| BatchError::io(dir, e))
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
        let mut seals = vec![FileSeal::new(); count as usize];
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
                seals[p].add(origin.as_bytes());
                seals[p].add(b"\n");
                last[p].clone_from(&origin);
            }
            progress.advance(Pass::Origins, urls.len() as u64);
        }
        // Every partition on disk before the marker says so: a crash after
        // the marker must not leave a file cut short.
        for (i, writer) in writers.into_iter().enumerate() {
            let path = Partitions::file(dir, i as u32);
            let file = writer.into_inner().map_err(|e| BatchError::io(&path, e.into_error()))?;
            file.sync_all().map_err(|e| BatchError::io(&path, e))?;
        }
        let marker = dir.join("complete");
        let tmp = dir.join("complete.tmp");
        let json = serde_json::to_vec(&Marker { count, files: seals }).expect("the marker serialises");
        let mut file = File::create(&tmp).map_err(|e| BatchError::io(&tmp, e))?;
        file.write_all(&json).and_then(|()| file.sync_all()).map_err(|e| BatchError::io(&tmp, e))?;
        std::fs::rename(&tmp, &marker).map_err(|e| BatchError::io(&marker, e))?;
        sync_dir(dir)?;
        progress.end(Pass::Origins);
        Ok(Partitions { dir: dir.to_path_buf(), count })
    }

    /// What the spill in `dir` holds: a complete one whose partition files
    /// still on disk each match the size and digest its marker recorded
    /// (a partition whose origins are all recorded has had its file
    /// removed), none, or a damaged one. This reads every partition file
    /// once, on resume only.
    pub fn open(dir: &Path) -> SpillState {
        let Ok(text) = std::fs::read(dir.join("complete")) else { return SpillState::Missing };
        let marker = match serde_json::from_slice::<Marker>(&text) {
            Ok(marker) if marker.files.len() == marker.count as usize && marker.count > 0 => marker,
            _ => {
                let why = format!("{}: not a spill marker", dir.join("complete").display());
                return SpillState::Damaged { count: None, why };
            }
        };
        let damaged = |why: String| SpillState::Damaged { count: Some(marker.count), why };
        for (index, expected) in marker.files.iter().enumerate() {
            let path = Partitions::file(dir, index as u32);
            match FileSeal::of_file(&path) {
                Ok(found) if found == *expected => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Ok(found) => {
                    return damaged(format!(
                        "{}: {} bytes where the spill wrote {}{}",
                        path.display(),
                        found.bytes,
                        expected.bytes,
                        if found.bytes == expected.bytes { " with other contents" } else { "" }
                    ));
                }
                Err(e) => return damaged(format!("{}: {e}", path.display())),
            }
        }
        SpillState::Complete(Partitions { dir: dir.to_path_buf(), count: marker.count })
    }

    /// Whether partition `index`'s file is still on disk (it is removed
    /// once its origins are all recorded).
    pub fn is_present(&self, index: u32) -> bool {
        Partitions::file(&self.dir, index).exists()
    }

    /// The distinct origins of partition `index`, sorted.
    pub fn origins(&self, index: u32) -> Result<Vec<String>, BatchError> {
        let path = Partitions::file(&self.dir, index);
        let file = File::open(&path).map_err(|e| BatchError::io(&path, e))?;
        let mut origins = Vec::new();
        for line in BufReader::with_capacity(1 << 20, file).lines() {
            let line = line.map_err(|e| BatchError::Resume {
                path: path.clone(),
                reason: format!(
                    "a partition of origins is unreadable ({e}); remove {} and run the same command again to spill \
                     the origins anew (what was fetched is kept)",
                    self.dir.display()
                ),
            })?;
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
            let SpillState::Complete(reopened) = Partitions::open(&spill) else { panic!("a complete spill") };
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
        assert!(matches!(Partitions::open(&dir.path().join("spill-0")), SpillState::Missing));
    }

    /// A partition file that no longer matches the marker (cut short,
    /// garbled with its size kept, grown) makes the spill damaged, naming
    /// the file; a removed one (its origins recorded) does not.
    #[test]
    fn a_partition_that_does_not_match_its_marker_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("urls.txt");
        let urls: String = (0..300).map(|i| format!("https://h{i}.test/a\n")).collect();
        std::fs::write(&input, urls).unwrap();
        let spill = dir.path().join("spill");
        let first = Partitions::file(&spill, 1);
        type Damage = fn(&Path);
        let damages: [(&str, Damage, bool); 5] = [
            ("untouched", |_| {}, false),
            ("removed", |p| std::fs::remove_file(p).unwrap(), false),
            ("cut short", |p| File::options().write(true).open(p).unwrap().set_len(5).unwrap(), true),
            (
                "garbled",
                |p| {
                    let mut bytes = std::fs::read(p).unwrap();
                    bytes[3] = 0xFF;
                    std::fs::write(p, bytes).unwrap()
                },
                true,
            ),
            ("grown", |p| File::options().append(true).open(p).unwrap().write_all(b"x\n").unwrap(), true),
        ];
        for (what, damage, damaged) in damages {
            Partitions::spill(&input, "url", 64, Shard::ALL, &spill, 4, &crate::run::NoProgress).unwrap();
            damage(&first);
            match Partitions::open(&spill) {
                SpillState::Damaged { count, why } => {
                    assert!(damaged && count == Some(4), "{what}: {why}");
                    assert!(why.contains("origins-00001.txt"), "{what}: {why}");
                }
                SpillState::Complete(p) => assert!(!damaged && p.count() == 4, "{what}"),
                SpillState::Missing => panic!("{what}: the marker is there"),
            }
        }
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
