//! Reading an RSL document: one pass over quick-xml events with a small
//! stack of what each open element means, every cost bounded by
//! [`RslLimits`] before it is paid.

use quick_xml::Reader;
use quick_xml::events::{BytesRef, BytesStart, Event};

use super::NAMESPACE;
use super::codes::{Diagnostic, RslCode, RslError, RslErrorKind};
use super::model::{Amount, Content, Copyright, Legal, License, Payment, PaymentType, RslDocument, Terms};
use super::usage::Usage;
use crate::xml::{DOCTYPE_REFUSED, LineCounter, resolve_reference};

/// The bounds every RSL document is read within. A document past one is
/// an [`RslError`], never a partial reading that could drop a prohibition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RslLimits {
    /// The most bytes read; a longer body is refused unread.
    pub max_bytes: usize,
    /// The deepest element nesting (a real document nests four deep).
    pub max_depth: usize,
    /// The most elements.
    pub max_elements: usize,
    /// The longest attribute value or element text, in bytes.
    pub max_value_bytes: usize,
}

impl Default for RslLimits {
    /// 1 MiB, 32 levels, 20,000 elements, 8 KiB a value: a site-wide
    /// document with a few hundred entries is under a tenth of each.
    fn default() -> RslLimits {
        RslLimits { max_bytes: 1 << 20, max_depth: 32, max_elements: 20_000, max_value_bytes: 8 << 10 }
    }
}

/// Findings past this many are summed up in one.
const MAX_DIAGNOSTICS: usize = 100;

/// The user types of §3.4.1.
const USER_TYPES: [&str; 5] = ["commercial", "non-commercial", "education", "government", "personal"];

/// Which kind of term a `permits` or `prohibits` element lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TermKind {
    Usage,
    User,
    Geo,
}

/// What an open element is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tag {
    Root,
    Content,
    License,
    Permits(TermKind),
    Prohibits(TermKind),
    Payment,
    Amount,
    Standard,
    Custom,
    Legal,
    Terms,
    Copyright,
    Schema,
    /// Anything else (unknown or misplaced, or in another namespace):
    /// its text is not kept.
    Other,
}

impl Tag {
    fn keeps_text(self) -> bool {
        !matches!(self, Tag::Root | Tag::Content | Tag::License | Tag::Payment | Tag::Other)
    }
}

struct Parser {
    limits: RslLimits,
    doc: RslDocument,
    stack: Vec<Tag>,
    /// The root element's namespace prefix (`rsl` for `<rsl:rsl>`), empty
    /// when it has none; children count only with the same prefix.
    prefix: String,
    elements: usize,
    text: String,
    /// Attributes of the open text-bearing element that its end needs.
    attrs: Vec<(String, String)>,
    content: Option<Content>,
    license: Option<License>,
    payment: Option<Payment>,
    content_elements: usize,
    suppressed: bool,
}

/// Reads `body` as an RSL document within the default [`RslLimits`].
pub fn parse(body: &[u8]) -> Result<RslDocument, RslError> {
    parse_with(body, &RslLimits::default())
}

/// Reads `body` as an RSL document within `limits`.
///
/// Fails when there is no document to return: a body over the size
/// limit, not UTF-8, HTML, XML that is not well-formed, a DOCTYPE, a
/// root other than `rsl`, or nesting, element counts or values over the
/// limits. Anything else is read, with [`Diagnostic`]s for what is off.
pub fn parse_with(body: &[u8], limits: &RslLimits) -> Result<RslDocument, RslError> {
    let error = |kind, line, message: String| Err(RslError { kind, line, message });
    if body.len() > limits.max_bytes {
        let message = format!("the document is {} bytes, over the {}-byte limit", body.len(), limits.max_bytes);
        return error(RslErrorKind::TooLarge, None, message);
    }
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    let Ok(text) = std::str::from_utf8(body) else {
        return error(RslErrorKind::NotUtf8, None, "the document is not valid UTF-8".into());
    };
    if crate::sniff::looks_like_html(body) {
        return error(RslErrorKind::HtmlBody, None, "the body is an HTML page, not an RSL document".into());
    }
    let mut reader = Reader::from_str(text);
    let mut lines = LineCounter::new(body);
    let mut parser = Parser::new(*limits);
    loop {
        let event = reader.read_event();
        let line = lines.at(reader.buffer_position());
        let step = match event {
            Ok(Event::Start(e)) => parser.start(&e, line),
            Ok(Event::Empty(e)) => parser.start(&e, line).and_then(|()| parser.end(line)),
            Ok(Event::End(_)) => parser.end(line),
            Ok(Event::Text(t)) => parser.push_text(&t.xml10_content(), line),
            Ok(Event::CData(t)) => parser.push_text(&t, line),
            Ok(Event::GeneralRef(r)) => parser.reference(&r, line),
            Ok(Event::DocType(_)) => return error(RslErrorKind::DoctypeRefused, Some(line), DOCTYPE_REFUSED.into()),
            Ok(Event::Eof) => break,
            Ok(Event::Decl(_) | Event::PI(_) | Event::Comment(_)) => Ok(()),
            Err(e) => {
                let line = lines.at(reader.error_position());
                return error(RslErrorKind::NotWellFormed, Some(line), format!("not well-formed XML: {e}"));
            }
        };
        step?;
    }
    parser.finish()
}

