//! Where a site names its RSL document: the robots.txt `License:` record
//! (read by [`crate::robots::Robots::licenses`]), a `Link:` response
//! header and an HTML `<link>` (RSL 1.0 §4), both with `rel="license"`
//! and `type="application/rsl+xml"`.

use super::MEDIA_TYPE;

/// Whether a link's `rel` and `type` name an RSL license: `rel` holds the
/// token `license` (links may carry several relations), and `type` is the
/// RSL media type (case-insensitive). A `rel="license"` without that type
/// names a licence of another kind (Creative Commons pages, say) and is
/// not read as RSL.
pub fn is_rsl_license_link(rel: Option<&str>, media_type: Option<&str>) -> bool {
    let rel = rel.is_some_and(|r| r.split_ascii_whitespace().any(|v| v.eq_ignore_ascii_case("license")));
    let media_type = media_type.is_some_and(|t| t.trim().eq_ignore_ascii_case(MEDIA_TYPE));
    rel && media_type
}

/// The targets (as written, unresolved) of the RSL license links in one
/// `Link:` header value (RFC 8288: comma-separated
/// `<target>; param=value` links; quoted parameter values may hold commas).
///
/// ```
/// use webcanon_core::rsl::license_links_in_header;
/// let value = r#"<https://example.com/license.xml>; rel="license"; type="application/rsl+xml", </a.md>; rel="alternate""#;
/// assert_eq!(license_links_in_header(value), ["https://example.com/license.xml"]);
/// ```
pub fn license_links_in_header(value: &str) -> Vec<&str> {
    split_links(value)
        .filter_map(|link| {
            let link = link.trim();
            let close = link.find('>')?;
            let target = link.strip_prefix('<')?.get(..close - 1)?;
            let params = &link[close + 1..];
            let param = |name: &str| {
                params.split(';').find_map(|p| {
                    let (k, v) = p.split_once('=')?;
                    k.trim().eq_ignore_ascii_case(name).then(|| v.trim().trim_matches('"'))
                })
            };
            is_rsl_license_link(param("rel"), param("type")).then_some(target.trim())
        })
        .collect()
}

/// The links of a `Link:` value, split at commas outside quotes and
/// angle brackets.
fn split_links(value: &str) -> impl Iterator<Item = &str> {
    let mut start = 0;
    let mut quoted = false;
    let mut bracketed = false;
    let mut cuts = Vec::new();
    for (i, c) in value.char_indices() {
        match c {
            '"' if !bracketed => quoted = !quoted,
            '<' if !quoted => bracketed = true,
            '>' if !quoted => bracketed = false,
            ',' if !quoted && !bracketed => {
                cuts.push(&value[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    cuts.push(&value[start..]);
    cuts.into_iter()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_header_table() {
        let cases: &[(&str, &[&str])] = &[
            (
                r#"<https://e.com/license.xml>; rel="license"; type="application/rsl+xml""#,
                &["https://e.com/license.xml"],
            ),
            (r#"</license.xml>; rel=license; type=application/rsl+xml"#, &["/license.xml"]),
            (r#"</license.xml>; type="APPLICATION/RSL+XML"; rel="copyright license""#, &["/license.xml"]),
            (r#"<https://creativecommons.org/licenses/by/4.0/>; rel="license""#, &[]),
            (r#"</l.xml>; rel="alternate"; type="application/rsl+xml""#, &[]),
            (
                r#"</a,b.xml>; rel="license"; type="application/rsl+xml"; title="x, y", </c.xml>; rel="license"; type="application/rsl+xml""#,
                &["/a,b.xml", "/c.xml"],
            ),
            ("garbage, <unclosed; rel=license", &[]),
        ];
        for (value, want) in cases {
            assert_eq!(license_links_in_header(value), *want, "{value}");
        }
    }
}
