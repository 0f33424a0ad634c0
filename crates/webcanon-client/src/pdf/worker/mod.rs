//! PDF conversion in a worker process: whatever a document does to the
//! reader (a stack overflow, memory without end, a walk of billions of
//! page-tree nodes), it does it to a child process under an address-space,
//! CPU-time and stack limit, never to the process that serves other
//! clients.
//!
//! One worker is started for each document ([`PdfWorker`] names the
//! command), under the conversion permit every HTML and PDF conversion
//! shares (one per core). Once it has the request, it limits itself
//! (`RLIMIT_AS` to [`PdfWorker::memory_limit`], `RLIMIT_CPU` to the time
//! limit and two seconds more), reads the document on a thread with a
//! stack of [`WORKER_STACK`] bytes, and sends each page as it is read.
//! At the wall-clock limit the parent kills it (`SIGKILL`) and keeps the
//! pages it has; a worker that dies (out of memory, out of CPU time, a
//! crash) or answers out of protocol is [`PdfError::ReaderDied`]. The
//! worker exits as soon as its standard input ends, so it never outlives
//! a parent that is gone.
//!
//! # Protocol
//!
//! The request, on the worker's standard input (integers little-endian):
//!
//! | bytes | field |
//! |---|---|
//! | 8 | [`REQUEST_MAGIC`] |
//! | 8 | the page limit ([`PdfLimits::max_pages`]) |
//! | 8 | the time limit in milliseconds |
//! | 8 | the address-space limit in bytes |
//! | 8 | the document's length `n` (at most the address-space limit) |
//! | `n` | the document |
//!
//! The parent keeps standard input open until it has the answer: its end
//! tells the worker to exit.
//!
//! The answer, on standard output: frames of one kind byte, a length
//! (4 bytes) and that many bytes, in this order: one `I` (the metadata as
//! JSON, at most [`MAX_INFO_FRAME`] bytes: title and author are cut to
//! [`MAX_INFO_TEXT`] bytes), then for each page read a `P` (its text,
//! UTF-8, at most [`MAX_PAGE_FRAME`] bytes) or an `S` (the page left out
//! for its cost: its number, 8 bytes, and `C` or `B` for the cap it is
//! over, characters or bytes), then one `E` (how the reading ended, as
//! JSON, at most [`MAX_INFO_FRAME`] bytes). An `E` may come alone, for a
//! document that could not be read. The parent reads at most
//! [`MAX_ANSWER`] bytes in all; a frame of another kind, out of order,
//! over its cap, or an answer that stops before its `E`, is
//! [`ReaderDeath::BadAnswer`] (or what the worker's exit says it died of).
//!
//! [`PdfError::ReaderDied`]: webcanon_extract::pdf::PdfError::ReaderDied
//! [`ReaderDeath::BadAnswer`]: webcanon_extract::pdf::ReaderDeath::BadAnswer
//! [`PdfLimits::max_pages`]: webcanon_extract::pdf::PdfLimits::max_pages

mod child;
mod parent;
mod protocol;

use std::ffi::OsString;
use std::path::PathBuf;

pub use child::run_worker;
pub(super) use parent::convert_in_worker;
pub use protocol::{MAX_ANSWER, MAX_INFO_FRAME, MAX_INFO_TEXT, MAX_PAGE_FRAME, REQUEST_MAGIC};

/// The stack of the worker's reading thread: the reader's own
/// ([`READER_STACK`](webcanon_extract::pdf::READER_STACK), 64 MiB), where
/// it recurses into nested objects.
pub const WORKER_STACK: usize = webcanon_extract::pdf::READER_STACK;

/// The exit status of a worker whose parent is gone (its standard input
/// ended, or its standard output is closed).
const EXIT_PARENT_GONE: i32 = 3;

/// The worker's default address-space limit: 1 GiB (the conversion's
/// stated ceiling of 512 MiB plus twice a 10 MiB file, and the address
/// space the program and its allocator reserve beyond what they use).
pub const DEFAULT_WORKER_MEMORY: u64 = 1 << 30;

/// The command that starts a PDF worker process, and the address space it
/// may take. The program must call [`run_worker`] (the `webcanon` binary
/// does with the hidden argument [`PdfWorker::CLI_ARGUMENT`]; the Python
/// wheel with `python -m webcanon._pdf_worker`).
///
/// ```
/// use webcanon_client::pdf::PdfWorker;
/// let worker = PdfWorker::new("/usr/bin/webcanon").arg(PdfWorker::CLI_ARGUMENT).memory_limit(512 << 20);
/// assert_eq!(worker.limit(), 512 << 20);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PdfWorker {
    program: PathBuf,
    args: Vec<OsString>,
    memory_limit: u64,
}

impl PdfWorker {
    /// The argument with which the `webcanon` binary runs as a PDF worker
    /// (it appears in no help, completion or manual page).
    pub const CLI_ARGUMENT: &'static str = "__pdf-worker";

    /// A worker started as `program`, with no arguments and
    /// [`DEFAULT_WORKER_MEMORY`].
    pub fn new(program: impl Into<PathBuf>) -> PdfWorker {
        PdfWorker { program: program.into(), args: Vec::new(), memory_limit: DEFAULT_WORKER_MEMORY }
    }

    /// The running executable with [`PdfWorker::CLI_ARGUMENT`]: the
    /// `webcanon` binary's own worker.
    ///
    /// # Errors
    /// When the running executable's path cannot be had.
    pub fn current_exe() -> std::io::Result<PdfWorker> {
        Ok(PdfWorker::new(std::env::current_exe()?).arg(PdfWorker::CLI_ARGUMENT))
    }

    /// One more argument.
    pub fn arg(mut self, arg: impl Into<OsString>) -> PdfWorker {
        self.args.push(arg.into());
        self
    }

    /// The address space the worker may take, in bytes (`RLIMIT_AS`).
    pub fn memory_limit(mut self, bytes: u64) -> PdfWorker {
        self.memory_limit = bytes;
        self
    }

    /// The address-space limit.
    pub fn limit(&self) -> u64 {
        self.memory_limit
    }

    /// The command, its standard streams piped, killed when dropped.
    fn command(&self) -> tokio::process::Command {
        let mut command = tokio::process::Command::new(&self.program);
        command
            .args(&self.args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            // mimalloc reserves 1 GiB of address space up front by default,
            // which the worker's address-space limit would refuse.
            .env("MIMALLOC_ARENA_RESERVE", "0")
            .kill_on_drop(true);
        command
    }
}
