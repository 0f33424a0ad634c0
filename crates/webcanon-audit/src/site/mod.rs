//! Where an audit reads a site from: a live origin (through the client, so
//! the SSRF guard and robots.txt apply) or a folder holding a site's build
//! output. Every resource is read once per audit, whatever the number of
//! checks that look at it.

mod locate;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tokio::sync::OnceCell;
use url::Url;
use webcanon_client::Client;
use webcanon_client::error::Error;
use webcanon_core::policy::RobotsAvailability;

pub(crate) use self::locate::{FOLDER_BASE, ReadEvidence, path_and_query};

/// The largest body an audit reads for one resource (sitemaps may be 50 MB).
pub const MAX_RESOURCE_BYTES: usize = webcanon_core::sitemap::MAX_BYTES + 1;

/// What an audit looks at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A live origin, `https://example.com`.
    Origin(Url),
    /// A folder holding a site's build output (`public/`, `dist/`).
    Folder(PathBuf),
}

impl Target {
    /// Reads `input` as an http(s) URL, else as a folder path.
    pub fn parse(input: &str) -> Result<Target, String> {
        if input.starts_with("http://") || input.starts_with("https://") {
            let url = Url::parse(input).map_err(|e| format!("invalid URL `{input}`: {e}"))?;
            if url.host().is_none() {
                return Err(format!("invalid URL `{input}`: no host"));
            }
            return Ok(Target::Origin(url));
        }
        let path = PathBuf::from(input);
        if path.is_dir() {
            Ok(Target::Folder(path))
        } else if input.contains("://") {
            Err(format!("`{input}` is neither an http(s) URL nor a folder"))
        } else {
            Err(format!("`{input}` is not a folder (give a site's build folder or an http(s) origin)"))
        }
    }

    /// How the target is shown in reports: the origin, or the folder path.
    pub fn display(&self) -> String {
        match self {
            Target::Origin(url) => url.origin().ascii_serialization(),
            Target::Folder(path) => path.display().to_string(),
        }
    }
}

/// Why a resource could not be read.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ReadError {
    /// robots.txt disallows the resource for the audit's agent.
    Robots {
        /// The refusal, with the matched rule.
        message: String,
    },
    /// The SSRF guard refused the address.
    Ssrf {
        /// The refusal.
        message: String,
    },
    /// Network failure, timeout, too many redirects, unreadable file.
    Fetch {
        /// What failed.
        message: String,
    },
}

impl ReadError {
    /// The message, whatever the kind.
    pub fn message(&self) -> &str {
        match self {
            ReadError::Robots { message } | ReadError::Ssrf { message } | ReadError::Fetch { message } => message,
        }
    }
}

impl From<Error> for ReadError {
    fn from(err: Error) -> ReadError {
        let message = err.to_string();
        match err {
            Error::Policy(_) => ReadError::Robots { message },
            Error::Ssrf(_) => ReadError::Ssrf { message },
            _ => ReadError::Fetch { message },
        }
    }
}

/// Why an origin cannot be audited: a score of its unreadable resources
/// would only repeat that nothing answered.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuditError {
    /// The SSRF guard refused the origin (a private or local address, a
    /// local host name).
    Refused {
        /// The origin.
        origin: String,
        /// The guard's refusal.
        message: String,
    },
    /// The origin gave no HTTP answer to its robots.txt: the name does not
    /// resolve, the connection is refused or reset, TLS fails, or the
    /// request timed out.
    Unreachable {
        /// The origin.
        origin: String,
        /// What failed.
        message: String,
    },
}

impl AuditError {
    /// The stable error kind (`ssrf` or `fetch`), as the CLI's JSON errors
    /// name it.
    pub fn kind(&self) -> &'static str {
        match self {
            AuditError::Refused { .. } => "ssrf",
            AuditError::Unreachable { .. } => "fetch",
        }
    }

    /// The origin that could not be audited.
    pub fn origin(&self) -> &str {
        match self {
            AuditError::Refused { origin, .. } | AuditError::Unreachable { origin, .. } => origin,
        }
    }
}

impl std::fmt::Display for AuditError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AuditError::Refused { origin, message } => write!(f, "cannot audit {origin}: {message}"),
            AuditError::Unreachable { origin, message } => {
                write!(f, "cannot audit {origin}: it does not answer ({message})")
            }
        }
    }
}

impl std::error::Error for AuditError {}

