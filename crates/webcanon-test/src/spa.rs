//! A single-page application: an HTML shell whose text arrives only when
//! its script runs, fetches a JSON document and writes it into the page.
//! Fetched as HTML, the page says "Loading…"; rendered in a browser, it
//! holds the title and every paragraph.

use crate::{Route, TestServer};

/// The shell at `/`: a title, an `#app` element saying "Loading…", and the
/// script that replaces it.
const SHELL: &str = r#"<!doctype html><html><head><title>Application</title></head>
<body><div id="app">Loading…</div>
<script src="/app.js"></script></body></html>"#;

/// `/app.js`: fetches `/data.json` and writes its title and paragraphs as an
/// article into `#app`.
const SCRIPT: &str = r#"
fetch("/data.json").then(r => r.json()).then(data => {
  const app = document.getElementById("app");
  app.innerHTML = "<article><h1>" + data.title + "</h1>" + data.paragraphs.map(p => "<p>" + p + "</p>").join("") + "</article>";
});
"#;

/// Serves the application on `server`: an allow-all `/robots.txt`, the
/// shell at `/`, its script at `/app.js` and, at `/data.json`, `title` and
/// `paragraphs`, the only place their text appears. Rendering the shell
/// makes two requests (the script and the JSON).
pub fn serve_single_page_app(server: &TestServer, title: &str, paragraphs: &[String]) {
    let data = serde_json::json!({ "title": title, "paragraphs": paragraphs }).to_string();
    server
        .route("/robots.txt", Route::text(200, "User-agent: *\nAllow: /\n"))
        .route("/", Route::html(200, SHELL))
        .route("/app.js", Route::bytes(200, "text/javascript", SCRIPT.as_bytes().to_vec()))
        .route("/data.json", Route::bytes(200, "application/json", data.into_bytes()));
}
