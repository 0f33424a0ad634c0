//! Writes past the process's file-size limit (`ulimit -f`) as errors.
//!
//! By default the kernel kills a process with SIGXFSZ when a write would
//! take a file past the limit, and the user sees no message at all. With
//! the signal handled, the write fails with EFBIG instead
//! ([`std::io::ErrorKind::FileTooLarge`]), and the command reports it like
//! any other write error: the file's path and "File too large".

/// Handles SIGXFSZ for the rest of the process (a flag nobody reads: the
/// point is that the signal no longer kills). Failing to install the
/// handler leaves the default, which is no worse than before.
pub fn report_oversized_writes() {
    #[cfg(unix)]
    {
        use std::sync::Arc;
        use std::sync::atomic::AtomicBool;
        let _ = signal_hook::flag::register(signal_hook::consts::SIGXFSZ, Arc::new(AtomicBool::new(false)));
    }
}

/// Whether `err` is a write that went past the file-size limit.
pub fn is_file_too_large(err: &std::io::Error) -> bool {
    err.kind() == std::io::ErrorKind::FileTooLarge
}

/// The hint after such an error.
pub const HINT: &str = "the process's file-size limit (`ulimit -f`) stopped the write: raise it, or write to a \
                        place where the file fits";
