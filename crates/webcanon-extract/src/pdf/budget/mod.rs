//! What a page can cost the reader, bounded before the reader is asked for
//! it.
//!
//! `pdf_oxide` hands over a page's characters all at once, each a record of
//! well over a hundred bytes, and holds the page's decoded content while it
//! reads it; a caller can cap neither. So before a page is read, its content
//! streams and the form XObjects they draw are inflated as a stream and
//! lexed on the fly, keeping nothing of the bytes, into two upper bounds:
//! the characters the reader can make of the page, and the decoded bytes it
//! has to parse for it. A page over [`MAX_PAGE_CHARS`](caps::MAX_PAGE_CHARS) or
//! [`MAX_PAGE_CONTENT`](caps::MAX_PAGE_CONTENT) is not read.
//!
//! The bounds follow what `pdf_oxide` 0.3.78 does with a page:
//! - every character comes from a code in a string operand (`Tj`, `TJ`,
//!   `'`, `"`, an inline `/ActualText`), a code takes at least one byte of
//!   it, and one code becomes at most [`CHARS_PER_CODE`](caps::CHARS_PER_CODE) characters; a
//!   number in a `TJ` array can add one space; a marked-content sequence
//!   named by the resources' `/Properties` can add that entry's
//!   `/ActualText`;
//! - strings are counted wherever they stand, in comments and inline image
//!   data too: in a stream over 256 KiB the reader looks for `BT` at any
//!   token boundary, and after a parse error it starts again one byte
//!   further on, so it can read strings in either;
//! - a form XObject is read each time it is drawn (`/Name Do`), up to
//!   [`MAX_FORM_DEPTH`](caps::MAX_FORM_DEPTH) forms deep, with its own strings and forms; one it
//!   would skip (not a form, no fonts nor forms in its resources, not
//!   loadable) counts nothing.
//!
//! Streams are decrypted with the reader's own handler where the document
//! is encrypted. A FlateDecode or LZWDecode stream (or one without a
//! filter) is never held decoded; any other filter, a predictor or a
//! corrupt stream is
//! decoded by the reader's decoder, but only once an upper bound on its
//! decoded size from the filters' largest expansion is within what is left
//! of [`MAX_PAGE_CONTENT`](caps::MAX_PAGE_CONTENT).

pub(super) mod caps;
mod cmaps;
mod inflate;
mod lexer;
mod names;
mod streams;

use std::collections::HashMap;
use std::rc::Rc;

use pdf_oxide::PdfDocument;
use pdf_oxide::object::{Object, ObjectRef};

use crate::pdf::outcome::PageCap;
use caps::{CHUNK, MAX_FORM_DEPTH, MAX_PAGE_CHARS, MAX_PAGE_CONTENT, MAX_REMEMBERED};
use inflate::{Inflated, inflate, unlzw};
use lexer::Lexer;
use names::Names;
use streams::{Decrypt, canonical_filter, decoded_bound, decryption, filter_names, has_predictor, resolve};

/// How a form XObject's names are looked up, once it is known to be one
/// the reader reads.
#[derive(Debug, Clone, Copy)]
enum Head {
    /// Not a form, or one the reader skips: it counts nothing.
    NotText,
    /// Its own resources (a context's index).
    Own(usize),
    /// Those of whatever draws it.
    Inherit,
}

/// What identifies a resource dictionary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum ContextKey {
    /// An indirect one.
    Reference(ObjectRef),
    /// A page's own (by index).
    Page(usize),
    /// A form's own.
    Form(ObjectRef),
}

/// A form, read once: its own bound for one drawing and what it draws.
#[derive(Debug)]
struct FormBound {
    /// Characters one drawing can make, its own forms aside.
    chars: u64,
    /// Its decoded bytes.
    size: u64,
    /// Each target it draws (an index in context `names`) and how often.
    calls: Vec<(usize, u64)>,
    /// The context its names are looked up in.
    names: usize,
}

