//! Reading files and URL lists given on the command line.

use std::fs;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use crate::error::CliError;

/// Reads a whole file, naming it in the error.
pub fn read_file(path: &Path, what: &str) -> Result<Vec<u8>, CliError> {
    fs::read(path).map_err(|err| {
        CliError::usage(format!("cannot read {what} `{}`: {err}", path.display()))
            .with_hint("check the path; use `-` to read from standard input where the command allows it")
    })
}

/// A line source: a file, or standard input for `None` and `-`.
pub fn open_lines(path: Option<&Path>) -> Result<(String, Box<dyn BufRead>), CliError> {
    match path {
        None => Ok(("<stdin>".into(), Box::new(BufReader::with_capacity(1 << 16, io::stdin())))),
        Some(p) if p == Path::new("-") => {
            Ok(("<stdin>".into(), Box::new(BufReader::with_capacity(1 << 16, io::stdin()))))
        }
        Some(p) => {
            let file = fs::File::open(p)
                .map_err(|err| CliError::usage(format!("cannot read URL list `{}`: {err}", p.display())))?;
            Ok((p.display().to_string(), Box::new(BufReader::with_capacity(1 << 16, file))))
        }
    }
}

/// Reads one line (without its line end) into `buf`; false at end of input.
pub fn next_line(reader: &mut dyn BufRead, buf: &mut Vec<u8>) -> io::Result<bool> {
    buf.clear();
    if reader.read_until(b'\n', buf)? == 0 {
        return Ok(false);
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    Ok(true)
}

/// Checks that a URL given to the matcher is an absolute `http(s)` URL with a
/// host, or a path starting with `/`, and contains no spaces or control
/// characters. Returns a short reason when it is not.
pub fn validate_url(url: &str) -> Result<(), &'static str> {
    if url.is_empty() {
        return Err("empty line");
    }
    if url.bytes().any(|b| b <= b' ' || b == 0x7f) {
        return Err("contains spaces or control characters");
    }
    if url.starts_with('/') && !url.starts_with("//") {
        return Ok(());
    }
    let Some((scheme, rest)) = url.split_once("://") else {
        return Err("not an absolute URL or a path starting with `/`");
    };
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return Err("scheme is not http or https");
    }
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let host = &rest[..authority_end];
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    if host.is_empty() || host.starts_with(':') {
        return Err("URL has no host");
    }
    Ok(())
}

/// Reads all of standard input or a file.
pub fn read_all(path: Option<&Path>) -> Result<Vec<u8>, CliError> {
    match path {
        Some(p) if p != Path::new("-") => read_file(p, "file"),
        _ => {
            let mut buf = Vec::new();
            io::stdin().read_to_end(&mut buf)?;
            Ok(buf)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::validate_url;

    #[test]
    fn url_validation_table() {
        let ok = ["/", "/a?b", "https://example.com", "http://a.b/c#d", "HTTPS://x.y:8080/p", "https://u@h/"];
        for url in ok {
            assert_eq!(validate_url(url), Ok(()), "{url}");
        }
        let bad = ["", "example.com/a", "ftp://x/", "https:///a", "/a b", "//host/a", "https://:80/", "mailto:a@b"];
        for url in bad {
            assert!(validate_url(url).is_err(), "{url}");
        }
    }
}
