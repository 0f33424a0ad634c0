//! Pages built to stall or bloat an HTML converter: each is converted (or
//! read as text, with the reason) in linear time and bounded memory.
//!
//! Time bounds are loose (debug builds on a loaded machine; the release
//! figures are in benches/README.md); the quadratic behaviour they guard
//! against took minutes on these inputs. Memory is measured for real: each
//! conversion runs in a child process (this test binary, re-run with one
//! case named) whose peak resident size is read from /proc.

use std::process::Command;
use std::time::{Duration, Instant};

use url::Url;
use webcanon_extract::html::{self, HtmlLimits, Method, OverLimit, decode_entities};
use webcanon_test::memory::peak_kib;

const MIB: usize = 1 << 20;

fn page(body: &str) -> String {
    format!("<!doctype html><html><head><title>Hostile</title></head><body>{body}</body></html>")
}

/// A hostile document, built on demand.
type Build = fn() -> String;

/// (name, document, how it must be read)
fn hostile() -> Vec<(&'static str, Build, Option<OverLimit>)> {
    vec![
        ("self-closed divs", || page(&format!("{}text", "<div/>".repeat(49_000))), Some(OverLimit::Depth)),
        ("stray end tags", || page(&format!("{}text", "<div></b>".repeat(40_000))), Some(OverLimit::Depth)),
        (
            "ampersand title",
            || format!("<html><head><title>{}</title></head><body>x</body></html>", "&".repeat(500_000)),
            Some(OverLimit::Ampersands),
        ),
        ("ampersand page", || page(&format!("<p>{}</p>", "&".repeat(1_000_000))), Some(OverLimit::Ampersands)),
        ("ampersands among text", || page(&format!("<p>{}</p>", "a&".repeat(100_000))), Some(OverLimit::Ampersands)),
        ("NUL bytes", || "\0".repeat(10 * MIB), Some(OverLimit::ControlBytes)),
        ("less-than signs", || "<".repeat(10 * MIB), Some(OverLimit::Size)),
        (
            "many attributes",
            || page(&format!("<div{}>text</div>", (0..200_000).map(|i| format!(" a{i}=x")).collect::<String>())),
            Some(OverLimit::Attributes),
        ),
        ("deep inline formatting", || page(&format!("{}text", "<b><i>".repeat(30_000))), Some(OverLimit::Depth)),
        ("unclosed anchors", || page(&"<a href=/x>link ".repeat(40_000)), Some(OverLimit::Depth)),
        (
            "an ordinary page over the size cap",
            || page(&"<section><h2>Part</h2><p>Words of an article, &amp; more.</p></section>".repeat(80_000)),
            Some(OverLimit::Size),
        ),
        (
            "noscripts in the head, cut before the tree is built",
            || {
                format!(
                    "<html><head>{}</head><body><p>Text.</p></body></html>",
                    "<noscript><link rel=x href=/x></noscript>".repeat(24_000)
                )
            },
            None,
        ),
        (
            "rows beside one headline, a blurb at the end (the headline block)",
            || {
                let rows = "<div class=row><div>Label</div><div>A value of a few words</div></div>".repeat(7_500);
                page(&format!("<div><h1>A product</h1>{rows}</div><footer><p>{}</p></footer>", "A blurb. ".repeat(30)))
            },
            None,
        ),
        (
            "a short post beside an archive of links (the short post over link lists)",
            || {
                let archive = "<li><a href=/m>A month</a></li>".repeat(10_000);
                page(&format!("<div class=post><p>Three short lines.</p></div><ul>{archive}</ul>"))
            },
            None,
        ),
        (
            "cut teasers",
            || page(&"<p>The opening words of another story… <a href=/s>more</a></p>".repeat(10_000)),
            None,
        ),
        (
            "forms holding prose inside the article",
            || {
                let form = format!("<form><select></select><p>{}</p></form>", "Words of a description. ".repeat(12));
                page(&format!("<article><h1>T</h1>{}</article>", form.repeat(5_000)))
            },
            None,
        ),
        (
            "false end tags inside a script (the raw-text end search)",
            || page(&format!("<script>{}</script><p>Text.</p>", "a = '</scripts>';".repeat(200_000))),
            None,
        ),
        (
            "scripts past the number cut before the tree",
            || page(&format!("{}<p>Text.</p>", "<script>x()</script>".repeat(45_000))),
            None,
        ),
        (
            "an escaped script, left to the tokenizer",
            || page(&format!("<script><!--{}</script><p>Text.</p>", "if (a<b) c--;".repeat(100_000))),
            None,
        ),
        (
            "an ordinary page just within the caps",
            || {
                page(
                    &format!("<div><p>{}</p><a href=/x>link</a></div>", "Words of an ordinary paragraph. ".repeat(7))
                        .repeat(15_000),
                )
            },
            None,
        ),
    ]
}

