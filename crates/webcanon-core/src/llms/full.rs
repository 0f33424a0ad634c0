//! llms-full.txt: an llms.txt and the pages it links, in one Markdown file
//! (the convention of the llms.txt proposal). Assembly only; fetching the
//! pages is the caller's (`webcanon llms full` does it through the client).

use super::model::LlmsTxt;

/// llms-full.txt: the H1, the summary blockquote and the intro prose of the
/// llms.txt, then each page after a `---` rule and a `Source: URL` line.
///
/// `pages` are `(URL, Markdown)` in the order they appear in the file. Each
/// page loses a leading YAML front matter block, and a code fence it leaves
/// open is closed, so one page cannot swallow the next.
///
/// ```
/// use webcanon_core::llms::{LlmsTxt, full::assemble};
///
/// let file = LlmsTxt::parse("# Acme\n\n> Analytics.\n\n## Docs\n\n- [Start](https://acme.test/start.md)\n");
/// let full = assemble(&file, &[("https://acme.test/start.md", "---\ntitle: x\n---\n# Start\n```sh\nrun\n")]);
/// assert_eq!(full, "# Acme\n\n> Analytics.\n\n---\n\nSource: https://acme.test/start.md\n\n# Start\n```sh\nrun\n```\n");
/// ```
pub fn assemble(file: &LlmsTxt, pages: &[(&str, &str)]) -> String {
    let mut out = String::new();
    if let Some(title) = &file.title {
        out.push_str(&format!("# {title}\n\n"));
    }
    if let Some(summary) = &file.summary {
        for line in summary.split('\n') {
            if line.is_empty() {
                out.push_str(">\n");
            } else {
                out.push_str(&format!("> {line}\n"));
            }
        }
        out.push('\n');
    }
    if !file.prose.trim().is_empty() {
        out.push_str(file.prose.trim_end());
        out.push_str("\n\n");
    }
    for (url, content) in pages {
        out.push_str(&format!("---\n\nSource: {url}\n\n"));
        let content = strip_front_matter(content.trim_start_matches(['\n', '\r'])).trim_end();
        out.push_str(content);
        out.push('\n');
        if let Some(fence) = open_fence(content) {
            out.push_str(&fence);
            out.push('\n');
        }
        out.push('\n');
    }
    let end = out.trim_end().len();
    out.truncate(end);
    out.push('\n');
    out
}

/// The page without a leading YAML front matter block (`---` … `---` or
/// `...`): it is metadata, not content, and once concatenated its rules
/// would read as a thematic break and a setext heading.
fn strip_front_matter(content: &str) -> &str {
    let mut lines = content.split_inclusive('\n');
    if lines.next().is_none_or(|first| first.trim_end() != "---") {
        return content;
    }
    let mut offset = content.find('\n').map_or(content.len(), |i| i + 1);
    for line in lines.take(200) {
        offset += line.len();
        if matches!(line.trim_end(), "---" | "...") {
            return content[offset..].trim_start_matches(['\n', '\r']);
        }
    }
    content
}

/// The closing fence for a code fence the text leaves open, if any.
fn open_fence(text: &str) -> Option<String> {
    let mut open: Option<(char, usize)> = None;
    for line in text.lines() {
        let trimmed = line.trim_start_matches(' ');
        if line.len() - trimmed.len() > 3 {
            continue;
        }
        let Some(c) = trimmed.chars().next().filter(|c| matches!(c, '`' | '~')) else { continue };
        let run = trimmed.chars().take_while(|&x| x == c).count();
        if run < 3 {
            continue;
        }
        match open {
            None => open = Some((c, run)),
            Some((oc, orun)) if oc == c && run >= orun && trimmed[run..].trim().is_empty() => open = None,
            Some(_) => {}
        }
    }
    open.map(|(c, run)| c.to_string().repeat(run))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_is_dropped_from_pages() {
        assert_eq!(strip_front_matter("---\ntitle: Start\n---\n\n# Start\n"), "# Start\n");
        assert_eq!(strip_front_matter("---\r\ntitle: x\r\n...\r\nBody"), "Body");
        assert_eq!(strip_front_matter("# Start\n\n---\n\nmore\n"), "# Start\n\n---\n\nmore\n");
        assert_eq!(strip_front_matter("---\nnever closed\n"), "---\nnever closed\n");
    }

    #[test]
    fn open_fences_are_closed() {
        assert_eq!(open_fence("a\n```rust\nfn x() {}\n"), Some("```".into()));
        assert_eq!(open_fence("~~~~\nx\n~~~~\n"), None);
        assert_eq!(open_fence("````\n```\n"), Some("````".into()));
        assert_eq!(open_fence("text ``` inline\n"), None);
    }
}