/// What a form comes to: nothing to read, a bound, or over a cap by
/// itself.
type FormOutcome = Result<Option<Rc<FormBound>>, PageCap>;

/// What a page can cost, at most.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct PageBound {
    /// Characters the reader can make of it.
    pub(super) chars: u64,
    /// Decoded bytes it parses for it: the page's content and each drawing
    /// of a form.
    pub(super) content: u64,
}

/// The pre-check of one open document's pages: what [`Budget::page`]
/// allows the reader to read. It remembers the forms and resource
/// dictionaries it has read (forms are often drawn on every page), up to
/// [`MAX_REMEMBERED`](caps::MAX_REMEMBERED) of each.
pub(super) struct Budget {
    /// How streams are decrypted.
    decrypt: Decrypt,
    /// The resource dictionaries read.
    contexts: Vec<Rc<Names>>,
    /// Each one's index.
    context_keys: HashMap<ContextKey, usize>,
    /// How each XObject's names are looked up.
    heads: HashMap<ObjectRef, Head>,
    /// Each form read, by the context its names are looked up in.
    forms: HashMap<(ObjectRef, usize), FormOutcome>,
    /// What each `/ToUnicode` CMap read costs.
    cmaps: HashMap<ObjectRef, Result<u64, PageCap>>,
}

impl Budget {
    /// The cost of the fonts of context `context`: each font's CMap, once
    /// for each font that names it.
    pub(super) fn fonts_cost(&mut self, doc: &PdfDocument, context: usize) -> Result<u64, PageCap> {
        let names = std::rc::Rc::clone(&self.contexts[context]);
        let mut total: u64 = 0;
        for &cmap in &names.to_unicode {
            let cost = match self.cmaps.get(&cmap) {
                Some(&known) => known,
                None => {
                    let cost = cmaps::cmap_cost(doc, &self.decrypt, cmap);
                    self.cmaps.insert(cmap, cost);
                    cost
                }
            }?;
            total = total.saturating_add(cost);
            if total > MAX_PAGE_CONTENT {
                return Err(PageCap::Content);
            }
        }
        Ok(total)
    }

    /// The pre-check of `doc`'s pages.
    pub(super) fn new(doc: &PdfDocument) -> Budget {
        Budget {
            decrypt: decryption(doc),
            contexts: Vec::new(),
            context_keys: HashMap::new(),
            heads: HashMap::new(),
            forms: HashMap::new(),
            cmaps: HashMap::new(),
        }
    }

