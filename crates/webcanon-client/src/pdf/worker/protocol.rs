//! The bytes between the parent and a worker (the module docs of
//! [`worker`](super) describe them): the request, and the answer's frames
//! written and read, each read within its cap.

use std::io::{self, Read, Write};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncRead, AsyncReadExt};
use webcanon_extract::pdf::{PageCap, PageSink, PdfCut, PdfError, PdfInfo, PdfLimits, Progress, SkippedPage};

use super::EXIT_PARENT_GONE;

/// The first bytes of a request.
pub const REQUEST_MAGIC: &[u8; 8] = b"WCPDF1\n\0";

/// The most bytes of the metadata frame and of the end frame.
pub const MAX_INFO_FRAME: u32 = 256 << 10;

/// The most bytes of the title and of the author a worker sends (cut at a
/// character boundary).
pub const MAX_INFO_TEXT: usize = 64 << 10;

/// The most bytes of one page's text: the characters a page may make
/// ([`MAX_PAGE_CHARS`](webcanon_extract::pdf::MAX_PAGE_CHARS)), each escaped, in
/// UTF-8's longest form.
pub const MAX_PAGE_FRAME: u32 = 16 << 20;

/// The most bytes of an answer, all frames together.
pub const MAX_ANSWER: u64 = 64 << 20;

const INFO: u8 = b'I';
const PAGE: u8 = b'P';
const SKIPPED: u8 = b'S';
const END: u8 = b'E';

/// What a request asks for.
#[derive(Debug)]
pub(super) struct Request {
    /// The conversion's limits.
    pub(super) limits: PdfLimits,
    /// The worker's address-space limit.
    pub(super) memory_limit: u64,
    /// The document.
    pub(super) document: Vec<u8>,
}

/// A request's head: everything but the document, which follows it.
pub(super) fn request_head(limits: &PdfLimits, memory_limit: u64, document_len: usize) -> Vec<u8> {
    let mut head = REQUEST_MAGIC.to_vec();
    let millis = u64::try_from(limits.time_limit.as_millis()).unwrap_or(u64::MAX);
    for field in [limits.max_pages as u64, millis, memory_limit, document_len as u64] {
        head.extend_from_slice(&field.to_le_bytes());
    }
    head
}

/// Reads a request; the document may be no longer than the address-space
/// limit it states.
pub(super) fn read_request(input: &mut impl Read) -> io::Result<Request> {
    let mut magic = [0; 8];
    input.read_exact(&mut magic)?;
    if &magic != REQUEST_MAGIC {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "not a PDF worker request"));
    }
    let mut field = || -> io::Result<u64> {
        let mut bytes = [0; 8];
        input.read_exact(&mut bytes)?;
        Ok(u64::from_le_bytes(bytes))
    };
    let (max_pages, millis, memory_limit, len) = (field()?, field()?, field()?, field()?);
    if len > memory_limit {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "a document larger than the memory limit"));
    }
    let mut document = Vec::new();
    input.take(len).read_to_end(&mut document)?;
    if document.len() as u64 != len {
        return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the document stops short"));
    }
    let limits = PdfLimits {
        max_pages: usize::try_from(max_pages).unwrap_or(usize::MAX),
        time_limit: Duration::from_millis(millis),
    };
    Ok(Request { limits, memory_limit, document })
}

/// The metadata frame's JSON.
#[derive(Debug, Serialize, Deserialize)]
struct InfoFrame {
    title: Option<String>,
    author: Option<String>,
    pages: usize,
}

/// How a reading ended: the end frame's JSON.
#[derive(Debug, Serialize, Deserialize)]
pub(super) enum Ending {
    /// Every page wanted was read.
    Read,
    /// Cut at the page limit.
    PagesCut,
    /// Cut at the time limit.
    TimeCut,
    /// Encrypted with a password.
    Encrypted,
    /// Not a readable PDF.
    Broken(String),
    /// No pages.
    NoPages,
    /// The reader panicked.
    ReaderFailed,
}

impl Ending {
    /// The ending of a reading's outcome.
    pub(super) fn of(outcome: &Result<Option<PdfCut>, PdfError>) -> Ending {
        match outcome {
            Ok(None) => Ending::Read,
            Ok(Some(PdfCut::Pages)) => Ending::PagesCut,
            Ok(Some(PdfCut::Time)) => Ending::TimeCut,
            Err(PdfError::Encrypted) => Ending::Encrypted,
            Err(PdfError::Broken(message)) => Ending::Broken(message.clone()),
            Err(PdfError::NoPages) => Ending::NoPages,
            Err(_) => Ending::ReaderFailed,
        }
    }

    /// The reading's outcome again.
    pub(super) fn outcome(self) -> Result<Option<PdfCut>, PdfError> {
        match self {
            Ending::Read => Ok(None),
            Ending::PagesCut => Ok(Some(PdfCut::Pages)),
            Ending::TimeCut => Ok(Some(PdfCut::Time)),
            Ending::Encrypted => Err(PdfError::Encrypted),
            Ending::Broken(message) => Err(PdfError::Broken(message)),
            Ending::NoPages => Err(PdfError::NoPages),
            Ending::ReaderFailed => Err(PdfError::ReaderFailed),
        }
    }
}

