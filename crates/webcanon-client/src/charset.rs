//! Which character encoding a body is in, and its text: `webcanon-extract`'s
//! rules ([`webcanon_extract::charset`]), as the client decodes every
//! answer.

pub use webcanon_extract::charset::{CharsetSource, Decoded, decode};
