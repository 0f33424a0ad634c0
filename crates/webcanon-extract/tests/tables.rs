//! Tables on real pages of the development set (`shared/corpus/
//! extraction`): a page laid out in tables comes back as its content cell,
//! without the cells around it and never as a pipe table; a data table
//! comes back as a pipe table, row by row. Fixtures for each rule are the
//! unit tests of `html::tables` and `html::table_markdown`; here are the
//! outcomes on pages as served, and the cost of hostile spans.

use std::io::Read;
use std::time::{Duration, Instant};

use url::Url;
use webcanon_extract::charset;
use webcanon_extract::html::{self, HtmlLimits, Method};

const PAGES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/extraction/pages");

/// The Markdown of a development-set page, converted as `webcanon fetch`
/// converts it (the clock cap raised for an unoptimised build).
fn converted(key: &str, url: &str) -> String {
    let path = format!("{PAGES}/{key}.html.gz");
    let mut body = Vec::new();
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    flate2::read::GzDecoder::new(file).read_to_end(&mut body).expect("a gzip page");
    let url = Url::parse(url).expect("a page URL");
    let text = charset::decode(&body, Some("text/html"), Some(&url)).text;
    let limits = HtmlLimits { time_limit: Duration::from_secs(120), ..HtmlLimits::default() };
    html::extract(&text, &url, &limits).markdown
}

fn has_pipe_table(markdown: &str) -> bool {
    markdown.lines().any(|line| line.starts_with("| --- |"))
}

#[test]
fn a_page_laid_out_in_tables_comes_back_as_its_content_cell() {
    // A travel guide: a spacer and masthead table of images above the
    // text, hotel links in a side cell.
    let page = converted("c6acfaf959970ee2", "http://www.singapur-reiseinfo.de/Reise-ABC/reise-abc.html");
    assert!(page.contains("Einfuhrverbot: Waffen. Munition"), "{page}");
    assert!(!page.contains("Die folgenden Hotel Links"), "{page}");
    assert!(!has_pipe_table(&page), "{page}");

    // A word of the day: the site's slogan in a masthead cell.
    let page = converted("7121026868103816", "https://wordsmith.org/words/maudlin.html");
    assert!(page.contains("derived after a town on the Sea of Galilee"), "{page}");
    assert!(!page.contains("spread the magic of words to readers everywhere"), "{page}");
    assert!(!has_pipe_table(&page), "{page}");
}

#[test]
fn data_tables_come_back_as_pipe_tables() {
    // A comparison with an empty top-left header cell and empty cells in
    // the body: the columns stay aligned.
    let page = converted("add6c080b26c929d", "https://www.comparis.ch/leasing/info/autofinanzierung");
    assert!(
        page.contains("| | Leasing 4.9% | Kredit 7.9% |\n| --- | --- | --- |\n| Kaufpreis Auto | 30'000 | 30'000 |"),
        "{page}"
    );
    assert!(page.contains("| Total Differenz (Ersparnis beim Leasing) | | **72** |"), "{page}");

    // Results lists without header cells: the first row is the header.
    let page = converted(
        "e2a367e9aeb06936",
        "https://blog.leichtathletik-ostalbkreis.de/2007/05/20/ergebnisse-rm-schuelerinnen-a-aalen-unterkochen-1952007/",
    );
    assert!(
        page.contains("| 1. | | Effert, Sarah-Lea | 1993 | | WÜ | LG Staufen | 13,04 | | sec. | q | |\n| --- |"),
        "{page}"
    );
    assert!(
        page.contains("| 2. | | Pitan, Ramona | 1993 | | WÜ | DJK Ellwangen-SG Virngrund | 13,24 | | sec. | q | |"),
        "{page}"
    );
}

#[test]
fn a_data_table_keeps_its_grid_through_the_whole_conversion() {
    let page = "<html><head><title>Results</title></head><body><article><h1>Results</h1>\
        <p>The season's results are in, with every team's points and the table of the league below, as \
        the committee published them after the last match day of the spring.</p>\
        <table><caption>Spring league</caption>\
        <thead><tr><th rowspan=2>Team</th><th colspan=2>Points</th></tr><tr><th>Home</th><th>Away</th></tr></thead>\
        <tbody><tr><td>North | East</td><td>12</td><td>9<br>(2 forfeits)</td></tr>\
        <tr><td>South</td><td colspan=2>unplayed</td></tr></tbody></table>\
        <p>The committee meets again in the autumn to settle the calendar of the next season and its rules.</p>\
        </article></body></html>";
    let converted = html::extract(page, &Url::parse("https://x.test/").unwrap(), &HtmlLimits::default());
    assert_eq!(converted.method, Method::Article);
    assert!(
        converted.markdown.contains(
            "Spring league\n\n\
             | Team | Points | |\n\
             | --- | --- | --- |\n\
             | | Home | Away |\n\
             | North \\| East | 12 | 9 (2 forfeits) |\n\
             | South | unplayed | |"
        ),
        "{}",
        converted.markdown
    );
}

/// Spans of ten thousand rows and columns, on every cell of a large table
/// (data-looking and layout-looking): read with the browsers' caps, the
/// grid is refused as data (rule 6) and the table's cells cost one step
/// each; the Markdown stays proportional to the page.
#[test]
fn huge_spans_cost_linear_time() {
    for header in ["th", "td"] {
        let rows: String = (0..3_000)
            .map(|i| format!("<tr><{header} colspan=10000 rowspan=10000>r{i}</{header}><td colspan=10000>x</td></tr>"))
            .collect();
        let page = format!("<html><body><table>{rows}</table></body></html>");
        let started = Instant::now();
        let converted = html::extract(&page, &Url::parse("https://x.test/").unwrap(), &HtmlLimits::default());
        let elapsed = started.elapsed();
        assert!(converted.over_limit.is_none(), "{:?}", converted.over_limit);
        assert!(elapsed < Duration::from_secs(10), "{header}: {elapsed:?}");
        assert!(converted.markdown.len() < page.len(), "{header}: {} bytes", converted.markdown.len());
        assert!(converted.markdown.contains("r2999"), "{header}");
    }
}

/// Tables nested as deep as the depth cap allows, and thousands of small
/// data tables side by side: the reading is one walk and each table one
/// step, whatever the nesting.
#[test]
fn nested_and_numerous_tables_cost_linear_time() {
    let nested = format!(
        "<html><body>{}<p>the innermost cell</p>{}</body></html>",
        "<table><tr><td>".repeat(120),
        "</td></tr></table>".repeat(120)
    );
    let grid = "<table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table>";
    let numerous = format!("<html><body>{}</body></html>", grid.repeat(4_000));
    for (name, page) in [("nested", nested), ("numerous", numerous)] {
        let started = Instant::now();
        let converted = html::extract(&page, &Url::parse("https://x.test/").unwrap(), &HtmlLimits::default());
        let elapsed = started.elapsed();
        assert!(converted.over_limit.is_none(), "{name}: {:?}", converted.over_limit);
        assert!(elapsed < Duration::from_secs(10), "{name}: {elapsed:?}");
        assert!(!converted.markdown.is_empty(), "{name}");
    }
}
