//! The caps of a page's [budget](super), side by side: what a page may
//! cost the reader for it to be read, and the bounds of the pre-check's
//! own work.

/// The most characters a page may be able to make for it to be read.
///
/// The densest page of the benchmark PDFs (benches/README.md, "PDF to
/// text") bounds at 68,722 (`lshort-bg.pdf`, page 46, which has 2,948
/// characters): the cap is over 14 times that. The reader keeps about 150
/// bytes a character while it reads a page, and this crate 32 more: a page
/// at this cap and [`MAX_PAGE_CONTENT`] peaks at 304 MiB (measured).
pub const MAX_PAGE_CHARS: u64 = 1_000_000;

/// The most decoded content bytes (the page's streams and each drawing of a
/// form) a page may have for it to be read.
///
/// The largest page of the benchmark PDFs has 2.8 MiB (`octave.pdf`, page
/// 690); the reader holds a page's content twice while it reads it (its
/// cache and a copy).
pub const MAX_PAGE_CONTENT: u64 = 64 << 20;

/// The most characters the reader makes of one code: its `ToUnicode`
/// mapping, cut to one character when longer than eight.
pub const CHARS_PER_CODE: u64 = 8;

/// How deep the reader follows forms drawn inside forms (its
/// `MAX_XOBJECT_DEPTH`).
pub const MAX_FORM_DEPTH: usize = 10;

/// The most bytes of one string the reader shows (the spec's limit, which
/// the reader applies by cutting).
pub(super) const MAX_SHOWN_STRING: u64 = 32_767;

/// How much is inflated at a time.
pub(super) const CHUNK: usize = 64 << 10;

/// Names longer than this are not kept whole; a form drawn by one counts as
/// a drawing of every form whose name is as long.
pub(super) const MAX_NAME: usize = 256;

/// Forms and resource sets remembered across pages before the memory is
/// cleared (each is a few hundred bytes at most).
pub(super) const MAX_REMEMBERED: usize = 8_192;

/// The reader's decompression bomb guard for a FlateDecode stream: at this
/// size it fails the stream.
pub(super) const READER_FLATE_CAP: u64 = 256 << 20;

/// The largest `/ToUnicode` CMap read: the largest CMaps of CJK fonts are
/// a few hundred kilobytes.
pub const MAX_CMAP_BYTES: u64 = 4 << 20;

/// What one code a CMap maps costs the reader to keep (its entry in a
/// map, by measure a few tens of bytes).
pub const CMAP_ENTRY_COST: u64 = 64;