/// An attribute's value by local name, with its references resolved
/// and its white space trimmed.
fn attr(e: &BytesStart<'_>, key: &str) -> Option<String> {
    crate::xml::attr(e, key).map(|v| v.trim().to_string())
}

/// Tokens of a list value: separated by white space or commas.
fn tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| c.is_whitespace() || c == ',').filter(|t| !t.is_empty())
}

fn is_http_url(value: &str) -> bool {
    let lower = value.get(..8).unwrap_or(value).to_ascii_lowercase();
    (lower.starts_with("http://") && value.len() > 7) || (lower.starts_with("https://") && value.len() > 8)
}

impl Parser {
    fn new(limits: RslLimits) -> Parser {
        Parser {
            limits,
            doc: RslDocument::default(),
            stack: Vec::with_capacity(8),
            prefix: String::new(),
            elements: 0,
            text: String::new(),
            attrs: Vec::new(),
            content: None,
            license: None,
            payment: None,
            content_elements: 0,
            suppressed: false,
        }
    }

    fn diag(&mut self, code: RslCode, line: u32, message: String) {
        if self.doc.diagnostics.len() < MAX_DIAGNOSTICS {
            self.doc.diagnostics.push(Diagnostic::new(code, Some(line), message));
        } else if !self.suppressed {
            self.suppressed = true;
            let message = format!("more than {MAX_DIAGNOSTICS} findings; the rest were not reported");
            self.doc.diagnostics.push(Diagnostic::new(RslCode::TooManyDiagnostics, None, message));
        }
    }

    fn fail(&self, kind: RslErrorKind, line: u32, message: String) -> Result<(), RslError> {
        Err(RslError { kind, line: Some(line), message })
    }

    /// The element's local name, or `None` when its prefix is not the
    /// root's: an element of another vocabulary.
    fn own_name<'e>(&self, e: &'e BytesStart<'_>) -> Option<&'e str> {
        let name = e.name().into_inner();
        match name.split_once(':') {
            Some((prefix, local)) if prefix == self.prefix => Some(local),
            Some(_) => None,
            None if self.prefix.is_empty() => Some(name),
            None => None,
        }
    }

    fn start(&mut self, e: &BytesStart<'_>, line: u32) -> Result<(), RslError> {
        self.elements += 1;
        if self.elements > self.limits.max_elements {
            let message = format!("more than {} elements", self.limits.max_elements);
            return self.fail(RslErrorKind::TooManyElements, line, message);
        }
        if self.stack.len() >= self.limits.max_depth {
            let message = format!("elements nested more than {} deep", self.limits.max_depth);
            return self.fail(RslErrorKind::TooDeep, line, message);
        }
        for a in e.attributes().with_checks(false).flatten() {
            if a.value.len() > self.limits.max_value_bytes {
                let message = format!(
                    "an attribute value of {} bytes, over the {}-byte limit",
                    a.value.len(),
                    self.limits.max_value_bytes
                );
                return self.fail(RslErrorKind::ValueTooLong, line, message);
            }
        }
        let tag = match self.stack.last().copied() {
            None => self.root(e, line)?,
            Some(parent) => self.child(parent, e, line),
        };
        self.text.clear();
        self.stack.push(tag);
        Ok(())
    }

