//! The Chromium executable for the tests that drive a browser.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Where Debian's `chromium` package puts the browser.
pub const DEBIAN_CHROMIUM: &str = "/usr/bin/chromium";

/// The browser: `WEBCANON_CHROMIUM`, which must exist (a wrong path is a
/// broken setup, not a reason to skip), else Debian's. When neither is
/// there, the test fails if `WEBCANON_REQUIRE_CHROMIUM` is set (as
/// `scripts/test.sh` does), so browser tests are never skipped silently;
/// otherwise `None`, with a note on stderr naming the test that did not run.
pub fn chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("WEBCANON_CHROMIUM") {
        let path = PathBuf::from(path);
        assert!(path.is_file(), "WEBCANON_CHROMIUM={} does not exist", path.display());
        return Some(path);
    }
    if Path::new(DEBIAN_CHROMIUM).is_file() {
        return Some(DEBIAN_CHROMIUM.into());
    }
    let why = format!("WEBCANON_CHROMIUM is unset and {DEBIAN_CHROMIUM} is absent (scripts/test.sh installs it)");
    assert!(std::env::var_os("WEBCANON_REQUIRE_CHROMIUM").is_none(), "WEBCANON_REQUIRE_CHROMIUM is set but {why}");
    // Straight to stderr: the harness hides what `eprintln!` writes in a
    // passing test. libtest names each test's thread after the test.
    let test = std::thread::current().name().unwrap_or("a browser test").to_string();
    let _ = writeln!(std::io::stderr(), "{test}: NOT RUN: {why}");
    None
}
