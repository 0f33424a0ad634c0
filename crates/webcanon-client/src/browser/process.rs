//! The browser's processes and profile: started in a process group of
//! their own with the DevTools pipes on descriptors 3 and 4, ended as a
//! group, and profiles left by processes that are gone removed.
//!
//! Whatever way the process holding the browser ends, the browser goes
//! with it: dropped normally, [`Processes::end`] kills the whole group
//! (the browser's renderers and helpers included) and removes the
//! profile; killed outright, its ends of the pipes close and Chromium
//! exits on its own, and the profile it leaves is removed by the next
//! start (see [`remove_stale_profiles`]).

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::Duration;

/// The prefix of every profile directory (then the owning process id and
/// a count).
const PROFILE_PREFIX: &str = "webcanon-chromium-";

/// How many times removing a profile is tried while the browser's last
/// processes go away.
const REMOVAL_TRIES: u32 = 20;

/// A started browser process and the profile it writes.
#[derive(Debug)]
pub(crate) struct Processes {
    child: Child,
    profile: PathBuf,
}

/// The browser's ends of the DevTools pipes, as seen from this process.
pub(crate) struct Pipes {
    /// What the browser writes (its descriptor 4).
    pub from_browser: tokio::net::unix::pipe::Receiver,
    /// What the browser reads (its descriptor 3).
    pub to_browser: tokio::net::unix::pipe::Sender,
}

impl Processes {
    /// Starts `command` in a process group of its own with the DevTools
    /// pipes on its descriptors 3 and 4; `profile` is removed when it ends.
    pub fn spawn(mut command: Command, profile: PathBuf) -> std::io::Result<(Processes, Pipes)> {
        use command_fds::{CommandFdExt, FdMapping};
        use std::os::fd::OwnedFd;
        use std::os::unix::process::CommandExt;

        let (browser_reads, to_browser) = std::io::pipe()?;
        let (from_browser, browser_writes) = std::io::pipe()?;
        command
            .process_group(0)
            .fd_mappings(vec![
                FdMapping { parent_fd: OwnedFd::from(browser_reads), child_fd: 3 },
                FdMapping { parent_fd: OwnedFd::from(browser_writes), child_fd: 4 },
            ])
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        let child = command.spawn()?;
        // The browser's ends are closed here once it has them, so that its
        // exit is seen as the end of the pipe.
        drop(command);
        let processes = Processes { child, profile };
        let pipes = Pipes {
            from_browser: tokio::net::unix::pipe::Receiver::from_owned_fd(OwnedFd::from(from_browser))?,
            to_browser: tokio::net::unix::pipe::Sender::from_owned_fd(OwnedFd::from(to_browser))?,
        };
        Ok((processes, pipes))
    }

    /// The browser's standard error, once.
    pub fn take_stderr(&mut self) -> Option<std::process::ChildStderr> {
        self.child.stderr.take()
    }

    /// Whether the browser process is still running.
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Kills the browser and every process of its group, reaps it, and
    /// removes its profile.
    pub fn end(&mut self) {
        if let Some(group) = rustix::process::Pid::from_raw(i32::try_from(self.child.id()).unwrap_or(0)) {
            let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        remove_profile(&self.profile);
    }
}

/// Removes `profile`, trying again while processes that were killed
/// a moment ago may still be writing into it.
fn remove_profile(profile: &Path) {
    for _ in 0..REMOVAL_TRIES {
        match std::fs::remove_dir_all(profile) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => std::thread::sleep(Duration::from_millis(25)),
            _ => return,
        }
    }
}

/// The profile directory of the `count`-th browser of this process.
pub(crate) fn profile_path(count: u64) -> PathBuf {
    std::env::temp_dir().join(format!("{PROFILE_PREFIX}{}-{count}", std::process::id()))
}

/// Removes the profiles in the temporary directory whose owning process
/// is gone (a process killed outright leaves its browser's profile
/// behind); the count removed.
pub(crate) fn remove_stale_profiles() -> usize {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else { return 0 };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(owner) = name.to_str().and_then(profile_owner) else { continue };
        if owner != std::process::id() && !is_alive(owner) {
            tracing::debug!(profile = %entry.path().display(), "removing the browser profile of a process that is gone");
            remove_profile(&entry.path());
            removed += 1;
        }
    }
    removed
}

/// The process id in a profile directory's name (`webcanon-chromium-PID-N`).
fn profile_owner(name: &str) -> Option<u32> {
    let (pid, count) = name.strip_prefix(PROFILE_PREFIX)?.split_once('-')?;
    count.parse::<u64>().ok()?;
    pid.parse().ok()
}

/// Whether process `pid` exists (a process of another user counts).
fn is_alive(pid: u32) -> bool {
    let Some(pid) = i32::try_from(pid).ok().and_then(rustix::process::Pid::from_raw) else { return false };
    !matches!(rustix::process::test_kill_process(pid), Err(rustix::io::Errno::SRCH))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profile_names_give_their_owner() {
        assert_eq!(profile_owner("webcanon-chromium-4242-0"), Some(4242));
        assert_eq!(profile_owner("webcanon-chromium-4242-17"), Some(4242));
        assert_eq!(profile_owner("webcanon-chromium-4242"), None);
        assert_eq!(profile_owner("webcanon-chromium-x-1"), None);
        assert_eq!(profile_owner("other-4242-1"), None);
    }

    #[test]
    fn a_profile_of_a_process_that_is_gone_is_removed_and_ours_is_kept() {
        // A child that has exited and been reaped: its id names no process.
        let mut gone = std::process::Command::new("true").spawn().expect("true runs");
        let gone_pid = gone.id();
        gone.wait().expect("true exits");
        let stale = std::env::temp_dir().join(format!("{PROFILE_PREFIX}{gone_pid}-0"));
        let ours = profile_path(9_999);
        for dir in [&stale, &ours] {
            std::fs::create_dir_all(dir.join("Default")).expect("profile");
        }
        assert!(remove_stale_profiles() >= 1);
        assert!(!stale.exists(), "the profile of a process that is gone is removed");
        assert!(ours.exists(), "this process's own profile is kept");
        std::fs::remove_dir_all(&ours).expect("cleanup");
    }
}