/// One resource as read: an answer (any status) or why there is none.
#[derive(Debug, Clone)]
pub struct Resource {
    /// The URL (or for a folder, `/path`) asked for.
    pub url: String,
    /// Where it ended after redirects.
    pub final_url: String,
    /// The HTTP status (200 or 404 for a folder).
    pub status: Option<u16>,
    /// Redirects followed, as (URL, status).
    pub redirects: Vec<(String, u16)>,
    /// The media type, lower-cased, without parameters.
    pub media_type: Option<String>,
    /// Response headers that checks look at (lower-case names).
    pub headers: Vec<(String, String)>,
    /// The body (empty when there is none).
    pub body: Vec<u8>,
    /// Why there is no answer.
    pub error: Option<ReadError>,
}

impl Resource {
    /// Whether the answer is 2xx.
    pub fn is_success(&self) -> bool {
        self.status.is_some_and(|s| (200..300).contains(&s))
    }

    /// A header's first value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The body as text (UTF-8, invalid bytes replaced).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// Whether the resource was read from a folder, where no HTTP request
    /// is made (its `url` is then the `/path` asked for).
    pub fn in_folder(&self) -> bool {
        self.url.starts_with('/')
    }

    /// A one-line account of the outcome: `HTTP 200`, `HTTP 404`, or the
    /// error; for a folder, `in the folder` or `missing from the folder`.
    pub fn outcome(&self) -> String {
        match (&self.error, self.status) {
            (Some(err), _) => err.message().to_string(),
            (None, Some(status)) if self.in_folder() => folder_outcome(status).to_string(),
            (None, Some(status)) => format!("HTTP {status}"),
            (None, None) => "no answer".into(),
        }
    }

    /// The outcome as what the resource did, to follow its name:
    /// `answered HTTP 404`, `could not be read: …`, or for a folder `is
    /// missing from the folder`.
    pub fn answered(&self) -> String {
        match (&self.error, self.status) {
            (Some(err), _) => format!("could not be read: {}", err.message()),
            (None, Some(status)) if self.in_folder() => format!("is {}", folder_outcome(status)),
            (None, Some(status)) => format!("answered HTTP {status}"),
            (None, None) => "gave no answer".into(),
        }
    }
}

/// A folder's file is there (200) or not (404): no HTTP status was sent.
fn folder_outcome(status: u16) -> &'static str {
    if (200..300).contains(&status) { "in the folder" } else { "missing from the folder" }
}

/// Headers kept on resources: the ones the checks read.
const KEPT_HEADERS: &[&str] =
    &["content-type", "x-robots-tag", "tdm-reservation", "tdm-policy", "content-usage", "content-signal", "link"];

/// A site being audited, with the resources read so far.
#[derive(Debug)]
pub struct Site {
    target: Target,
    /// For a folder, the origin it is published at: absolute URLs on it are
    /// read from the folder.
    published_at: Option<Url>,
    client: Option<Client>,
    read: Mutex<HashMap<String, Arc<OnceCell<Arc<Resource>>>>>,
    requests: Arc<std::sync::atomic::AtomicUsize>,
}

impl Site {
    /// A live origin read through `client`.
    pub fn origin(url: Url, client: Client) -> Site {
        Site::new(Target::Origin(url), Some(client))
    }

    /// A folder on disk. The origin it is published at is taken from the
    /// first `Sitemap:` line of its robots.txt, if any (see
    /// [`Site::published_at`]), so that absolute links to the site's own
    /// pages are read from the folder.
    pub fn folder(path: impl Into<PathBuf>) -> Site {
        let path = path.into();
        let published_at = read_regular_file(&path.join("robots.txt")).ok().and_then(|body| {
            let robots = webcanon_core::robots::Robots::parse(&body);
            let first = robots.sitemaps().next().and_then(|s| Url::parse(s).ok());
            first.filter(webcanon_client::web_url::is_web_url).map(|u| origin_of(&u))
        });
        let mut site = Site::new(Target::Folder(path), None);
        site.published_at = published_at;
        site
    }

    /// Sets the origin a folder is published at (`https://example.com`):
    /// absolute URLs on that origin are read from the folder.
    pub fn published_at(mut self, origin: Url) -> Site {
        self.published_at = Some(origin_of(&origin));
        self
    }

    /// For a folder, the origin it is published at, when known.
    pub fn published_origin(&self) -> Option<&Url> {
        self.published_at.as_ref()
    }

    fn new(target: Target, client: Option<Client>) -> Site {
        Site { target, published_at: None, client, read: Mutex::new(HashMap::new()), requests: Default::default() }
    }

    /// Whether the site can be audited: always for a folder; for an origin,
    /// unless the SSRF guard refuses it or its robots.txt gets no HTTP
    /// answer at all (a robots.txt that answers with any status, or
    /// redirects elsewhere, is the audit's to judge). robots.txt is read
    /// here once and kept for the checks.
    pub async fn reachable(&self) -> Result<(), AuditError> {
        let Target::Origin(origin) = &self.target else {
            return Ok(());
        };
        let origin = origin.origin().ascii_serialization();
        let robots = self.get("/robots.txt").await;
        match &robots.error {
            Some(ReadError::Ssrf { message }) => Err(AuditError::Refused { origin, message: message.clone() }),
            Some(ReadError::Fetch { message }) if robots.status.is_none() && robots.redirects.is_empty() => {
                Err(AuditError::Unreachable { origin, message: message.clone() })
            }
            _ => Ok(()),
        }
    }

