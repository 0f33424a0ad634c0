//! The `webcanon` Python wheel: the extension module `webcanon._webcanon`.
//!
//! It exposes, over PyO3 and the stable ABI (abi3, CPython 3.9+):
//!
//! - [`robots`]: `Robots(body).decide(agent, url)` with the verdict and the
//!   rule that decided it, and `lint(body)`;
//! - [`batch`]: robots snapshots and the batch verdict pass over Arrow data
//!   (pyarrow), for Spark and Ray pipelines;
//! - [`fetch`]: the policy-correct async fetch of `webcanon fetch`, its
//!   result as a dict;
//! - [`crawl`]: the site map and the crawl as iterators of dicts, and the
//!   resumable crawl to a file for one shard of the seeds;
//! - [`errors`]: the exceptions, one per error kind of the CLI.
//!
//! The Python package (`python/webcanon`) re-exports all of it, with type
//! stubs checked against this module.

use pyo3::prelude::*;

pub mod batch;
pub mod crawl;
pub mod errors;
pub mod fetch;
pub mod robots;

/// The extension module.
#[pymodule]
fn _webcanon(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("DEFAULT_AGENT", webcanon_client::DEFAULT_AGENT)?;
    robots::register(m)?;
    batch::register(m)?;
    fetch::register(m)?;
    m.add_class::<crawl::Records>()?;
    errors::register(m)?;
    Ok(())
}
