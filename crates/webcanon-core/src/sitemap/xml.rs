//! The XML formats: urlset, sitemapindex, RSS and Atom, read as a stream of
//! quick-xml events with a small stack of what each open element means.

use quick_xml::Reader;
use quick_xml::events::{BytesRef, BytesStart, BytesText, Event};

use super::codes::SitemapCode;
use super::date::DateTime;
use super::model::{Alternate, ChangeFreq, Entry, Image, News, SitemapKind, Video};
use super::sink::Sink;
use crate::xml::{DOCTYPE_REFUSED, LineCounter, attr, resolve_reference};

/// Stop after this many well-formedness errors: the file is no longer XML.
const MAX_XML_ERRORS: usize = 100;

/// A text-bearing element whose content is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Loc,
    Lastmod,
    Changefreq,
    Priority,
    Title,
    RssLink,
    RssGuid,
    RssPubDate,
    Published,
    ImageLoc,
    ImageCaption,
    ImageTitle,
    ImageGeo,
    ImageLicense,
    VideoThumbnail,
    VideoTitle,
    VideoDescription,
    VideoContent,
    VideoPlayer,
    VideoDuration,
    VideoDate,
    NewsName,
    NewsLanguage,
    NewsDate,
    NewsTitle,
    NewsKeywords,
}

/// What an open element is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tag {
    Root,
    Channel,
    Entry,
    Image,
    Video,
    News,
    Publication,
    Field(Field),
    Other,
}

/// The entry being read, with what it needs until its end tag.
#[derive(Default)]
struct Pending {
    entry: Entry,
    skip: bool,
    guid: Option<String>,
    published: Option<DateTime>,
}

struct Parser<'s, 'f> {
    sink: &'s mut Sink<'f>,
    stack: Vec<Tag>,
    text: String,
    field_line: u32,
    pending: Option<Pending>,
    image: Option<Image>,
    video: Option<Video>,
    news: Option<News>,
    root_seen: bool,
    unknown_entity_reported: bool,
    /// Whether a bare `&` was reported (once per file).
    bare_amp_reported: bool,
}

pub(super) fn parse(text: &str, sink: &mut Sink<'_>) {
    let mut reader = Reader::from_str(text);
    let config = reader.config_mut();
    // Real sitemaps hold bare `&` (the video sitemap in shared/corpus does);
    // accept it as text rather than lose the entry.
    config.allow_dangling_amp = true;
    config.check_end_names = false;
    let mut lines = LineCounter::new(text.as_bytes());
    let mut parser = Parser::new(sink);
    let mut errors = 0;
    let mut last_error_at = u64::MAX;
    loop {
        let event = reader.read_event();
        let mut line = || lines.at(reader.buffer_position());
        match event {
            Ok(Event::Start(e)) => {
                if !parser.start(&e, line()) {
                    return;
                }
            }
            Ok(Event::Empty(e)) => {
                let line = line();
                if !parser.start(&e, line) {
                    return;
                }
                parser.end(line);
            }
            Ok(Event::End(_)) => parser.end(line()),
            Ok(Event::Text(t)) => parser.text(&t, line),
            Ok(Event::CData(t)) => {
                if parser.collecting() {
                    parser.text.push_str(&t);
                }
            }
            Ok(Event::GeneralRef(r)) => parser.reference(&r, line),
            Ok(Event::DocType(_)) => {
                parser.sink.diag(SitemapCode::DoctypeRefused, Some(line()), DOCTYPE_REFUSED.into());
                return;
            }
            Ok(Event::Eof) => break,
            Ok(Event::Decl(_) | Event::PI(_) | Event::Comment(_)) => {}
            Err(e) => {
                let at = reader.error_position();
                errors += 1;
                parser.sink.diag(SitemapCode::NotWellFormed, Some(lines.at(at)), format!("not well-formed XML: {e}"));
                if errors >= MAX_XML_ERRORS || at == last_error_at {
                    break;
                }
                last_error_at = at;
            }
        }
    }
    parser.finish(lines.at(u64::MAX));
}

