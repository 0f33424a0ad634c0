//! The worker's side: limit this process, read the request, read the
//! document on a thread with a large stack, send what it reads.

use std::io::{self, BufWriter, Read};
use std::time::Duration;

use webcanon_extract::pdf::extract_into;

use super::protocol::{Ending, FrameWriter, read_request};
use super::{EXIT_PARENT_GONE, WORKER_STACK};

/// The exit status of a worker given a request it cannot read, or that
/// could not limit itself.
const EXIT_BAD_REQUEST: u8 = 2;

/// The CPU time a worker may use beyond its wall-clock limit before the
/// system stops it (`SIGXCPU`, then `SIGKILL` a second later): a backstop
/// for a parent that could not kill it.
const CPU_GRACE: Duration = Duration::from_secs(2);

/// Runs this process as a PDF worker: reads one request on standard input,
/// answers on standard output (the protocol of [`worker`](super)), and
/// returns the exit status (0 once it has answered). A program that starts workers
/// ([`PdfWorker`](super::PdfWorker)) calls it first thing for the worker's
/// arguments, before it starts threads or runtimes of its own.
pub fn run_worker() -> u8 {
    let mut input = io::stdin();
    let request = match read_request(&mut input) {
        Ok(request) => request,
        Err(e) => {
            eprintln!("webcanon pdf worker: {e}");
            return EXIT_BAD_REQUEST;
        }
    };
    if let Err(e) = limit_self(request.memory_limit, request.limits.time_limit) {
        eprintln!("webcanon pdf worker: cannot limit itself: {e}");
        return EXIT_BAD_REQUEST;
    }
    // The parent holds standard input open until it has the answer: its
    // end means the parent is gone, or done.
    let watching = std::thread::Builder::new().name("pdf-worker-stdin".into()).spawn(move || {
        let mut rest = [0; 64];
        while matches!(input.read(&mut rest), Ok(n) if n > 0) {}
        std::process::exit(EXIT_PARENT_GONE);
    });
    if let Err(e) = watching {
        eprintln!("webcanon pdf worker: cannot start: {e}");
        return EXIT_BAD_REQUEST;
    }
    let reading = std::thread::Builder::new().name("pdf-worker".into()).stack_size(WORKER_STACK).spawn(move || {
        let writer = FrameWriter::new(BufWriter::new(io::stdout()));
        let outcome = extract_into(request.document, &request.limits, &writer);
        writer.end(&Ending::of(&outcome));
    });
    match reading.map(std::thread::JoinHandle::join) {
        Ok(Ok(())) => 0,
        _ => 1,
    }
}

/// Limits this process's address space to `memory` bytes and its CPU time
/// to `time` and [`CPU_GRACE`].
#[cfg(unix)]
fn limit_self(memory: u64, time: Duration) -> io::Result<()> {
    use rustix::process::{Resource, Rlimit, setrlimit};
    setrlimit(Resource::As, Rlimit { current: Some(memory), maximum: Some(memory) })?;
    let seconds = (time + CPU_GRACE).as_secs().max(1);
    setrlimit(Resource::Cpu, Rlimit { current: Some(seconds), maximum: Some(seconds + 1) })?;
    Ok(())
}

/// Elsewhere the worker still keeps the conversion out of the parent's
/// process, without limits of its own.
#[cfg(not(unix))]
fn limit_self(_memory: u64, _time: Duration) -> io::Result<()> {
    Ok(())
}
