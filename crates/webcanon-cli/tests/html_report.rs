//! The HTML audit report opened in a real browser: `webcanon audit
//! examples/site --json --html FILE`, then headless Chromium takes a screenshot of
//! the page and dumps its DOM. The DOM must show the title, the score of the
//! JSON report, the summary table and the access matrix; Chromium must log
//! no console message, no uncaught error and no failed load; the page must
//! reference no external resource; the screenshot must be a PNG of the
//! requested width that is not blank and holds the whole page, its foot
//! included (the window is far taller than the report, and the bottom rows
//! of the image must be the page background); printing it to PDF must work
//! without errors. The screenshot and the PDF are kept under
//! `target/html-report/` for a human to look at.
//!
//! Chromium is `$WEBCANON_CHROMIUM`, else `/usr/bin/chromium`. Without
//! either the test says so on stderr and passes, unless
//! `WEBCANON_REQUIRE_CHROMIUM` is set (as `scripts/test.sh` does).

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use webcanon_test::chromium;

/// The example site, from the workspace root.
const SITE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/site");

/// How long one Chromium run may take before it is killed.
const CHROMIUM_TIMEOUT: Duration = Duration::from_secs(60);

/// The screenshot's window size: far taller than the report, so that the
/// screenshot holds the whole page (checked: it ends in background rows).
const WIDTH: u32 = 1280;
const HEIGHT: u32 = 12_000;

/// The page background (`--bg` in the report's style sheet).
const BACKGROUND: [u8; 3] = [0xf6, 0xf8, 0xfa];

/// Background rows the screenshot must end with: the page's own bottom
/// padding, so the image did not cut the page.
const MIN_BACKGROUND_ROWS: u32 = 16;

/// A page rendered with text, tables and colours compresses to far more than
/// this; a blank 1280×2000 page to a few kilobytes.
const MIN_SCREENSHOT_BYTES: u64 = 20 * 1024;

/// Flags for every run: no sandbox (CI runs as root), no GPU, and none of
/// the background connections that a closed network refuses.
const CHROMIUM_FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--enable-logging=stderr",
    "--v=0",
];

/// A temporary directory removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
        let dir = std::env::temp_dir().join(format!("webcanon-{name}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `webcanon` with `args`; panics unless it exits 0. Returns stdout.
fn webcanon(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_webcanon"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("webcanon starts");
    assert!(
        output.status.success(),
        "webcanon {args:?} failed: {}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8 output")
}

/// What one Chromium run left behind.
struct ChromiumRun {
    stdout: String,
    stderr: String,
}

/// Runs Chromium with the common flags, `args` and `url`, in a fresh
/// profile under `tmp`; kills its process group after [`CHROMIUM_TIMEOUT`].
fn run_chromium(chromium: &Path, tmp: &TempDir, name: &str, args: &[String], url: &str) -> ChromiumRun {
    use std::os::unix::process::CommandExt;

    let profile = tmp.path(&format!("profile-{name}"));
    std::fs::create_dir_all(&profile).unwrap();
    let stdout_path = tmp.path(&format!("{name}.stdout"));
    let stderr_path = tmp.path(&format!("{name}.stderr"));
    let mut child = Command::new(chromium)
        .args(CHROMIUM_FLAGS)
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(File::create(&stdout_path).unwrap())
        .stderr(File::create(&stderr_path).unwrap())
        // Its own process group, so that a timeout ends the renderer and
        // GPU processes with the browser.
        .process_group(0)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", chromium.display()));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > CHROMIUM_TIMEOUT {
            let _ = Command::new("kill").args(["-KILL", "--", &format!("-{}", child.id())]).status();
            let _ = child.wait();
            let stderr = std::fs::read_to_string(&stderr_path).unwrap_or_default();
            panic!("chromium ({name}) did not finish within {CHROMIUM_TIMEOUT:?}; stderr:\n{stderr}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let run = ChromiumRun {
        stdout: String::from_utf8_lossy(&std::fs::read(&stdout_path).unwrap()).into_owned(),
        stderr: String::from_utf8_lossy(&std::fs::read(&stderr_path).unwrap()).into_owned(),
    };
    assert!(status.success(), "chromium ({name}) failed: {status}; stderr:\n{}", run.stderr);
    run
}

/// Lines of Chromium's stderr that show a problem with the page.
///
/// Chromium logs every console message as `INFO:CONSOLE` whatever its level
/// (`console.log` and `console.error` alike), so the level cannot be told
/// from the log: the report has no scripts, and any console message at all
/// counts. Uncaught exceptions are console messages too. Failed loads
/// (`net::ERR_…`, "Failed to load resource") are not logged at `--v=0` by
/// recent versions; they are matched for the versions that do, and
/// [`external_references`] covers the rest.
fn page_errors(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|line| {
            line.contains(":CONSOLE")
                || line.contains("Uncaught")
                || line.contains("net::ERR_")
                || line.contains("Failed to load resource")
        })
        .collect()
}

/// Every URL in the document that the browser would load: `src`, `srcset`,
/// `poster`, `data`, `href` on anything but an in-page link, and `url(…)` or
/// `@import` in styles. A standalone report has none.
fn external_references(dom: &str) -> Vec<String> {
    let mut found = Vec::new();
    // Text is serialised with `<` escaped, so every `<` starts a tag, a
    // comment or a doctype, or sits in raw `<style>` text (CSS has no `<`).
    for tag in dom.split('<').skip(1) {
        let tag = tag.split('>').next().unwrap_or("");
        if tag.starts_with(['!', '/']) {
            continue;
        }
        for attribute in ["src", "srcset", "poster", "data", "href"] {
            for value in attribute_values(tag, attribute) {
                let in_page = attribute == "href" && (value.starts_with('#') || value.is_empty());
                if !in_page {
                    found.push(format!("{attribute}=\"{value}\" in <{tag}>"));
                }
            }
        }
    }
    for style in dom.split("<style").skip(1) {
        let css = style.split("</style>").next().unwrap_or("");
        for marker in ["url(", "@import"] {
            if css.contains(marker) {
                found.push(format!("`{marker}` in a style sheet"));
            }
        }
    }
    found
}

/// The values of `name="…"` in one tag's text (after the tag name).
fn attribute_values<'a>(tag: &'a str, name: &str) -> Vec<&'a str> {
    let needle = format!(" {name}=\"");
    let mut values = Vec::new();
    let mut rest = tag;
    while let Some(at) = rest.find(&needle) {
        let value = &rest[at + needle.len()..];
        let end = value.find('"').unwrap_or(value.len());
        values.push(&value[..end]);
        rest = &value[end..];
    }
    values
}