    /// Whether page `index` (from 0) may be read: what it can cost, or the
    /// cap it is over. A page the reader cannot find or decode is allowed:
    /// it fails at no cost.
    pub(super) fn page(&mut self, doc: &PdfDocument, index: usize) -> Result<PageBound, PageCap> {
        if self.contexts.len() > MAX_REMEMBERED
            || self.forms.len() > MAX_REMEMBERED
            || self.heads.len() > MAX_REMEMBERED
            || self.cmaps.len() > MAX_REMEMBERED
        {
            self.cmaps.clear();
            self.contexts.clear();
            self.context_keys.clear();
            self.heads.clear();
            self.forms.clear();
        }
        let nothing = PageBound { chars: 0, content: 0 };
        let Ok(page) = doc.get_page(index) else { return Ok(nothing) };
        let Some(dict) = page.as_dict() else { return Ok(nothing) };
        let resources = dict.get("Resources");
        let key = match resources {
            Some(Object::Reference(r)) => ContextKey::Reference(*r),
            _ => ContextKey::Page(index),
        };
        let context = self.context(doc, key, resources);
        let names = Rc::clone(&self.contexts[context]);
        let mut lexer = Lexer::new(&names);
        self.page_content(doc, dict.get("Contents"), &mut lexer)?;
        lexer.finish();
        if let Some(cap) = lexer.over() {
            return Err(cap);
        }
        let (mut chars, mut size) = (lexer.chars(), lexer.size);
        // The fonts of the page and of each form with fonts of its own,
        // counted once a page (the reader loads a font once a page).
        size = size.saturating_add(self.fonts_cost(doc, context)?);
        let mut fonts_counted = std::collections::HashSet::from([context]);
        if size > MAX_PAGE_CONTENT {
            return Err(PageCap::Content);
        }
        let mut drawn: HashMap<(ObjectRef, usize), u64> = HashMap::new();
        for (at, count) in lexer.calls() {
            *drawn.entry((names.targets[at], context)).or_default() += count;
        }
        // Forms drawn at depth 1 (by the page), 2 (by those), …: each
        // drawing counts, as the reader reads each.
        for depth in 1..=MAX_FORM_DEPTH {
            let mut next: HashMap<(ObjectRef, usize), u64> = HashMap::new();
            for ((target, caller), count) in drawn {
                let Some(form) = self.form(doc, target, caller)? else { continue };
                chars = chars.saturating_add(count.saturating_mul(form.chars));
                size = size.saturating_add(count.saturating_mul(form.size));
                if fonts_counted.insert(form.names) {
                    size = size.saturating_add(self.fonts_cost(doc, form.names)?);
                }
                if chars > MAX_PAGE_CHARS {
                    return Err(PageCap::Characters);
                }
                if size > MAX_PAGE_CONTENT {
                    return Err(PageCap::Content);
                }
                if depth < MAX_FORM_DEPTH {
                    let targets = &self.contexts[form.names].targets;
                    for &(at, n) in &form.calls {
                        let entry = next.entry((targets[at], form.names)).or_default();
                        *entry = entry.saturating_add(count.saturating_mul(n));
                    }
                }
            }
            if next.is_empty() {
                break;
            }
            drawn = next;
        }
        Ok(PageBound { chars, content: size })
    }

    /// The index of the context `key`, read from `resources` the first
    /// time.
    fn context(&mut self, doc: &PdfDocument, key: ContextKey, resources: Option<&Object>) -> usize {
        if let Some(&at) = self.context_keys.get(&key) {
            return at;
        }
        let at = self.contexts.len();
        self.contexts.push(Rc::new(Names::of(doc, resources)));
        self.context_keys.insert(key, at);
        at
    }

    /// Feeds a page's `/Contents` to `lexer` as the reader joins them (a
    /// newline after each stream of an array that decodes).
    fn page_content(&self, doc: &PdfDocument, contents: Option<&Object>, lexer: &mut Lexer) -> Result<(), PageCap> {
        let items = match contents {
            None | Some(Object::Null) => return Ok(()),
            Some(Object::Reference(r)) => {
                let Ok(loaded) = doc.load_object(*r) else { return Ok(()) };
                match loaded.as_array() {
                    Some(items) => items.clone(),
                    None => return self.stream(&loaded, Some(*r), lexer).map(drop),
                }
            }
            Some(Object::Array(items)) => items.clone(),
            Some(direct) => return self.stream(direct, None, lexer).map(drop),
        };
        for item in &items {
            let decoded = match item {
                Object::Null => continue,
                Object::Reference(r) => match doc.load_object(*r) {
                    Ok(loaded) => self.stream(&loaded, Some(*r), lexer)?,
                    Err(_) => false,
                },
                direct => self.stream(direct, None, lexer)?,
            };
            if decoded {
                lexer.feed(b"\n");
            }
        }
        Ok(())
    }

    /// How form `target` drawn from context `caller` counts.
    fn form(&mut self, doc: &PdfDocument, target: ObjectRef, caller: usize) -> FormOutcome {
        let context = match self.head(doc, target) {
            Head::NotText => return Ok(None),
            Head::Own(context) => context,
            Head::Inherit => caller,
        };
        if let Some(known) = self.forms.get(&(target, context)) {
            return known.clone();
        }
        let outcome = self.read_form(doc, target, context);
        self.forms.insert((target, context), outcome.clone());
        outcome
    }