fn base() -> Url {
    Url::parse("https://example.com/a/").unwrap()
}

#[test]
fn hostile_pages_convert_in_linear_time_with_the_reason() {
    for (what, build, expected) in hostile() {
        let html = build();
        let started = Instant::now();
        let converted = html::extract(&html, &base(), &HtmlLimits::default());
        let took = started.elapsed();
        eprintln!("{what}: {took:?}");
        assert!(took < Duration::from_secs(20), "{what}: {took:?}");
        assert_eq!(converted.over_limit, expected, "{what}");
        assert_eq!(converted.method == Method::TextOnly, expected.is_some(), "{what}");
    }
}

#[test]
fn an_svg_with_self_closing_shapes_is_not_deep() {
    let shapes = "<path d='M0 0'/>".repeat(2_000);
    let html = page(&format!("<article><p>{}</p><svg>{shapes}</svg></article>", "Words of an article. ".repeat(30)));
    let converted = html::extract(&html, &base(), &HtmlLimits::default());
    assert!(converted.depth < 10, "depth {}", converted.depth);
    assert_eq!(converted.over_limit, None);
}

#[test]
fn entity_decoding_is_linear() {
    for text in ["&".repeat(2_000_000), "&#".repeat(1_000_000), "&amp".repeat(500_000)] {
        let started = Instant::now();
        let decoded = decode_entities(&text);
        assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
        assert_eq!(decoded.len(), text.len());
    }
    assert_eq!(decode_entities("a &amp; b &lt;&#x41;&#66; &unknown; &"), "a & b <AB &unknown; &");
}

/// The child side of the memory test: converts one named case and prints
/// its peak resident size.
#[test]
fn memory_child() {
    let Ok(name) = std::env::var("WEBCANON_HOSTILE_CASE") else { return };
    let (_, build, _) = hostile().into_iter().find(|(what, _, _)| *what == name).expect("a known case");
    let html = build();
    // The peak so far includes building the page; reset it where the kernel
    // allows, so the conversion's own peak is what is measured.
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let before = peak_kib();
    let converted = html::extract(&html, &base(), &HtmlLimits::default());
    std::hint::black_box(&converted);
    println!("PEAK {} {} {}", before, peak_kib(), html.len());
}

/// One document's processing stays within a small multiple of its size
/// (see `HtmlLimits`): the peak grows by at most 32 times the document plus
/// 64 MiB, whatever the document holds; a 10 MiB page of NUL bytes took
/// 2.5 GiB before the caps.
#[test]
fn hostile_pages_convert_in_bounded_memory() {
    let exe = std::env::current_exe().unwrap();
    for (what, _, _) in hostile() {
        let out = Command::new(&exe)
            .args(["--exact", "memory_child", "--nocapture", "--test-threads", "1"])
            .env("WEBCANON_HOSTILE_CASE", what)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let line = stdout.split("PEAK ").nth(1).unwrap_or_else(|| panic!("{what}: {stdout}"));
        let numbers: Vec<usize> = line.split_whitespace().take(3).map(|n| n.parse().unwrap()).collect();
        let (before, after, size) = (numbers[0], numbers[1], numbers[2]);
        let grown = after.saturating_sub(before) * 1024;
        eprintln!("{what}: peak grew by {} KiB for a {} KiB page", grown >> 10, size >> 10);
        assert!(
            grown <= 32 * size + 64 * MIB,
            "{what}: peak grew by {} MiB for a {} MiB page",
            grown >> 20,
            size >> 20
        );
    }
}