/// The text content of the element with `id="…"` (up to its first child tag).
fn text_of_id<'a>(dom: &'a str, id: &str) -> Option<&'a str> {
    let at = dom.find(&format!(" id=\"{id}\""))?;
    let after = &dom[at..];
    let text = &after[after.find('>')? + 1..];
    Some(&text[..text.find('<')?])
}

/// The `<section id="…">` element's inner HTML.
fn section<'a>(dom: &'a str, id: &str) -> &'a str {
    let open = format!("<section id=\"{id}\">");
    let start = dom.find(&open).unwrap_or_else(|| panic!("no <section id=\"{id}\"> in the DOM"));
    let inner = &dom[start + open.len()..];
    &inner[..inner.find("</section>").unwrap_or_else(|| panic!("<section id=\"{id}\"> is not closed"))]
}

/// Text as Chromium serialises it in a text node.
fn serialised_text(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('\u{a0}', "&nbsp;")
}

/// Width and height from a PNG's signature and `IHDR` chunk.
fn png_size(bytes: &[u8]) -> Result<(u32, u32), String> {
    const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
    if bytes.len() < 24 || !bytes.starts_with(SIGNATURE) {
        return Err("no PNG signature".into());
    }
    if &bytes[12..16] != b"IHDR" {
        return Err("the first chunk is not IHDR".into());
    }
    let width = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
    let height = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
    Ok((width, height))
}

/// The number of rows at the bottom of a PNG that are all `BACKGROUND`,
/// and its height.
fn background_rows_at_bottom(bytes: &[u8]) -> Result<(u32, u32), String> {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().map_err(|e| e.to_string())?;
    let mut pixels = vec![0; reader.output_buffer_size().ok_or("the image is too large")?];
    let frame = reader.next_frame(&mut pixels).map_err(|e| e.to_string())?;
    let channels = frame.color_type.samples();
    if channels < 3 {
        return Err(format!("a {:?} image, not colour", frame.color_type));
    }
    let row_is_background = |row: &[u8]| row.chunks(channels).all(|px| px[..3] == BACKGROUND);
    let rows: Vec<&[u8]> = pixels[..frame.buffer_size()].chunks(frame.line_size).collect();
    let background = rows.iter().rev().take_while(|row| row_is_background(row)).count();
    Ok((u32::try_from(background).unwrap_or(u32::MAX), frame.height))
}

/// The `target/` directory this test was built into.
fn target_dir() -> PathBuf {
    // target/<profile>/webcanon → target/
    let binary = Path::new(env!("CARGO_BIN_EXE_webcanon"));
    binary.parent().and_then(Path::parent).expect("the binary sits in target/<profile>/").to_path_buf()
}