    /// Reads form `target` with the names of `context`.
    fn read_form(&self, doc: &PdfDocument, target: ObjectRef, context: usize) -> FormOutcome {
        let Ok(form) = doc.load_object(target) else { return Ok(None) };
        let names = Rc::clone(&self.contexts[context]);
        let mut lexer = Lexer::new(&names);
        if !self.stream(&form, Some(target), &mut lexer)? {
            return Ok(None);
        }
        lexer.finish();
        if let Some(cap) = lexer.over() {
            return Err(cap);
        }
        Ok(Some(Rc::new(FormBound { chars: lexer.chars(), size: lexer.size, calls: lexer.calls(), names: context })))
    }

    /// How XObject `target`'s names are looked up, as the reader decides
    /// whether to read it.
    fn head(&mut self, doc: &PdfDocument, target: ObjectRef) -> Head {
        if let Some(&head) = self.heads.get(&target) {
            return head;
        }
        let head = self.read_head(doc, target);
        self.heads.insert(target, head);
        head
    }

    fn read_head(&mut self, doc: &PdfDocument, target: ObjectRef) -> Head {
        // The reader's own test first: it skips an image without loading it.
        if !doc.is_form_xobject(target) {
            return Head::NotText;
        }
        let Ok(object) = doc.load_object(target) else { return Head::NotText };
        let Some(dict) = object.as_dict() else { return Head::NotText };
        if dict.get("Subtype").and_then(Object::as_name) != Some("Form") {
            return Head::NotText;
        }
        let Some(resources) = dict.get("Resources") else { return Head::Inherit };
        let resolved = resolve(doc, resources);
        if let Some(own) = resolved.as_ref().and_then(Object::as_dict)
            && !own.contains_key("Font")
            && !own.contains_key("XObject")
        {
            return Head::NotText;
        }
        let key = match resources {
            Object::Reference(r) => ContextKey::Reference(*r),
            _ => ContextKey::Form(target),
        };
        Head::Own(self.context(doc, key, Some(resources)))
    }