    fn root(&mut self, e: &BytesStart<'_>, line: u32) -> Result<Tag, RslError> {
        let name = e.name().into_inner();
        let (prefix, local) = name.split_once(':').unwrap_or(("", name));
        if local != "rsl" {
            let message = format!("the root element is <{name}>, not <rsl>");
            self.fail(RslErrorKind::NotRsl, line, message)?;
        }
        self.prefix = prefix.to_string();
        let declaration = if prefix.is_empty() { "xmlns".to_string() } else { format!("xmlns:{prefix}") };
        let namespace = e
            .attributes()
            .with_checks(false)
            .flatten()
            .find(|a| a.key.as_ref() == declaration)
            .map(|a| a.value.trim().to_string());
        match namespace.as_deref() {
            Some(NAMESPACE) => {}
            Some(other) => {
                self.diag(RslCode::Namespace, line, format!("the namespace is `{other}`, not `{NAMESPACE}`"))
            }
            None => {
                self.diag(RslCode::Namespace, line, format!("no namespace is declared; RSL 1.0 requires `{NAMESPACE}`"))
            }
        }
        self.doc.namespace = namespace;
        Ok(Tag::Root)
    }

    fn child(&mut self, parent: Tag, e: &BytesStart<'_>, line: u32) -> Tag {
        let Some(name) = self.own_name(e) else { return Tag::Other };
        self.attrs.clear();
        match (parent, name) {
            (Tag::Root, "content") => {
                self.content_elements += 1;
                self.open_content(e, line);
                Tag::Content
            }
            (Tag::Content, "license") if self.content.is_some() => {
                self.license = Some(License { line, ..License::default() });
                Tag::License
            }
            (Tag::Content, "terms") => Tag::Terms,
            (Tag::Content, "schema") => Tag::Schema,
            (Tag::Content, "copyright") => {
                for key in ["type", "contactEmail", "contactUrl"] {
                    if let Some(value) = attr(e, key) {
                        self.attrs.push((key.to_string(), value));
                    }
                }
                Tag::Copyright
            }
            (Tag::License, "permits" | "prohibits") => match self.term_kind(e, line) {
                Some(kind) if name == "permits" => Tag::Permits(kind),
                Some(kind) => Tag::Prohibits(kind),
                None => Tag::Other,
            },
            (Tag::License, "payment") => {
                let type_name = attr(e, "type").unwrap_or_default();
                let kind = PaymentType::parse(&type_name.to_ascii_lowercase());
                if kind.is_none() {
                    let message =
                        format!("payment type `{type_name}` is not one of RSL 1.0's; read as requiring payment");
                    self.diag(RslCode::UnknownPaymentType, line, message);
                }
                self.payment = Some(Payment { type_name, kind, ..Payment::default() });
                Tag::Payment
            }
            (Tag::License, "legal") => {
                self.attrs.push(("type".into(), attr(e, "type").unwrap_or_default()));
                Tag::Legal
            }
            (Tag::Payment, "amount") => {
                self.attrs.push(("currency".into(), attr(e, "currency").unwrap_or_default()));
                Tag::Amount
            }
            (Tag::Payment, "standard") => Tag::Standard,
            (Tag::Payment, "custom") => Tag::Custom,
            _ => Tag::Other,
        }
    }

    fn open_content(&mut self, e: &BytesStart<'_>, line: u32) {
        let Some(url) = attr(e, "url").filter(|u| !u.is_empty()) else {
            self.diag(RslCode::ContentWithoutUrl, line, "a <content> without a `url` attribute; skipped".into());
            self.content = None;
            return;
        };
        if !(url.starts_with('/') || url.starts_with('*') || is_http_url(&url)) {
            let message = format!("`{url}` is neither an absolute http(s) URL nor a path; it matches nothing");
            self.diag(RslCode::InvalidContentUrl, line, message);
        }
        let server = attr(e, "server").filter(|s| !s.is_empty());
        if let Some(server) = &server
            && !server.to_ascii_lowercase().starts_with("https://")
        {
            let message = format!("server `{server}` is not an absolute https URL");
            self.diag(RslCode::InvalidServer, line, message);
        }
        let encrypted = match attr(e, "encrypted").as_deref().map(str::to_ascii_lowercase).as_deref() {
            None | Some("false") => false,
            Some("true") => true,
            Some(other) => {
                let message = format!("encrypted=\"{other}\" is neither `true` nor `false`; read as `false`");
                self.diag(RslCode::InvalidEncrypted, line, message);
                false
            }
        };
        let lastmod = attr(e, "lastmod").filter(|l| !l.is_empty());
        self.content = Some(Content { line, url, server, encrypted, lastmod, ..Content::default() });
    }