#[test]
fn html_report_renders_in_chromium() {
    let Some(chromium) = chromium() else { return };

    let tmp = TempDir::new("html-report");
    let html = tmp.path("report.html");
    // Without `..` in it, the path the report shows as its target reads well.
    let site = std::fs::canonicalize(SITE).expect("the example site");
    // One run writes both reports, so the page is checked against the very
    // report it renders.
    let stdout = webcanon(&["audit", site.to_str().unwrap(), "--json", "--html", html.to_str().unwrap()]);
    let json: Value = serde_json::from_str(&stdout).expect("the JSON report");
    let score = json["score"].as_u64().expect("a score");
    let url = url::Url::from_file_path(&html).expect("an absolute path").to_string();

    // The screenshot.
    let png_path = tmp.path("report.png");
    let screenshot = run_chromium(
        &chromium,
        &tmp,
        "screenshot",
        &[format!("--screenshot={}", png_path.display()), format!("--window-size={WIDTH},{HEIGHT}")],
        &url,
    );
    let png = std::fs::read(&png_path)
        .unwrap_or_else(|e| panic!("no screenshot at {}: {e}; stderr:\n{}", png_path.display(), screenshot.stderr));
    let kept = target_dir().join("html-report");
    std::fs::create_dir_all(&kept).unwrap();
    std::fs::write(kept.join("report.png"), &png).unwrap();
    std::fs::copy(&html, kept.join("report.html")).unwrap();
    let _ = writeln!(std::io::stderr(), "html_report: screenshot kept at {}", kept.join("report.png").display());

    let (width, height) = png_size(&png).unwrap_or_else(|e| panic!("the screenshot is not a PNG: {e}"));
    assert_eq!(width, WIDTH, "screenshot width (height {height})");
    assert!(height > 0, "screenshot height");
    assert!(
        png.len() as u64 > MIN_SCREENSHOT_BYTES,
        "the screenshot is {} bytes, under {MIN_SCREENSHOT_BYTES}: a blank page?",
        png.len()
    );
    let errors = page_errors(&screenshot.stderr);
    assert!(errors.is_empty(), "chromium reported page errors while taking the screenshot:\n{}", errors.join("\n"));
    // The whole page is in the image: it ends in background, below the foot.
    let (background, rows) = background_rows_at_bottom(&png).unwrap_or_else(|e| panic!("undecodable PNG: {e}"));
    assert!(
        background >= MIN_BACKGROUND_ROWS && background < rows,
        "the screenshot ({rows} rows) ends in {background} background rows: the page is cut or blank"
    );
    let _ = writeln!(std::io::stderr(), "html_report: the page is {} px tall", rows - background);

    // Printing: the print style sheet lays the report out for paper.
    let pdf_path = tmp.path("report.pdf");
    let print = run_chromium(
        &chromium,
        &tmp,
        "print",
        &[format!("--print-to-pdf={}", pdf_path.display()), "--no-pdf-header-footer".to_string()],
        &url,
    );
    let pdf = std::fs::read(&pdf_path).unwrap_or_else(|e| panic!("no PDF: {e}; stderr:\n{}", print.stderr));
    assert!(pdf.starts_with(b"%PDF-") && pdf.len() > 10 * 1024, "a PDF of {} bytes", pdf.len());
    let errors = page_errors(&print.stderr);
    assert!(errors.is_empty(), "chromium reported page errors while printing:\n{}", errors.join("\n"));
    std::fs::write(kept.join("report.pdf"), &pdf).unwrap();

    // The DOM.
    let dump = run_chromium(&chromium, &tmp, "dump-dom", &["--dump-dom".to_string()], &url);
    let dom = dump.stdout.as_str();
    let errors = page_errors(&dump.stderr);
    assert!(errors.is_empty(), "chromium reported page errors while loading the report:\n{}", errors.join("\n"));
    let external = external_references(dom);
    assert!(external.is_empty(), "the report loads external resources:\n{}", external.join("\n"));

    let title = dom.split("<title>").nth(1).and_then(|t| t.split("</title>").next()).expect("a <title>");
    assert!(title.contains("webcanon audit"), "title: {title:?}");
    assert_eq!(text_of_id(dom, "score").map(str::trim), Some(score.to_string().as_str()), "the element #score");
    // When, by which version, for which agent (issue 16).
    let agent = json["agent"].as_str().expect("an agent");
    let signed = format!("by webcanon {} for agent <code>{agent}</code>", env!("CARGO_PKG_VERSION"));
    assert!(dom.contains(&signed), "the header says {signed:?}");
    assert!(dom.contains("Audited <time datetime=\""), "the header dates the report");

    let checks = json["checks"].as_array().expect("checks");
    assert!(!checks.is_empty(), "the example site's report has checks");
    let summary = section(dom, "summary");
    assert!(summary.contains("<table>"), "the summary is a table");
    let summary_rows = summary.split("<tbody>").nth(1).expect("a table body").matches("<tr>").count();
    assert_eq!(summary_rows, checks.len(), "one summary row per check");
    for check in checks {
        let title = serialised_text(check["title"].as_str().unwrap());
        assert!(summary.contains(&title), "the summary names the check {title:?}");
    }

    let matrix = &json["access_matrix"];
    let agents = matrix["agents"].as_array().expect("the JSON report has an access matrix");
    let access = section(dom, "access");
    assert!(access.contains("<table class=\"matrix\">"), "the access matrix is a table");
    let body = access.split("<tbody>").nth(1).expect("a table body");
    assert_eq!(body.matches("<tr>").count(), agents.len(), "one matrix row per agent");
    for agent in agents {
        let token = serialised_text(agent["token"].as_str().unwrap());
        assert!(body.contains(&format!("<td>{token}")), "the matrix has a row for {token}");
    }
    let cells = body.matches("<td class=\"yes\">").count() + body.matches("<td class=\"no\">").count();
    assert_eq!(cells, agents.len() * matrix["paths"].as_array().unwrap().len(), "one cell per agent and path");
    // Agents whose operator publishes a Web Bot Auth key directory (GPTBot is
    // always shown) name it; the others have none.
    let published = agents.iter().filter(|a| a["key_directory"].is_string()).count();
    assert!(published > 0, "GPTBot's operator publishes a key directory");
    assert_eq!(body.matches("<td class=\"keys\" title=\"https://").count(), published, "one per published directory");
    assert_eq!(body.matches("<td class=\"keys\">—</td>").count(), agents.len() - published);
}