/// Writes one frame.
fn write_frame(out: &mut impl Write, kind: u8, payload: &[u8]) -> io::Result<()> {
    let len = u32::try_from(payload.len()).map_err(|_| io::Error::other("a frame over 4 GiB"))?;
    out.write_all(&[kind])?;
    out.write_all(&len.to_le_bytes())?;
    out.write_all(payload)?;
    out.flush()
}

/// `text` cut to at most `max` bytes at a character boundary.
fn cut(mut text: String, max: usize) -> String {
    if text.len() > max {
        let end = (0..=max).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
        text.truncate(end);
    }
    text
}

/// The worker's side: a [`PageSink`] that sends each thing read as a
/// frame. A write that fails means the parent is gone: the worker exits.
pub(super) struct FrameWriter<W: Write> {
    out: std::cell::RefCell<W>,
}

impl<W: Write> FrameWriter<W> {
    /// Frames written to `out`.
    pub(super) fn new(out: W) -> FrameWriter<W> {
        FrameWriter { out: std::cell::RefCell::new(out) }
    }

    fn send(&self, kind: u8, payload: &[u8]) {
        if write_frame(&mut *self.out.borrow_mut(), kind, payload).is_err() {
            std::process::exit(EXIT_PARENT_GONE);
        }
    }

    /// The end frame.
    pub(super) fn end(&self, ending: &Ending) {
        let json = serde_json::to_vec(ending).expect("an ending serializes");
        let json = if json.len() > MAX_INFO_FRAME as usize {
            serde_json::to_vec(&Ending::Broken(cut(String::from_utf8_lossy(&json).into_owned(), MAX_INFO_TEXT)))
                .expect("an ending serializes")
        } else {
            json
        };
        self.send(END, &json);
    }
}

impl<W: Write> PageSink for FrameWriter<W> {
    fn info(&self, info: PdfInfo) {
        let frame = InfoFrame {
            title: info.title.map(|t| cut(t, MAX_INFO_TEXT)),
            author: info.author.map(|a| cut(a, MAX_INFO_TEXT)),
            pages: info.pages,
        };
        self.send(INFO, &serde_json::to_vec(&frame).expect("metadata serializes"));
    }

    fn page(&self, text: String) {
        // A page's text is within the frame's cap by the page's character
        // cap; a page that is not would be a broken answer, so it goes as
        // far as the cap.
        let text = cut(text, MAX_PAGE_FRAME as usize);
        self.send(PAGE, text.as_bytes());
    }

    fn skipped(&self, page: SkippedPage) {
        let mut payload = (page.page as u64).to_le_bytes().to_vec();
        payload.push(match page.over {
            PageCap::Characters => b'C',
            PageCap::Content => b'B',
        });
        self.send(SKIPPED, &payload);
    }

    fn stopped(&self) -> bool {
        false
    }
}

/// Why an answer could not be read to its end.
#[derive(Debug)]
pub(super) enum AnswerError {
    /// The stream ended (or failed) before the end frame: the worker
    /// died, most likely.
    Ended,
    /// The bytes are not an answer.
    Garbled(String),
}