    fn term_kind(&mut self, e: &BytesStart<'_>, line: u32) -> Option<TermKind> {
        match attr(e, "type").map(|t| t.to_ascii_lowercase()).as_deref() {
            None | Some("") => {
                self.diag(RslCode::MissingTermType, line, "no `type`; read as `usage`".into());
                Some(TermKind::Usage)
            }
            Some("usage") => Some(TermKind::Usage),
            Some("user") => Some(TermKind::User),
            Some("geo") => Some(TermKind::Geo),
            Some(other) => {
                let message = format!("type `{other}` is not usage, user or geo; ignored");
                self.diag(RslCode::UnknownTermType, line, message);
                None
            }
        }
    }

    fn collecting(&self) -> bool {
        self.stack.last().is_some_and(|t| t.keeps_text())
    }

    fn push_text(&mut self, text: &str, line: u32) -> Result<(), RslError> {
        if !self.collecting() {
            return Ok(());
        }
        if self.text.len() + text.len() > self.limits.max_value_bytes {
            let message = format!("an element's text is over the {}-byte limit", self.limits.max_value_bytes);
            return self.fail(RslErrorKind::ValueTooLong, line, message);
        }
        self.text.push_str(text);
        Ok(())
    }

    /// The five XML entities and character references; any other
    /// reference is kept as written.
    fn reference(&mut self, r: &BytesRef<'_>, line: u32) -> Result<(), RslError> {
        match resolve_reference(r) {
            Some(c) => self.push_text(c.encode_utf8(&mut [0; 4]), line),
            None => self.push_text(&format!("&{};", &**r), line),
        }
    }