    /// Feeds a stream's decoded bytes to `lexer` (stopping once it is over
    /// a cap): whether the reader decodes it.
    fn stream(&self, object: &Object, reference: Option<ObjectRef>, lexer: &mut Lexer) -> Result<bool, PageCap> {
        let (dict, data) = match object {
            Object::Stream { dict, data } => (dict, data),
            // The reader takes a dictionary for an empty stream.
            Object::Dictionary(_) => return Ok(true),
            _ => return Ok(false),
        };
        // Object and cross-reference streams are never encrypted.
        let never_encrypted = dict.get("Type").and_then(Object::as_name).is_some_and(|t| t == "ObjStm" || t == "XRef");
        let decrypted;
        let plain: &[u8] = match (&self.decrypt, reference) {
            (Decrypt::Handler(handler), Some(r)) if !never_encrypted => {
                match handler.decrypt_stream(data, r.id, u32::from(r.r#gen)) {
                    Ok(bytes) => {
                        decrypted = bytes;
                        &decrypted
                    }
                    Err(_) => return Ok(false),
                }
            }
            (Decrypt::Unavailable, Some(_)) if !never_encrypted => return Err(PageCap::Content),
            _ => data,
        };
        let filters = filter_names(dict);
        if filters.is_empty() {
            for piece in plain.chunks(CHUNK) {
                lexer.feed(piece);
                if let Some(cap) = lexer.over() {
                    return Err(cap);
                }
            }
            return Ok(true);
        }
        if let [only] = filters.as_slice()
            && canonical_filter(only) == Some("FlateDecode")
            && !has_predictor(dict)
        {
            let before = lexer.clone();
            match inflate(plain, lexer) {
                Inflated::Done => return Ok(true),
                Inflated::Over(cap) => return Err(cap),
                // The reader's decoder tries harder: it decides.
                Inflated::Corrupt => *lexer = before,
            }
        }
        if let [only] = filters.as_slice()
            && canonical_filter(only) == Some("LZWDecode")
            && !has_predictor(dict)
        {
            // The reader's two decoders in its order: the code size
            // switched when the table is full, then one code early (the
            // `/EarlyChange` of most PDFs).
            for early in [false, true] {
                let before = lexer.clone();
                match unlzw(plain, early, lexer) {
                    Inflated::Done => return Ok(true),
                    Inflated::Over(cap) => return Err(cap),
                    Inflated::Corrupt => *lexer = before,
                }
            }
        }
        let left = MAX_PAGE_CONTENT.saturating_sub(lexer.size);
        if decoded_bound(&filters, plain.len() as u64) > left {
            return Err(PageCap::Content);
        }
        let copy = Object::Stream { dict: dict.clone(), data: plain.to_vec().into() };
        match copy.decode_stream_data() {
            Ok(bytes) => {
                lexer.feed(&bytes);
                lexer.over().map_or(Ok(true), Err)
            }
            Err(_) => Ok(false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use caps::CHARS_PER_CODE;
    use webcanon_test::pdf::{PdfSpec, characters};

    /// Names `/Fm1` and `/Fm2` of objects 5 and 6.
    fn two_forms() -> Names {
        let targets = vec![ObjectRef::new(5, 0), ObjectRef::new(6, 0)];
        let index = [("Fm1".to_string(), 0), ("Fm2".to_string(), 1)].into_iter().collect();
        Names { index, targets, long: Vec::new(), actual_text: 0, to_unicode: Vec::new() }
    }

    /// (string bytes, numbers in arrays, BDCs) of `content`, fed whole and
    /// fed a byte at a time (the counts must agree).
    fn lexed(content: &[u8]) -> (u64, u64, u64) {
        let names = Names::default();
        let mut whole = Lexer::new(&names);
        whole.feed(content);
        whole.finish();
        let mut bytes = Lexer::new(&names);
        for b in content {
            bytes.feed(std::slice::from_ref(b));
        }
        bytes.finish();
        assert_eq!(whole.chars(), bytes.chars(), "{}", String::from_utf8_lossy(content));
        (whole.string_bytes, whole.numbers, whole.bdc)
    }

    #[test]
    fn string_bytes_and_array_numbers_are_counted() {
        let cases: &[(&str, u64, u64)] = &[
            ("BT /F1 12 Tf 72 720 Td (Hello) Tj ET", 5, 0),
            ("(a(b)c) Tj", 5, 0),
            (r"(a\)b) Tj (c) Tj", 5, 0),
            (r"(a\\) Tj (b) Tj", 4, 0),
            (r"(\101\102) Tj", 8, 0),
            ("(one) ' 1 2 (two) \" ", 6, 0),
            ("<48656C6C6F> Tj", 5, 0),
            ("<4 8 6> Tj", 2, 0),
            ("<> Tj", 0, 0),
            ("<< /Length 5 /Name (inside) >> BDC", 6, 0),
            ("<</ActualText <FEFF0041>>> BDC", 4, 0),
            // Not hex: read whole, as a reader failing on it would.
            ("<zz 12> Tj", 5, 0),
            ("[(a) -250 (bc) 3.5 +1 .5] TJ", 3, 4),
            ("1 0 0 1 50 50 cm [3 2] 0 d 10 20 m", 0, 2),
            ("[[1] 2] 3", 0, 2),
            ("[/F1 1] 2", 0, 1),
            ("] ] [1]", 0, 1),
            // Comments and inline images are read for strings all the same.
            ("% a comment (seven)\n(x) Tj", 6, 0),
            ("[(a) % ]\n -500 (b)] TJ", 2, 1),
            ("BI /W 1 /H 1 /BPC 8 /CS /G ID (xy) EI", 2, 0),
            // Unterminated: to the end.
            ("(unterminated", 12, 0),
            ("<4142", 4, 0),
        ];
        for &(content, strings, numbers) in cases {
            let (s, n, _) = lexed(content.as_bytes());
            assert_eq!((s, n), (strings, numbers), "{content}");
        }
        assert_eq!(lexed(b"/P <</MCID 0>> BDC (a) Tj EMC /Span /P0 BDC EMC").2, 2);
    }

    #[test]
    fn the_character_bound_is_eight_a_code_and_one_a_number() {
        let names = Names { actual_text: 100, ..Names::default() };
        let mut lexer = Lexer::new(&names);
        lexer.feed(b"[(ab) -300 (c)] TJ /Span /P0 BDC");
        lexer.finish();
        assert_eq!(lexer.chars(), 3 * CHARS_PER_CODE + 1 + 100);
    }

    #[test]
    fn forms_drawn_by_name_are_counted() {
        let names = two_forms();
        let cases: &[(&str, &[(usize, u64)])] = &[
            ("/Fm1 Do /Fm1 Do q /Fm2 Do Q", &[(0, 2), (1, 1)]),
            ("/Fm1 5 Do", &[]),
            ("/Fm1 % the form\n Do", &[(0, 1)]),
            ("/Fm1%\nDo", &[(0, 1)]),
            ("(/Fm2 Do) Tj", &[(1, 1)]),
            ("(50%) Tj /Fm2 Do", &[(1, 1)]),
            ("/Fm#31 Do", &[(0, 1)]),
            ("/Im1 Do /Fm1Do /Fm1 Dox", &[]),
            ("/Fm1 Do", &[(0, 1)]),
        ];
        for &(content, calls) in cases {
            let mut lexer = Lexer::new(&names);
            lexer.feed(content.as_bytes());
            lexer.finish();
            assert_eq!(lexer.calls(), calls, "{content}");
            let mut bytes = Lexer::new(&names);
            for b in content.as_bytes() {
                bytes.feed(std::slice::from_ref(b));
            }
            bytes.finish();
            assert_eq!(bytes.calls(), calls, "{content}, a byte at a time");
        }
        let long = Names {
            index: [("F".repeat(300), 0)].into_iter().collect(),
            targets: vec![ObjectRef::new(5, 0)],
            long: vec![0],
            actual_text: 0,
            to_unicode: Vec::new(),
        };
        let mut lexer = Lexer::new(&long);
        lexer.feed(format!("/{} Do /{} Do", "F".repeat(300), "G".repeat(400)).as_bytes());
        lexer.finish();
        assert_eq!(lexer.calls(), [(0, 2)]);
    }

    #[test]
    fn lexing_is_linear() {
        for content in [vec![b'('; 4 << 20], vec![b'<'; 4 << 20], b"\\(".repeat(2 << 20), b"/Fm1 ".repeat(1 << 20)] {
            let names = two_forms();
            let started = std::time::Instant::now();
            let mut lexer = Lexer::new(&names);
            lexer.feed(&content);
            lexer.finish();
            assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());
        }
    }

    fn bound(pdf: &[u8], page: usize) -> Result<PageBound, PageCap> {
        let doc = PdfDocument::from_bytes(pdf.to_vec()).unwrap();
        Budget::new(&doc).page(&doc, page)
    }

    /// A hundred characters: 800 at most.
    const FORM: u64 = 100 * CHARS_PER_CODE;

    #[test]
    fn an_lzw_page_is_measured_by_decoding_it_piece_by_piece() {
        // Words that do not repeat much: well over the 16 KiB of LZW that
        // the bound from its largest expansion would let through.
        let mut content = b"BT /F1 10 Tf 72 720 Td\n".to_vec();
        let mut seed = 7u64;
        for _ in 0..4_000 {
            let word: String = (0..12)
                .map(|_| {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    char::from(b'a' + (seed >> 59) as u8 % 26)
                })
                .collect();
            content.extend_from_slice(format!("({word}) Tj\n").as_bytes());
        }
        content.extend_from_slice(b"ET");
        let pdf = PdfSpec::text(&[]).lzw_page(&content).build();
        assert!(pdf.len() > 40_000, "{}", pdf.len());
        let page = bound(&pdf, 0).unwrap();
        assert_eq!(page.content, content.len() as u64);
        assert_eq!(page.chars, 4_000 * 12 * CHARS_PER_CODE);
    }

    #[test]
    fn each_drawing_of_a_form_counts_its_characters() {
        let form = characters(100);
        let drawn = |content: &str| PdfSpec::text(&[]).form(&form).drawn_page(content.as_bytes()).build();
        let three = drawn("q /Fm1 Do Q q 1 0 0 1 0 10 cm /Fm1 Do Q /Fm1 Do /Im1 Do");
        assert_eq!(bound(&three, 0).unwrap().chars, 3 * FORM);
        let none = drawn("q 10 0 0 10 0 0 cm /Im1 Do Q");
        assert_eq!(bound(&none, 0).unwrap(), PageBound { chars: 0, content: 28 });
        let many = drawn(&"/Fm1 Do\n".repeat(2_000));
        assert_eq!(bound(&many, 0), Err(PageCap::Characters));
    }

    #[test]
    fn forms_within_forms_count_for_each_drawing_up_to_the_depth_limit() {
        let pdf = PdfSpec::text(&[])
            .form(&characters(100))
            .form(b"/Fm1 Do q 1 0 0 1 5 5 cm /Fm1 Do Q")
            .drawn_page(b"/Fm2 Do /Fm2 Do")
            .build();
        assert_eq!(bound(&pdf, 0).unwrap().chars, 4 * FORM);
        // A form that draws itself: read once a level, ten levels deep.
        let pdf =
            PdfSpec::text(&[]).form(b"BT /F1 1 Tf (x) Tj ET 1 0 0 1 1 1 cm /Fm1 Do").drawn_page(b"/Fm1 Do").build();
        assert_eq!(bound(&pdf, 0).unwrap().chars, MAX_FORM_DEPTH as u64 * CHARS_PER_CODE);
        // Twice a level: 2 + 4 + … + 1024 drawings.
        let pdf = PdfSpec::text(&[]).form(b"BT (x) Tj ET /Fm1 Do /Fm1 Do").drawn_page(b"/Fm1 Do /Fm1 Do").build();
        assert_eq!(bound(&pdf, 0).unwrap().chars, 2_046 * CHARS_PER_CODE);
    }

    #[test]
    fn content_drawn_again_and_again_counts_against_the_content_cap() {
        // One MiB of paths, no text, drawn a hundred times.
        let pdf =
            PdfSpec::text(&[]).form(&b"0 0 m 1 1 l S\n".repeat(75_000)).drawn_page(&b"/Fm1 Do ".repeat(100)).build();
        assert_eq!(bound(&pdf, 0), Err(PageCap::Content));
        let pdf =
            PdfSpec::text(&[]).form(&b"0 0 m 1 1 l S\n".repeat(75_000)).drawn_page(&b"/Fm1 Do ".repeat(10)).build();
        assert_eq!(bound(&pdf, 0).unwrap().content, 10 * 14 * 75_000 + 80);
    }

    #[test]
    fn pages_of_text_are_bounded_near_their_characters() {
        let pdf = PdfSpec::text(&[&["Hello, PDF."], &[]]).drawn_page(&characters(2_000_000)).build();
        assert_eq!(bound(&pdf, 0).unwrap().chars, 11 * CHARS_PER_CODE);
        assert_eq!(bound(&pdf, 1).unwrap().chars, 0);
        assert_eq!(bound(&pdf, 2), Err(PageCap::Characters));
    }
}