fn has_sitemap_namespace(e: &BytesStart<'_>) -> bool {
    e.attributes().with_checks(false).flatten().any(|a| {
        a.key.as_ref() == "xmlns"
            && (a.value.contains("sitemaps.org/schemas/sitemap") || a.value.contains("google.com/schemas/sitemap/"))
    })
}

impl<'s, 'f> Parser<'s, 'f> {
    fn new(sink: &'s mut Sink<'f>) -> Self {
        Parser {
            sink,
            stack: Vec::with_capacity(8),
            text: String::new(),
            field_line: 0,
            pending: None,
            image: None,
            video: None,
            news: None,
            root_seen: false,
            unknown_entity_reported: false,
            bare_amp_reported: false,
        }
    }

    /// Text between tags; `line` gives its line when a diagnostic needs it.
    fn text(&mut self, t: &BytesText<'_>, line: impl FnOnce() -> u32) {
        // With dangling `&` allowed, a bare one arrives as text.
        if !self.bare_amp_reported && t.contains('&') {
            self.bare_amp_reported = true;
            let message = "not well-formed XML: a bare `&` (write `&amp;`); read as written".into();
            self.sink.diag(SitemapCode::NotWellFormed, Some(line()), message);
        }
        if self.collecting() {
            self.text.push_str(&t.xml10_content());
        }
    }

    /// An entity or character reference: the five XML entities and
    /// character references resolved, anything else kept as written.
    fn reference(&mut self, r: &BytesRef<'_>, line: impl FnOnce() -> u32) {
        if !self.collecting() {
            return;
        }
        match resolve_reference(r) {
            Some(c) => self.text.push(c),
            None => {
                if !self.unknown_entity_reported {
                    self.unknown_entity_reported = true;
                    let message = format!("unknown entity &{}; kept as written", &**r);
                    self.sink.diag(SitemapCode::UnknownEntity, Some(line()), message);
                }
                self.text.push('&');
                self.text.push_str(r);
                self.text.push(';');
            }
        }
    }

    /// At the end of the input: elements left open, a missing root.
    fn finish(&mut self, last_line: u32) {
        if let Some(open) = self.stack.len().checked_sub(1) {
            let message = format!("the file ends inside {} open element(s); it may be truncated", open + 1);
            self.sink.diag(SitemapCode::NotWellFormed, Some(last_line), message);
        }
        if !self.root_seen {
            self.sink.diag(SitemapCode::UnknownRoot, None, "no root element".into());
        }
    }

    fn collecting(&self) -> bool {
        matches!(self.stack.last(), Some(Tag::Field(_)))
    }