    /// What is audited.
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// The client, for an origin.
    pub fn client(&self) -> Option<&Client> {
        self.client.as_ref()
    }

    /// Whether the site is a live origin.
    pub fn is_origin(&self) -> bool {
        matches!(self.target, Target::Origin(_))
    }

    /// How many resources were actually read (requests made, files opened).
    pub fn reads(&self) -> usize {
        self.requests.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// A counter of the resources read so far, that stays readable while
    /// [`audit`](crate::audit) owns the site: for progress displays.
    pub fn read_counter(&self) -> Arc<std::sync::atomic::AtomicUsize> {
        Arc::clone(&self.requests)
    }

    /// The absolute URL of `path` on the site (for a folder, a `file:`-less
    /// `/path`).
    pub fn url_of(&self, path: &str) -> String {
        match &self.target {
            Target::Origin(origin) => origin.join(path).map(|u| u.to_string()).unwrap_or_else(|_| path.to_string()),
            Target::Folder(_) => path.to_string(),
        }
    }

    /// Reads `path` (`/robots.txt`) of the site, once per audit.
    pub async fn get(&self, path: &str) -> Arc<Resource> {
        let key = self.url_of(path);
        self.get_key(key).await
    }

    /// Reads an absolute URL (another host, a link target), once per
    /// audit. For a folder, site paths and URLs on the origin it is
    /// published at are read from the folder; others are not read.
    pub async fn get_url(&self, url: &str) -> Arc<Resource> {
        if let (Target::Folder(_), Some(origin), Ok(parsed)) = (&self.target, &self.published_at, Url::parse(url))
            && origin_of(&parsed) == *origin
        {
            let mut path = parsed.path().to_string();
            if let Some(query) = parsed.query() {
                path = format!("{path}?{query}");
            }
            return self.get_key(path).await;
        }
        self.get_key(url.to_string()).await
    }

    async fn get_key(&self, key: String) -> Arc<Resource> {
        let cell = {
            let mut read = self.read.lock().unwrap_or_else(|p| p.into_inner());
            read.entry(key.clone()).or_default().clone()
        };
        cell.get_or_init(|| async {
            self.requests.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Arc::new(self.load(&key).await)
        })
        .await
        .clone()
    }

    async fn load(&self, key: &str) -> Resource {
        match (&self.target, &self.client) {
            (Target::Origin(_), Some(client)) => load_url(client, key).await,
            (Target::Folder(root), _) => load_file(root, key),
            (Target::Origin(_), None) => unreadable(key, "no client to read the origin with".into()),
        }
    }
}

/// The origin of a URL, as a URL with the path `/`.
fn origin_of(url: &Url) -> Url {
    let mut origin = url.clone();
    origin.set_path("/");
    origin.set_query(None);
    origin.set_fragment(None);
    let _ = origin.set_username("");
    let _ = origin.set_password(None);
    origin
}

fn unreadable(key: &str, message: String) -> Resource {
    Resource {
        url: key.to_string(),
        final_url: key.to_string(),
        status: None,
        redirects: Vec::new(),
        media_type: None,
        headers: Vec::new(),
        body: Vec::new(),
        error: Some(ReadError::Fetch { message }),
    }
}

/// Whether `url` is an origin's `/robots.txt`.
fn is_robots_url(url: &str) -> bool {
    Url::parse(url).is_ok_and(|u| u.path() == "/robots.txt" && u.query().is_none())
}

/// Reads a robots.txt through the client's robots cache, so that the file
/// the audit reports on is the one every later request was admitted by, and
/// it is requested once.
async fn load_robots(client: &Client, url: &str) -> Resource {
    let cached = match client.robots_txt(url).await {
        Ok(cached) => cached,
        Err(err) => return Resource { error: Some(err.into()), ..unreadable(url, String::new()) },
    };
    let record = cached.record();
    let error = match (record.availability, record.status) {
        (RobotsAvailability::Unreachable, None) | (RobotsAvailability::Unavailable, None) => {
            Some(ReadError::Fetch { message: record.error.clone().unwrap_or_else(|| "no answer".into()) })
        }
        _ => None,
    };
    let body = record.body.clone().unwrap_or_default();
    Resource {
        url: url.to_string(),
        final_url: cached.final_url().to_string(),
        status: record.status,
        redirects: cached.redirects().to_vec(),
        media_type: None,
        headers: Vec::new(),
        body,
        error,
    }
}

async fn load_url(client: &Client, url: &str) -> Resource {
    if is_robots_url(url) {
        return load_robots(client, url).await;
    }
    let accept = "text/html;q=0.9, text/markdown, text/plain;q=0.9, application/xml;q=0.9, */*;q=0.5";
    match client.get(url, accept, MAX_RESOURCE_BYTES).await {
        Ok(response) => Resource {
            url: url.to_string(),
            final_url: response.final_url.clone(),
            status: Some(response.status),
            redirects: response.redirects.iter().map(|h| (h.url.clone(), h.status)).collect(),
            media_type: response.media_type(),
            headers: KEPT_HEADERS
                .iter()
                .flat_map(|name| response.header_all(name).map(move |v| (name.to_string(), v.to_string())))
                .collect(),
            body: response.body,
            error: None,
        },
        Err(err) => Resource { error: Some(err.into()), ..unreadable(url, String::new()) },
    }
}

/// Reads `/path` from `root`: a directory path serves its `index.html`, a
/// path without an extension its `.html` file when there is no such file;
/// a path that leaves the folder or is absent answers 404.
fn load_file(root: &Path, key: &str) -> Resource {
    let not_found = || Resource { status: Some(404), error: None, ..unreadable(key, String::new()) };
    if !key.starts_with('/') {
        return unreadable(key, "a URL on another host cannot be read from a folder".into());
    }
    let path = key.split(['?', '#']).next().unwrap_or(key);
    let relative = path.trim_start_matches('/');
    if relative.split('/').any(|part| part == "..") {
        return not_found();
    }
    let mut file = root.join(relative);
    if path.ends_with('/') || file.is_dir() {
        file = file.join("index.html");
    }
    // Static hosts serve `/page` from `page.html` ("pretty URLs").
    if !file.exists() && file.extension().is_none() {
        file.set_extension("html");
    }
    match read_regular_file(&file) {
        Ok(body) => Resource {
            url: key.to_string(),
            final_url: key.to_string(),
            status: Some(200),
            redirects: Vec::new(),
            media_type: Some(media_type_of(&file).to_string()),
            headers: Vec::new(),
            body,
            error: None,
        },
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => not_found(),
        Err(err) => unreadable(key, format!("cannot read {}: {err}", file.display())),
    }
}

/// The bytes of the regular file at `path` (symbolic links followed), at
/// most [`MAX_RESOURCE_BYTES`] of them, as a web server would cap an
/// answer. A FIFO, device or socket is refused before it is opened (a
/// FIFO would block the audit, `/dev/zero` never ends).
fn read_regular_file(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let kind = std::fs::metadata(path)?.file_type();
    if !kind.is_file() {
        let what = if kind.is_dir() { "a folder" } else { "not a regular file (a FIFO, device or socket)" };
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, what));
    }
    let mut body = Vec::new();
    std::fs::File::open(path)?.take(MAX_RESOURCE_BYTES as u64).read_to_end(&mut body)?;
    Ok(body)
}

