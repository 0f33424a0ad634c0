//! Compressed streams inflated into the [lexer](super::lexer) a piece at
//! a time, keeping none of the bytes: FlateDecode and LZWDecode, cut
//! short where the reader would stop.

use std::io::Read;

use super::caps::CHUNK;
use super::lexer::Lexer;
use crate::pdf::outcome::PageCap;

/// How inflating a stream into a lexer ended.
pub(super) enum Inflated {
    /// At its end (or where it was cut short, as the reader reads it).
    Done,
    /// Over a cap.
    Over(PageCap),
    /// Not a zlib stream, or corrupt.
    Corrupt,
}

/// Inflates the zlib stream `data` into `lexer` a [`CHUNK`] at a time,
/// keeping none of it.
pub(super) fn inflate(data: &[u8], lexer: &mut Lexer) -> Inflated {
    if data.is_empty() {
        return Inflated::Done;
    }
    let mut decoder = flate2::read::ZlibDecoder::new(data);
    let mut buffer = vec![0; CHUNK];
    let mut any = false;
    loop {
        match decoder.read(&mut buffer) {
            Ok(0) => return Inflated::Done,
            Ok(n) => {
                any = true;
                lexer.feed(&buffer[..n]);
                if let Some(cap) = lexer.over() {
                    return Inflated::Over(cap);
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            // The reader keeps what a stream that stops short decoded to;
            // with nothing decoded it tries other ways.
            Err(e) if any && is_truncation(&e) => return Inflated::Done,
            Err(_) => return Inflated::Corrupt,
        }
    }
}

/// Decodes the LZW stream `data` as the reader does (most significant bit
/// first, 8-bit symbols; the code size switched one code `early` or not)
/// into `lexer` a [`CHUNK`] at a time, keeping none of it.
pub(super) fn unlzw(data: &[u8], early: bool, lexer: &mut Lexer) -> Inflated {
    use weezl::{BitOrder, LzwStatus, decode::Decoder};
    let mut decoder =
        if early { Decoder::with_tiff_size_switch(BitOrder::Msb, 8) } else { Decoder::new(BitOrder::Msb, 8) };
    let mut buffer = vec![0; CHUNK];
    let mut input = data;
    loop {
        let result = decoder.decode_bytes(input, &mut buffer);
        input = &input[result.consumed_in..];
        if result.consumed_out > 0 {
            lexer.feed(&buffer[..result.consumed_out]);
            if let Some(cap) = lexer.over() {
                return Inflated::Over(cap);
            }
        }
        match result.status {
            Ok(LzwStatus::Done) => return Inflated::Done,
            // The input used up without an end marker: as far as it goes.
            Ok(_) if input.is_empty() && result.consumed_out < buffer.len() => return Inflated::Done,
            Ok(LzwStatus::NoProgress) => return Inflated::Corrupt,
            Ok(LzwStatus::Ok) if result.consumed_in == 0 && result.consumed_out == 0 => return Inflated::Corrupt,
            Ok(LzwStatus::Ok) => {}
            Err(_) => return Inflated::Corrupt,
        }
    }
}

/// Whether an inflate error is a stream stopping short (as the reader
/// tells).
fn is_truncation(e: &std::io::Error) -> bool {
    if e.kind() == std::io::ErrorKind::UnexpectedEof {
        return true;
    }
    let message = e.to_string();
    message.contains("incomplete deflate stream") || message.contains("unexpected end")
}
