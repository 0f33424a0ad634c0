//! The parent's side: start a worker under the conversion permit, send
//! the request, read the pages as they come, kill the worker at the time
//! limit, and say what a worker that died died of.

use std::process::ExitStatus;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use webcanon_extract::pdf::{ConvertedPdf, PdfCut, PdfError, PdfLimits, Progress, ReaderDeath};

use super::PdfWorker;
use super::protocol::{AnswerError, read_answer, request_head};
use crate::conversion::conversion_permit;

/// The most of a worker's standard error kept (to tell what it died of);
/// the rest is read and dropped.
const STDERR_KEPT: usize = 4 << 10;

/// How long a worker that has sent its last frame may take to exit before
/// it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(1);

/// Converts `bytes` in a worker started by `worker`, within `limits`.
pub(in crate::pdf) async fn convert_in_worker(
    worker: &PdfWorker,
    bytes: &[u8],
    limits: PdfLimits,
) -> Result<ConvertedPdf, PdfError> {
    let permit = conversion_permit().await;
    let mut child = worker.command().spawn().map_err(|e| PdfError::WorkerUnavailable(e.to_string()))?;
    let (Some(mut stdin), Some(mut stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(PdfError::WorkerUnavailable("its standard streams are not piped".into()));
    };
    let stderr = tokio::spawn(kept_stderr(stderr));
    let progress = Progress::default();
    let head = request_head(&limits, worker.limit(), bytes.len());
    // Standard input stays open until the answer is in: its end tells the
    // worker to exit.
    let exchange = async {
        let sent = async {
            stdin.write_all(&head).await?;
            stdin.write_all(bytes).await?;
            stdin.flush().await
        };
        // A worker that stops reading has died or answered early: what it
        // wrote says which.
        let _ = sent.await;
        read_answer(&mut stdout, &progress).await
    };
    let answer = tokio::time::timeout(limits.time_limit, exchange).await;
    drop(stdin);
    let result = match answer {
        Err(_) => {
            // At once, so that it holds no permit past the answer.
            let _ = child.start_kill();
            let _ = child.wait().await;
            // Pages read by then come back; a document not even opened by
            // then is one the reader could not read in time.
            if progress.info_so_far().pages == 0 {
                Err(PdfError::ReaderDied(ReaderDeath::OutOfTime))
            } else {
                Ok(progress.finish(Some(PdfCut::Time)))
            }
        }
        Ok(Ok(ending)) => {
            if tokio::time::timeout(EXIT_GRACE, child.wait()).await.is_err() {
                let _ = child.start_kill();
                let _ = child.wait().await;
            }
            ending.outcome().map(|cut| progress.finish(cut))
        }
        Ok(Err(failure)) => {
            if matches!(failure, AnswerError::Garbled(_)) {
                let _ = child.start_kill();
            }
            let status = child.wait().await;
            let stderr = stderr.await.unwrap_or_default();
            Err(PdfError::ReaderDied(death(failure, status.ok(), &stderr)))
        }
    };
    drop(permit);
    result
}

/// The first [`STDERR_KEPT`] bytes of a worker's standard error, the rest
/// read to its end and dropped (so that the worker never blocks on it).
async fn kept_stderr(mut stderr: impl AsyncRead + Unpin) -> String {
    let mut kept = Vec::new();
    let mut buffer = [0; 1024];
    while let Ok(n) = stderr.read(&mut buffer).await {
        if n == 0 {
            break;
        }
        let room = STDERR_KEPT.saturating_sub(kept.len());
        kept.extend_from_slice(&buffer[..n.min(room)]);
    }
    String::from_utf8_lossy(&kept).into_owned()
}

/// What a worker that gave no complete answer died of, from its exit and
/// the words the Rust runtime leaves on standard error.
fn death(failure: AnswerError, status: Option<ExitStatus>, stderr: &str) -> ReaderDeath {
    if let AnswerError::Garbled(what) = failure {
        return ReaderDeath::BadAnswer(what);
    }
    if stderr.contains("memory allocation of") || stderr.contains("out of memory") {
        return ReaderDeath::OutOfMemory;
    }
    if stderr.contains("has overflowed its stack") {
        return ReaderDeath::Crashed("a stack overflow".into());
    }
    match status.and_then(|s| signal(&s)) {
        Some(signal) if signal == cpu_signal() => ReaderDeath::OutOfTime,
        Some(signal) => ReaderDeath::Crashed(format!("signal {signal}")),
        None => ReaderDeath::Crashed(match status.and_then(|s| s.code()) {
            Some(code) => format!("exit status {code}"),
            None => "no exit status".into(),
        }),
    }
}

/// The signal that ended a process.
#[cfg(unix)]
fn signal(status: &ExitStatus) -> Option<i32> {
    std::os::unix::process::ExitStatusExt::signal(status)
}

#[cfg(not(unix))]
fn signal(_status: &ExitStatus) -> Option<i32> {
    None
}

/// The signal of a spent CPU-time limit (`SIGXCPU`).
#[cfg(unix)]
fn cpu_signal() -> i32 {
    rustix::process::Signal::XCPU.as_raw()
}

#[cfg(not(unix))]
fn cpu_signal() -> i32 {
    -1
}