/// Reads an answer's frames into `sink` up to the end frame.
pub(super) async fn read_answer(input: &mut (impl AsyncRead + Unpin), sink: &Progress) -> Result<Ending, AnswerError> {
    let mut total: u64 = 0;
    let mut seen_info = false;
    loop {
        let mut head = [0; 5];
        input.read_exact(&mut head).await.map_err(|_| AnswerError::Ended)?;
        let kind = head[0];
        let len = u32::from_le_bytes([head[1], head[2], head[3], head[4]]);
        let cap = match kind {
            INFO if !seen_info => MAX_INFO_FRAME,
            PAGE | SKIPPED if seen_info => MAX_PAGE_FRAME,
            END => MAX_INFO_FRAME,
            other => return Err(AnswerError::Garbled(format!("a frame of kind {other} where it cannot be"))),
        };
        total = total.saturating_add(5 + u64::from(len));
        if len > cap || total > MAX_ANSWER {
            return Err(AnswerError::Garbled(format!("a frame of {len} bytes, past the answer's caps")));
        }
        let mut payload = vec![0; len as usize];
        input.read_exact(&mut payload).await.map_err(|_| AnswerError::Ended)?;
        let garbled = |what: &str| AnswerError::Garbled(format!("{what} that cannot be read"));
        match kind {
            INFO => {
                let info: InfoFrame = serde_json::from_slice(&payload).map_err(|_| garbled("metadata"))?;
                sink.info(PdfInfo {
                    title: info.title,
                    author: info.author,
                    pages: info.pages,
                    pages_read: 0,
                    pages_skipped: Vec::new(),
                });
                seen_info = true;
            }
            PAGE => sink.page(String::from_utf8(payload).map_err(|_| garbled("a page's text"))?),
            SKIPPED => {
                let [n0, n1, n2, n3, n4, n5, n6, n7, over] = payload[..] else {
                    return Err(garbled("a page left out"));
                };
                let over = match over {
                    b'C' => PageCap::Characters,
                    b'B' => PageCap::Content,
                    _ => return Err(garbled("a page left out")),
                };
                let page = usize::try_from(u64::from_le_bytes([n0, n1, n2, n3, n4, n5, n6, n7]))
                    .map_err(|_| garbled("a page number"))?;
                sink.skipped(SkippedPage { page, over });
            }
            _ => return serde_json::from_slice(&payload).map_err(|_| garbled("an ending")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(frames: &[(u8, &[u8])]) -> Vec<u8> {
        let mut out = Vec::new();
        for (kind, payload) in frames {
            write_frame(&mut out, *kind, payload).unwrap();
        }
        out
    }

    async fn read(bytes: Vec<u8>) -> (Result<Ending, AnswerError>, Progress) {
        let progress = Progress::default();
        let outcome = read_answer(&mut bytes.as_slice(), &progress).await;
        (outcome, progress)
    }

    #[tokio::test]
    async fn frames_written_by_the_worker_are_read_back() {
        let writer = FrameWriter::new(Vec::new());
        writer.info(PdfInfo { title: Some("T".into()), pages: 3, ..PdfInfo::default() });
        writer.page("one".into());
        writer.skipped(SkippedPage { page: 2, over: PageCap::Content });
        writer.end(&Ending::TimeCut);
        let (ending, progress) = read(writer.out.into_inner()).await;
        assert!(matches!(ending, Ok(Ending::TimeCut)), "{ending:?}");
        assert_eq!(progress.pages_so_far(), ["one", ""]);
        assert_eq!(progress.info_so_far().title.as_deref(), Some("T"));
        assert_eq!(progress.skipped_so_far(), [SkippedPage { page: 2, over: PageCap::Content }]);
    }

    #[tokio::test]
    async fn answers_out_of_protocol_are_refused_before_their_bytes_are_read() {
        let info = br#"{"title":null,"author":null,"pages":1}"#;
        let cases: &[(&str, Vec<u8>)] = &[
            ("a page before the metadata", answer(&[(PAGE, b"x")])),
            ("an unknown kind", answer(&[(INFO, info), (b'Z', b"")])),
            ("metadata twice", answer(&[(INFO, info), (INFO, info)])),
            ("text that is not UTF-8", answer(&[(INFO, info), (PAGE, b"\xff")])),
            ("a page left out without its cap", answer(&[(INFO, info), (SKIPPED, b"12345678")])),
            ("an ending that is not one", answer(&[(END, b"{}")])),
        ];
        for (what, bytes) in cases {
            let (outcome, _) = read(bytes.clone()).await;
            assert!(matches!(outcome, Err(AnswerError::Garbled(_))), "{what}: {outcome:?}");
        }
        // A frame that claims 4 GiB: refused on its head alone.
        let mut huge = answer(&[(INFO, info)]);
        huge.extend_from_slice(&[PAGE, 0xff, 0xff, 0xff, 0xff]);
        assert!(matches!(read(huge).await.0, Err(AnswerError::Garbled(_))));
        // Frames within their caps, past the answer's.
        let page = vec![b'x'; MAX_PAGE_FRAME as usize];
        let mut many = answer(&[(INFO, info)]);
        for _ in 0..=(MAX_ANSWER / u64::from(MAX_PAGE_FRAME)) {
            many.extend(answer(&[(PAGE, &page)]));
        }
        assert!(matches!(read(many).await.0, Err(AnswerError::Garbled(_))));
        let (cut_short, progress) = read(answer(&[(INFO, info), (PAGE, b"one")])).await;
        assert!(matches!(cut_short, Err(AnswerError::Ended)));
        assert_eq!(progress.pages_so_far(), ["one"]);
    }

    #[test]
    fn a_request_is_read_back_and_a_document_past_the_memory_limit_refused() {
        let limits = PdfLimits { max_pages: 7, time_limit: Duration::from_millis(1_500) };
        let mut bytes = request_head(&limits, 1 << 20, 5);
        bytes.extend_from_slice(b"%PDF-");
        let request = read_request(&mut bytes.as_slice()).unwrap();
        assert_eq!(
            (request.limits, request.memory_limit, request.document.as_slice()),
            (limits, 1 << 20, &b"%PDF-"[..])
        );
        let mut over = request_head(&limits, 4, 5);
        over.extend_from_slice(b"%PDF-");
        assert!(read_request(&mut over.as_slice()).is_err());
        assert!(read_request(&mut &b"GET / HTTP/1.1\r\n"[..]).is_err());
        assert!(read_request(&mut &bytes[..bytes.len() - 1]).is_err());
    }
}