/// The media type a static server would give a file, by its extension.
fn media_type_of(path: &Path) -> &'static str {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("").to_ascii_lowercase();
    let ext = name.rsplit('.').next().unwrap_or("");
    match ext {
        "html" | "htm" => "text/html",
        "md" | "markdown" => "text/markdown",
        "txt" => "text/plain",
        "xml" => "application/xml",
        "gz" => "application/gzip",
        "json" => "application/json",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets() {
        assert!(matches!(Target::parse("https://example.com"), Ok(Target::Origin(_))));
        assert!(Target::parse("ftp://example.com").is_err());
        assert!(Target::parse("/definitely/not/here").unwrap_err().contains("not a folder"));
        assert!(matches!(Target::parse("."), Ok(Target::Folder(_))));
    }

    #[test]
    fn folder_paths_stay_inside() {
        let dir = std::env::temp_dir().join(format!("webcanon-site-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("docs")).unwrap();
        std::fs::write(dir.join("docs/index.html"), "<h1>Docs</h1>").unwrap();
        std::fs::write(dir.join("robots.txt"), "User-agent: *\n").unwrap();
        assert_eq!(load_file(&dir, "/robots.txt").status, Some(200));
        assert_eq!(load_file(&dir, "/robots.txt").media_type.as_deref(), Some("text/plain"));
        assert_eq!(load_file(&dir, "/docs/").body, b"<h1>Docs</h1>");
        assert_eq!(load_file(&dir, "/docs").status, Some(200));
        assert_eq!(load_file(&dir, "/missing.txt").status, Some(404));
        assert_eq!(load_file(&dir, "/../etc/passwd").status, Some(404));
        assert!(load_file(&dir, "https://other.test/x").error.is_some());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
