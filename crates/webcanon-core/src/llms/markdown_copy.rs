//! Markdown-copy names of llms.txt v2: which `.md` URL is the copy of a page.

/// The Markdown-copy paths to try for a page's URL path, most likely first.
///
/// llms.txt v2 names a page's Markdown copy by appending `.md` or using the
/// `.html.md` form, and `index.md` / `index.html.md` for a bare directory
/// path (<https://llmstxt.org/#proposal>):
///
/// | page | candidates |
/// |---|---|
/// | `/a/b` | `/a/b.md`, `/a/b.html.md` |
/// | `/a/` | `/a/index.md`, `/a/index.html.md` |
/// | `/a/b.html` | `/a/b.html.md`, `/a/b.md` |
///
/// A path that is already Markdown or text (`.md`, `.markdown`, `.txt`) has
/// no candidates. The query and fragment, if passed, are dropped: copies are
/// static files.
pub fn markdown_candidates(path: &str) -> Vec<String> {
    let path = strip_query(path);
    let path = if path.is_empty() { "/" } else { path };
    let last = &path[path.rfind('/').map_or(0, |i| i + 1)..];
    let lower = last.to_ascii_lowercase();
    if [".md", ".markdown", ".txt"].iter().any(|ext| lower.ends_with(ext)) {
        return Vec::new();
    }
    if last.is_empty() {
        return vec![format!("{path}index.md"), format!("{path}index.html.md")];
    }
    for ext in [".html", ".htm"] {
        if lower.ends_with(ext) {
            let stem = &path[..path.len() - ext.len()];
            return vec![format!("{path}.md"), format!("{stem}.md")];
        }
    }
    vec![format!("{path}.md"), format!("{path}.html.md")]
}

/// The page a path stands for once Markdown-copy and HTML suffixes are
/// removed, so that a link path and a page path can be compared.
///
/// `/a/b.html.md`, `/a/b.md`, `/a/b.html` and `/a/b` all give `/a/b`;
/// `/a/index.html.md`, `/a/index.md`, `/a/index.html` and `/a/` give `/a/`.
/// The query and fragment are dropped. Suffixes are matched
/// case-insensitively; the rest is returned as written.
pub fn page_key(path: &str) -> &str {
    let mut path = strip_query(path);
    for suffix in [".md", ".markdown"] {
        if let Some(stem) = strip_suffix_ignore_case(path, suffix) {
            path = stem;
            break;
        }
    }
    for suffix in [".html", ".htm"] {
        if let Some(stem) = strip_suffix_ignore_case(path, suffix) {
            path = stem;
            break;
        }
    }
    if let Some(stem) = strip_suffix_ignore_case(path, "index")
        && (stem.is_empty() || stem.ends_with('/'))
    {
        path = stem;
    }
    if path.is_empty() { "/" } else { path }
}

/// Whether `link_path` names a Markdown copy (`.md`) of the page at
/// `page_path`, by the v2 naming rules: `page.md`, `page.html.md`,
/// `index.md`, `index.html.md`.
pub fn is_markdown_copy_of(link_path: &str, page_path: &str) -> bool {
    let link = strip_query(link_path);
    strip_suffix_ignore_case(link, ".md").is_some() && page_key(link) == page_key(page_path)
}

fn strip_query(path: &str) -> &str {
    path.find(['?', '#']).map_or(path, |i| &path[..i])
}

fn strip_suffix_ignore_case<'a>(s: &'a str, suffix: &str) -> Option<&'a str> {
    let at = s.len().checked_sub(suffix.len())?;
    (s.is_char_boundary(at) && s[at..].eq_ignore_ascii_case(suffix)).then(|| &s[..at])
}

#[cfg(test)]
mod tests {
    use super::*;

    macro_rules! candidates {
        ($($name:ident: $path:literal => [$($want:literal),*];)*) => {$(
            #[test]
            fn $name() {
                let want: Vec<String> = vec![$($want.to_string()),*];
                assert_eq!(markdown_candidates($path), want);
            }
        )*};
    }

    candidates! {
        bare_page: "/a/b" => ["/a/b.md", "/a/b.html.md"];
        directory: "/a/" => ["/a/index.md", "/a/index.html.md"];
        root: "/" => ["/index.md", "/index.html.md"];
        empty_path: "" => ["/index.md", "/index.html.md"];
        html_page: "/a/b.html" => ["/a/b.html.md", "/a/b.md"];
        htm_page: "/a/B.HTM" => ["/a/B.HTM.md", "/a/B.md"];
        query_dropped: "/a/b?x=1#f" => ["/a/b.md", "/a/b.html.md"];
        already_markdown: "/a/b.md" => [];
        text_file: "/llms.txt" => [];
        dotted_segment: "/v1.2/intro" => ["/v1.2/intro.md", "/v1.2/intro.html.md"];
    }

    macro_rules! keys {
        ($($name:ident: $path:literal => $want:literal;)*) => {$(
            #[test]
            fn $name() {
                assert_eq!(page_key($path), $want);
            }
        )*};
    }

    keys! {
        key_html_md: "/a/b.html.md" => "/a/b";
        key_md: "/a/b.md" => "/a/b";
        key_html: "/a/b.html" => "/a/b";
        key_plain: "/a/b" => "/a/b";
        key_index_html_md: "/a/index.html.md" => "/a/";
        key_index_md: "/a/index.md" => "/a/";
        key_index_html: "/a/index.html" => "/a/";
        key_dir: "/a/" => "/a/";
        key_root_index: "/index.md" => "/";
        key_not_index: "/a/reindex.md" => "/a/reindex";
        key_query: "/a/b.md?v=2" => "/a/b";
        key_upper: "/a/B.HTML.MD" => "/a/B";
        key_multibyte: "/é.md" => "/é";
    }

    #[test]
    fn copies_round_trip() {
        for page in ["/a/b", "/a/", "/a/b.html", "/", "/docs/intro.htm"] {
            for candidate in markdown_candidates(page) {
                assert!(is_markdown_copy_of(&candidate, page), "{candidate} for {page}");
            }
        }
    }

    #[test]
    fn copy_requires_markdown_suffix() {
        assert!(is_markdown_copy_of("/a/b.html.md", "/a/b"));
        assert!(is_markdown_copy_of("/a/index.md", "/a/"));
        assert!(!is_markdown_copy_of("/a/b.html", "/a/b"));
        assert!(!is_markdown_copy_of("/a/b", "/a/b"));
        assert!(!is_markdown_copy_of("/a/c.md", "/a/b"));
        assert!(!is_markdown_copy_of("/a/b/index.md", "/a/b"));
    }
}
