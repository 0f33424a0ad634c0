//! RSL license documents (Really Simple Licensing 1.0) as the client reads
//! them: bounded in size, parsed once, cached like llms.txt (a
//! [`HintCache`] over the robots store, keyed `rsl <url>`; fresh for the
//! robots.txt cache time, failures for minutes).
//!
//! A document is requested like an llms.txt: through the SSRF guard and
//! only when robots.txt clearly permits it (`Client::fetch_strict`); its
//! terms become usage warnings and never block a fetch.

use webcanon_core::rsl::{self, RslDocument};

use crate::hint_cache::{HintCache, HintKind, LoadedHint};

/// Bytes read of an RSL document: one past the parser's limit, so that a
/// longer document is seen to be one and refused as too large.
pub(crate) const RSL_MAX_BYTES: usize = (1 << 20) + 1;

/// The `Accept` header of RSL requests.
pub(crate) const RSL_ACCEPT: &str = "application/rsl+xml, application/xml;q=0.9, text/xml;q=0.8, */*;q=0.1";

/// The memory budget of parsed documents: 8 MiB, least recently used
/// dropped first (and read again from the store).
pub(crate) const RSL_MEMORY_BYTES: u64 = 8 << 20;

/// RSL documents as hint files: the parsed document, or why there is none
/// to read (no answer, or a body that is not RSL).
#[derive(Debug)]
pub(crate) struct RslHint;

impl HintKind for RslHint {
    type Document = Result<RslDocument, String>;
    const STORE_KEY: &'static str = "rsl";
    const NAME: &'static str = "RSL document";

    fn read(found: Result<&[u8], &str>) -> Result<RslDocument, String> {
        match found {
            Ok(body) => rsl::parse(body).map_err(|e| e.to_string()),
            Err(why) => Err(why.to_string()),
        }
    }
}

/// Loaded RSL documents.
pub(crate) type RslCache = HintCache<RslHint>;

/// An RSL location and what is there.
pub(crate) type LoadedRsl = LoadedHint<RslHint>;
