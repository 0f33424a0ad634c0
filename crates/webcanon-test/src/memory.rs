//! Memory figures of a process, read from `/proc/PID/status` (Linux), for
//! the tests that hold a stated memory ceiling.

/// A figure of process `pid` (a number, or `self`) in KiB: `VmRSS` for its
/// resident memory now, `VmHWM` for its peak; `None` when the process or
/// the line is gone.
pub fn status_kib(pid: &str, key: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find_map(|l| l.strip_prefix(key)?.strip_prefix(':')?.split_whitespace().next()?.parse().ok())
}

/// This process's peak resident memory in KiB.
///
/// # Panics
/// Where `/proc/self/status` does not give it (a test of a ceiling must
/// not pass for want of a figure).
pub fn peak_kib() -> u64 {
    status_kib("self", "VmHWM").expect("VmHWM in /proc/self/status")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_has_a_peak_at_least_its_resident_memory() {
        let now = status_kib("self", "VmRSS").unwrap();
        assert!(peak_kib() >= now && now > 0);
        assert_eq!(status_kib("self", "NoSuchLine"), None);
    }
}