    fn end(&mut self, line: u32) -> Result<(), RslError> {
        let Some(tag) = self.stack.pop() else { return Ok(()) };
        let text = std::mem::take(&mut self.text);
        let value = text.trim();
        let attr_of = |attrs: &[(String, String)], key: &str| {
            attrs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone()).filter(|v| !v.is_empty())
        };
        match tag {
            Tag::Content => {
                if let Some(content) = self.content.take() {
                    if content.licenses.is_empty() {
                        let message = format!("<content url=\"{}\"> has no <license>", content.url);
                        self.diag(RslCode::ContentWithoutLicense, content.line, message);
                    }
                    self.doc.contents.push(content);
                }
            }
            Tag::License => {
                if let (Some(license), Some(content)) = (self.license.take(), self.content.as_mut()) {
                    let both: Vec<Usage> = license
                        .permits
                        .usage
                        .iter()
                        .flatten()
                        .filter(|u| license.prohibits.usage.iter().flatten().any(|p| p.overlaps(**u)))
                        .copied()
                        .collect();
                    content.licenses.push(license);
                    for usage in both {
                        let message = format!("`{usage}` is both permitted and prohibited; the prohibition wins");
                        self.diag(RslCode::PermittedAndProhibited, line, message);
                    }
                }
            }
            Tag::Permits(kind) | Tag::Prohibits(kind) => {
                let permits = matches!(tag, Tag::Permits(_));
                self.terms(kind, permits, value, line);
            }
            Tag::Payment => {
                if let (Some(payment), Some(license)) = (self.payment.take(), self.license.as_mut()) {
                    license.payment = Some(payment);
                }
            }
            Tag::Amount => {
                let currency = attr_of(&self.attrs, "currency").unwrap_or_default();
                let valid_value = !value.is_empty()
                    && value.bytes().all(|b| b.is_ascii_digit() || b == b'.')
                    && value.bytes().filter(|&b| b == b'.').count() <= 1;
                if !valid_value || currency.len() != 3 || !currency.bytes().all(|b| b.is_ascii_alphabetic()) {
                    let message = format!("amount `{value}` in `{currency}` is not a decimal in an ISO 4217 currency");
                    self.diag(RslCode::InvalidAmount, line, message);
                }
                if let Some(payment) = self.payment.as_mut() {
                    payment.amounts.push(Amount { currency, value: value.to_string() });
                }
            }
            Tag::Standard | Tag::Custom => {
                if let Some(payment) = self.payment.as_mut()
                    && !value.is_empty()
                {
                    let slot = if tag == Tag::Standard { &mut payment.standard } else { &mut payment.custom };
                    *slot = Some(value.to_string());
                }
            }
            Tag::Legal => {
                let kind = attr_of(&self.attrs, "type").unwrap_or_default();
                if let Some(license) = self.license.as_mut() {
                    license.legal.push(Legal { kind, terms: tokens(value).map(str::to_string).collect() });
                }
            }
            Tag::Terms | Tag::Schema => {
                if let Some(content) = self.content.as_mut()
                    && !value.is_empty()
                {
                    let slot = if tag == Tag::Terms { &mut content.terms } else { &mut content.schema };
                    *slot = Some(value.to_string());
                }
            }
            Tag::Copyright => {
                let copyright = Copyright {
                    kind: attr_of(&self.attrs, "type"),
                    name: value.to_string(),
                    contact_email: attr_of(&self.attrs, "contactEmail"),
                    contact_url: attr_of(&self.attrs, "contactUrl"),
                };
                if let Some(content) = self.content.as_mut() {
                    content.copyright = Some(copyright);
                }
            }
            Tag::Root | Tag::Other => {}
        }
        Ok(())
    }

    /// Adds the tokens of a `permits` or `prohibits` element to the open
    /// license. Unknown tokens are reported and left out; an element none
    /// of whose tokens can be read says nothing.
    fn terms(&mut self, kind: TermKind, permits: bool, value: &str, line: u32) {
        if self.license.is_none() {
            return;
        }
        let mut unknown = Vec::new();
        match kind {
            TermKind::Usage => {
                let mut read = Vec::new();
                for token in tokens(value) {
                    match token.to_ascii_lowercase().parse::<Usage>() {
                        Ok(usage) => read.push(usage),
                        Err(_) => unknown.push(token.to_string()),
                    }
                }
                for token in unknown {
                    let hint = Usage::from_draft_spelling(&token.to_ascii_lowercase())
                        .map(|u| format!(" (a draft spelling; RSL 1.0 says `{u}`)"))
                        .unwrap_or_default();
                    self.diag(RslCode::UnknownUsage, line, format!("usage `{token}` is not in RSL 1.0{hint}; ignored"));
                }
                if !read.is_empty() {
                    let terms = self.open_terms(permits);
                    terms.usage.get_or_insert_with(Vec::new).extend(read);
                }
            }
            TermKind::User => {
                let read: Vec<String> = tokens(value).map(str::to_ascii_lowercase).collect();
                for token in read.iter().filter(|t| !USER_TYPES.contains(&t.as_str())) {
                    let message = format!("user `{token}` is not one of {}", USER_TYPES.join(", "));
                    self.diag(RslCode::UnknownUserType, line, message);
                }
                if !read.is_empty() {
                    self.open_terms(permits).user.get_or_insert_with(Vec::new).extend(read);
                }
            }
            TermKind::Geo => {
                let read: Vec<String> = tokens(value).map(str::to_ascii_uppercase).collect();
                for token in read.iter().filter(|t| t.len() != 2 || !t.bytes().all(|b| b.is_ascii_alphabetic())) {
                    self.diag(RslCode::InvalidGeo, line, format!("geo `{token}` is not a two-letter country code"));
                }
                if !read.is_empty() {
                    self.open_terms(permits).geo.get_or_insert_with(Vec::new).extend(read);
                }
            }
        }
    }

    fn open_terms(&mut self, permits: bool) -> &mut Terms {
        let license = self.license.as_mut().expect("checked by the caller");
        if permits { &mut license.permits } else { &mut license.prohibits }
    }

    fn finish(mut self) -> Result<RslDocument, RslError> {
        if self.stack.is_empty() && self.elements == 0 {
            return Err(RslError { kind: RslErrorKind::NotRsl, line: None, message: "no root element".into() });
        }
        if !self.stack.is_empty() {
            let message = format!("the document ends inside {} open element(s)", self.stack.len());
            return Err(RslError { kind: RslErrorKind::NotWellFormed, line: None, message });
        }
        if self.content_elements == 0 {
            self.doc.diagnostics.push(Diagnostic::new(RslCode::NoContent, None, "no <content> element".into()));
        }
        Ok(self.doc)
    }
}
