//! The Chromium executable for the tests that drive a browser.

use std::path::{Path, PathBuf};

/// Where Debian's `chromium` package puts the browser.
pub const DEBIAN_CHROMIUM: &str = "/usr/bin/chromium";

/// The browser: `WEBCANON_CHROMIUM` (which must exist) or Debian's. When
/// neither is there, `None` with a note, unless `WEBCANON_REQUIRE_CHROMIUM`
/// is set (as `scripts/test.sh` does): then the test fails, so browser
/// tests are never skipped silently.
pub fn chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("WEBCANON_CHROMIUM") {
        let path = PathBuf::from(path);
        assert!(path.is_file(), "WEBCANON_CHROMIUM={} does not exist", path.display());
        return Some(path);
    }
    if Path::new(DEBIAN_CHROMIUM).is_file() {
        return Some(DEBIAN_CHROMIUM.into());
    }
    assert!(
        std::env::var_os("WEBCANON_REQUIRE_CHROMIUM").is_none(),
        "WEBCANON_REQUIRE_CHROMIUM is set but {DEBIAN_CHROMIUM} is absent and WEBCANON_CHROMIUM unset"
    );
    eprintln!("note: Chromium is absent ({DEBIAN_CHROMIUM}, WEBCANON_CHROMIUM); rendering tests skipped");
    None
}
