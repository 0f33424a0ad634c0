//! The core's integration tests, linked as one test binary (one link
//! instead of one per file). Each file is a module: run one with
//! `cargo test -p webcanon-core conformance::`.

mod ai_txt;
mod conformance;
mod corpus;
mod hostile;
mod llms;
mod properties;
mod rsl;
mod sitemap;
mod snapshots;