// The detectors above must catch what they look for; these lines are what
// Chromium 156 wrote for a page with `console.error` and an uncaught error.

#[test]
fn page_errors_are_found_in_chromium_logs() {
    let stderr = "\
/usr/bin/chromium: 9: [: 25276502016: unexpected operator
[20870:20903:1123/123609.747131:ERROR:dbus/bus.cc:405] Failed to connect to the bus: Failed to connect to socket /run/dbus/system_bus_socket: No such file or directory
[21577:21577:1123/123615.957831:WARNING:media/gpu/vaapi/vaapi_wrapper.cc:1655] drmGetDevices2() has not found any devices
[21522:21522:1123/123616.746567:INFO:CONSOLE:2] \"an error line\", source: file:///tmp/wc/bad.html (2)
[21522:21522:1123/123616.749110:INFO:CONSOLE:2] \"Uncaught ReferenceError: f is not defined\", source: file:///tmp/wc/bad.html (2)
[1:1:0101/000000.000000:INFO:CONSOLE(7)] \"Failed to load resource: net::ERR_FILE_NOT_FOUND\", source: file:///tmp/x.css (0)
";
    let errors = page_errors(stderr);
    assert_eq!(errors.len(), 3, "{errors:#?}");
    assert!(errors.iter().all(|line| line.contains("CONSOLE")));
    assert!(page_errors("[1:1:0101/000000.000000:ERROR:dbus/bus.cc:405] Failed to connect to the bus\n").is_empty());
}

#[test]
fn external_references_are_found() {
    let dom = r##"<!DOCTYPE html><html><head><style>body{background:url(x.png)}</style>
<link rel="stylesheet" href="a.css"></head><body><a href="#check-x">in page</a>
<p>text with href="not-a-tag.css" &lt;img src="no"&gt;</p><img alt="" src="b.png"><script src="c.js"></script></body></html>"##;
    let found = external_references(dom);
    assert_eq!(found.len(), 4, "{found:#?}");
    assert!(found[0].starts_with("href=\"a.css\""));
    assert!(found[1].starts_with("src=\"b.png\""));
    assert!(found[2].starts_with("src=\"c.js\""));
    assert_eq!(found[3], "`url(` in a style sheet");
    assert!(external_references(r##"<html><body><a href="#top">top</a></body></html>"##).is_empty());
}

#[test]
fn png_headers_are_read() {
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    png.extend_from_slice(&1280u32.to_be_bytes());
    png.extend_from_slice(&2000u32.to_be_bytes());
    assert_eq!(png_size(&png), Ok((1280, 2000)));
    assert!(png_size(b"GIF89a......................").is_err());
    assert!(png_size(&png[..20]).is_err());
}

#[test]
fn element_text_and_sections_are_read() {
    let dom = r#"<svg><text x="55" y="66" id="score">94</text></svg><section id="summary"><h2>Summary</h2></section>"#;
    assert_eq!(text_of_id(dom, "score"), Some("94"));
    assert_eq!(text_of_id(dom, "missing"), None);
    assert_eq!(section(dom, "summary"), "<h2>Summary</h2>");
}