    /// Handles a start tag; `false` stops the parse.
    fn start(&mut self, e: &BytesStart<'_>, line: u32) -> bool {
        let local = e.local_name();
        let name: &str = local.as_ref();
        let kind = self.sink.kind;
        let tag = match self.stack.last() {
            None if self.root_seen => Tag::Other,
            None => {
                self.root_seen = true;
                self.sink.kind = match name {
                    "urlset" => SitemapKind::UrlSet,
                    "sitemapindex" => SitemapKind::Index,
                    "rss" | "RDF" => SitemapKind::Rss,
                    "feed" => SitemapKind::Atom,
                    _ if name.eq_ignore_ascii_case("html") => {
                        let message = "the body is an HTML page, not a sitemap".into();
                        self.sink.diag(SitemapCode::HtmlBody, Some(line), message);
                        return false;
                    }
                    _ => {
                        let message = format!("root element <{name}> is not urlset, sitemapindex, rss or feed");
                        self.sink.diag(SitemapCode::UnknownRoot, Some(line), message);
                        SitemapKind::Unknown
                    }
                };
                if matches!(self.sink.kind, SitemapKind::UrlSet | SitemapKind::Index) && !has_sitemap_namespace(e) {
                    let message = format!("<{name}> lacks xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"");
                    self.sink.diag(SitemapCode::MissingNamespace, Some(line), message);
                }
                Tag::Root
            }
            Some(Tag::Root | Tag::Channel) => match (kind, name) {
                (SitemapKind::Rss, "channel") => Tag::Channel,
                (SitemapKind::UrlSet | SitemapKind::Unknown, "url")
                | (SitemapKind::Index | SitemapKind::Unknown, "sitemap")
                | (SitemapKind::Rss, "item")
                | (SitemapKind::Atom, "entry") => {
                    self.pending = Some(Pending { entry: Entry { line, ..Entry::default() }, ..Pending::default() });
                    Tag::Entry
                }
                (SitemapKind::UrlSet, "sitemap") | (SitemapKind::Index, "url") => {
                    let message = format!("a <{name}> entry inside a {}; skipped", root_name(kind));
                    self.sink.diag(SitemapCode::MisplacedEntry, Some(line), message);
                    self.pending = Some(Pending { skip: true, ..Pending::default() });
                    Tag::Entry
                }
                (SitemapKind::Index, "sitemapindex") => {
                    let message = "a <sitemapindex> nested inside a sitemap index".into();
                    self.sink.diag(SitemapCode::IndexListsIndex, Some(line), message);
                    Tag::Other
                }
                _ => Tag::Other,
            },
            Some(Tag::Entry) => self.entry_child(kind, name, e, line),
            Some(Tag::Image) => Tag::Field(match name {
                "loc" => Field::ImageLoc,
                "caption" => Field::ImageCaption,
                "title" => Field::ImageTitle,
                "geo_location" => Field::ImageGeo,
                "license" => Field::ImageLicense,
                _ => return self.push(Tag::Other),
            }),
            Some(Tag::Video) => Tag::Field(match name {
                "thumbnail_loc" => Field::VideoThumbnail,
                "title" => Field::VideoTitle,
                "description" => Field::VideoDescription,
                "content_loc" => Field::VideoContent,
                "player_loc" => Field::VideoPlayer,
                "duration" => Field::VideoDuration,
                "publication_date" => Field::VideoDate,
                _ => return self.push(Tag::Other),
            }),
            Some(Tag::News) => match name {
                "publication" => Tag::Publication,
                "publication_date" => Tag::Field(Field::NewsDate),
                "title" => Tag::Field(Field::NewsTitle),
                "keywords" => Tag::Field(Field::NewsKeywords),
                _ => Tag::Other,
            },
            Some(Tag::Publication) => match name {
                "name" => Tag::Field(Field::NewsName),
                "language" => Tag::Field(Field::NewsLanguage),
                _ => Tag::Other,
            },
            Some(Tag::Field(_) | Tag::Other) => Tag::Other,
        };
        if let Tag::Field(_) = tag {
            self.text.clear();
            self.field_line = line;
        }
        self.push(tag)
    }

    fn push(&mut self, tag: Tag) -> bool {
        self.stack.push(tag);
        true
    }

    fn entry_child(&mut self, kind: SitemapKind, name: &str, e: &BytesStart<'_>, line: u32) -> Tag {
        let Some(pending) = self.pending.as_mut() else { return Tag::Other };
        match (kind, name) {
            (SitemapKind::Rss, "link") => Tag::Field(Field::RssLink),
            (SitemapKind::Rss, "guid") => {
                // A guid is a URL only when isPermaLink is absent or true.
                let permalink = attr(e, "isPermaLink").is_none_or(|v| v.trim() != "false");
                if permalink { Tag::Field(Field::RssGuid) } else { Tag::Other }
            }
            (SitemapKind::Rss, "pubDate") => Tag::Field(Field::RssPubDate),
            (SitemapKind::Rss, "date") | (SitemapKind::Atom, "updated") => Tag::Field(Field::Lastmod),
            (SitemapKind::Atom, "published") => Tag::Field(Field::Published),
            (SitemapKind::Rss | SitemapKind::Atom, "title") => Tag::Field(Field::Title),
            (SitemapKind::Atom, "link") => {
                let rel = attr(e, "rel");
                if pending.entry.loc.is_empty()
                    && rel.as_deref().is_none_or(|r| r == "alternate")
                    && let Some(href) = attr(e, "href")
                {
                    pending.entry.loc = href.trim().to_string();
                    pending.entry.line = line;
                }
                Tag::Other
            }
            (SitemapKind::Rss | SitemapKind::Atom, _) => Tag::Other,
            (_, "loc") => Tag::Field(Field::Loc),
            (_, "lastmod") => Tag::Field(Field::Lastmod),
            (_, "changefreq") => Tag::Field(Field::Changefreq),
            (_, "priority") => Tag::Field(Field::Priority),
            (_, "image") => {
                self.image = Some(Image::default());
                Tag::Image
            }
            (_, "video") => {
                self.video = Some(Video::default());
                Tag::Video
            }
            (_, "news") => {
                self.news = Some(News::default());
                Tag::News
            }
            (_, "link") => {
                if attr(e, "rel").as_deref() == Some("alternate")
                    && let (Some(hreflang), Some(href)) = (attr(e, "hreflang"), attr(e, "href"))
                {
                    pending.entry.alternates.push(Alternate { hreflang, href });
                }
                Tag::Other
            }
            _ => Tag::Other,
        }
    }

    fn end(&mut self, line: u32) {
        let Some(tag) = self.stack.pop() else { return };
        match tag {
            Tag::Field(field) => {
                let value = std::mem::take(&mut self.text);
                self.field(field, value.trim());
                self.text = value;
            }
            Tag::Image => {
                if let (Some(image), Some(p)) = (self.image.take(), self.pending.as_mut())
                    && !image.loc.is_empty()
                {
                    p.entry.images.push(image);
                }
            }
            Tag::Video => {
                if let (Some(video), Some(p)) = (self.video.take(), self.pending.as_mut()) {
                    p.entry.videos.push(video);
                }
            }
            Tag::News => {
                if let (Some(news), Some(p)) = (self.news.take(), self.pending.as_mut()) {
                    p.entry.news = Some(news);
                }
            }
            Tag::Entry => {
                let Some(mut p) = self.pending.take() else { return };
                if p.skip {
                    return;
                }
                if p.entry.loc.is_empty()
                    && let Some(guid) = p.guid
                {
                    p.entry.loc = guid;
                }
                if p.entry.lastmod.is_none() {
                    p.entry.lastmod = p.published;
                }
                if p.entry.loc.is_empty() {
                    p.entry.line = line;
                }
                self.sink.entry(p.entry);
            }
            Tag::Root | Tag::Channel | Tag::Publication | Tag::Other => {}
        }
    }

    fn date(&mut self, value: &str, rfc822: bool) -> Option<DateTime> {
        let parsed = if rfc822 {
            DateTime::parse_rfc822(value).or_else(|| DateTime::parse_w3c(value))
        } else {
            DateTime::parse_w3c(value)
        };
        match parsed {
            None => {
                let shown: String = value.chars().take(64).collect();
                let message = format!("{shown:?} is not a W3C datetime; the date was dropped");
                self.sink.diag(SitemapCode::InvalidLastmod, Some(self.field_line), message);
            }
            Some(DateTime { time: Some(t), .. }) if t.offset_minutes.is_none() && !rfc822 => {
                let message = format!("{value:?} has a time but no zone; read as UTC");
                self.sink.diag(SitemapCode::LastmodWithoutTimezone, Some(self.field_line), message);
            }
            Some(_) => {}
        }
        parsed
    }

    fn field(&mut self, field: Field, value: &str) {
        let line = self.field_line;
        let some = || (!value.is_empty()).then(|| value.to_string());
        match field {
            Field::Lastmod | Field::RssPubDate | Field::Published if value.is_empty() => {}
            Field::Lastmod | Field::RssPubDate => {
                let date = self.date(value, field == Field::RssPubDate);
                if let Some(p) = self.pending.as_mut() {
                    p.entry.lastmod = date.or(p.entry.lastmod);
                }
            }
            Field::Published => {
                let date = self.date(value, false);
                if let Some(p) = self.pending.as_mut() {
                    p.published = date;
                }
            }
            Field::Changefreq => {
                let parsed = ChangeFreq::parse(value);
                if parsed.is_none() {
                    let message = format!("changefreq {value:?} is not a protocol value");
                    self.sink.diag(SitemapCode::InvalidChangefreq, Some(line), message);
                }
                if let Some(p) = self.pending.as_mut() {
                    p.entry.changefreq = parsed;
                }
            }
            Field::Priority => {
                let parsed = value.parse::<f32>().ok().filter(|p| (0.0..=1.0).contains(p));
                if parsed.is_none() {
                    let message = format!("priority {value:?} is not a number from 0.0 to 1.0");
                    self.sink.diag(SitemapCode::InvalidPriority, Some(line), message);
                }
                if let Some(p) = self.pending.as_mut() {
                    p.entry.priority = parsed;
                }
            }
            Field::Loc | Field::RssLink | Field::Title | Field::RssGuid => {
                let Some(p) = self.pending.as_mut() else { return };
                match field {
                    Field::Title => p.entry.title = some(),
                    Field::RssGuid => p.guid = some(),
                    _ if p.entry.loc.is_empty() => {
                        p.entry.loc = value.to_string();
                        p.entry.line = line;
                    }
                    _ => {}
                }
            }
            Field::ImageLoc | Field::ImageCaption | Field::ImageTitle | Field::ImageGeo | Field::ImageLicense => {
                let Some(image) = self.image.as_mut() else { return };
                match field {
                    Field::ImageLoc => image.loc = value.to_string(),
                    Field::ImageCaption => image.caption = some(),
                    Field::ImageTitle => image.title = some(),
                    Field::ImageGeo => image.geo_location = some(),
                    _ => image.license = some(),
                }
            }
            Field::VideoDate => {
                let date = DateTime::parse_w3c(value);
                if let Some(video) = self.video.as_mut() {
                    video.publication_date = date;
                }
            }
            Field::NewsDate => {
                let date = DateTime::parse_w3c(value);
                if let Some(news) = self.news.as_mut() {
                    news.publication_date = date;
                }
            }
            Field::VideoThumbnail
            | Field::VideoTitle
            | Field::VideoDescription
            | Field::VideoContent
            | Field::VideoPlayer
            | Field::VideoDuration => {
                let Some(video) = self.video.as_mut() else { return };
                match field {
                    Field::VideoThumbnail => video.thumbnail_loc = some(),
                    Field::VideoTitle => video.title = some(),
                    Field::VideoDescription => video.description = some(),
                    Field::VideoContent => video.content_loc = some(),
                    Field::VideoPlayer => video.player_loc = some(),
                    _ => video.duration = value.parse().ok(),
                }
            }
            Field::NewsName | Field::NewsLanguage | Field::NewsTitle | Field::NewsKeywords => {
                let Some(news) = self.news.as_mut() else { return };
                match field {
                    Field::NewsName => news.publication_name = some(),
                    Field::NewsLanguage => news.language = some(),
                    Field::NewsTitle => news.title = some(),
                    _ => news.keywords = some(),
                }
            }
        }
    }
}

fn root_name(kind: SitemapKind) -> &'static str {
    match kind {
        SitemapKind::Index => "sitemapindex",
        _ => "urlset",
    }
}
