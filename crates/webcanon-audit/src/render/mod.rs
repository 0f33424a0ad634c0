//! Report renderers: terminal text and a standalone HTML page. JSON is the
//! [`Report`](crate::Report) serialised with serde.

pub mod html;
pub mod terminal;
