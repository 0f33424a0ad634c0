//! What the process itself may hold, read from the operating system.
//!
//! Sockets and files come out of one per-process budget
//! (`RLIMIT_NOFILE`). The services size their connection caps from it, so
//! that running out is back-pressure here and never an error that could be
//! taken for a site's answer.

/// The process's open-file limit (the soft `RLIMIT_NOFILE`), or `None`
/// when it cannot be read or is unlimited.
///
/// ```
/// if let Some(limit) = webcanon_client::open_file_limit() {
///     assert!(limit > 0);
/// }
/// ```
pub fn open_file_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        rustix::process::getrlimit(rustix::process::Resource::Nofile).current
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Whether `err` is the machine running out of something (descriptors,
/// buffers, local ports, memory) rather than anything a remote host did:
/// `EMFILE`, `ENFILE`, `ENOBUFS`, `ENOMEM`, `EADDRNOTAVAIL`.
pub fn is_local_exhaustion(err: &std::io::Error) -> bool {
    #[cfg(unix)]
    {
        use rustix::io::Errno;
        let Some(code) = err.raw_os_error() else {
            return false;
        };
        let errno = Errno::from_raw_os_error(code);
        [Errno::MFILE, Errno::NFILE, Errno::NOBUFS, Errno::NOMEM, Errno::ADDRNOTAVAIL].contains(&errno)
    }
    #[cfg(not(unix))]
    {
        let _ = err;
        false
    }
}

/// The first local exhaustion ([`is_local_exhaustion`]) anywhere in
/// `err`'s chain of causes.
pub fn local_exhaustion_in<'a>(err: &'a (dyn std::error::Error + 'static)) -> Option<&'a std::io::Error> {
    let mut source = Some(err);
    while let Some(cause) = source {
        if let Some(io) = cause.downcast_ref::<std::io::Error>()
            && is_local_exhaustion(io)
        {
            return Some(io);
        }
        source = cause.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptor_exhaustion_is_local_and_a_refusal_is_not() {
        #[cfg(unix)]
        {
            assert!(is_local_exhaustion(&std::io::Error::from_raw_os_error(rustix::io::Errno::MFILE.raw_os_error())));
            assert!(is_local_exhaustion(&std::io::Error::from_raw_os_error(
                rustix::io::Errno::ADDRNOTAVAIL.raw_os_error()
            )));
            assert!(!is_local_exhaustion(&std::io::Error::from_raw_os_error(
                rustix::io::Errno::CONNREFUSED.raw_os_error()
            )));
        }
        assert!(!is_local_exhaustion(&std::io::Error::other("no code")));
    }
}
