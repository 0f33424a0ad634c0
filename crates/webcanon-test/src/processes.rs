//! The processes a test started, found through `/proc` (Linux): by an
//! environment entry they inherited or an argument, with their
//! descendants, whether they still run, and the TCP ports they listen on.

use std::collections::HashSet;
use std::fs;

/// The running processes whose environment holds `entry` (`NAME=VALUE`):
/// a variable set on a command is inherited by everything it starts.
pub fn with_env(entry: &str) -> Vec<u32> {
    all_pids()
        .filter(|pid| {
            fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|environ| environ.split(|b| *b == 0).any(|var| var == entry.as_bytes()))
        })
        .filter(|pid| is_running(*pid))
        .collect()
}

/// The running processes one of whose arguments contains `needle`.
pub fn with_arg(needle: &str) -> Vec<u32> {
    all_pids()
        .filter(|pid| {
            fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|cmdline| {
                cmdline.split(|b| *b == 0).any(|arg| String::from_utf8_lossy(arg).contains(needle))
            })
        })
        .filter(|pid| is_running(*pid))
        .collect()
}

/// `roots` and every running process descended from one of them.
pub fn descendants(roots: &[u32]) -> Vec<u32> {
    let parents: Vec<(u32, u32)> = all_pids().filter_map(|pid| Some((pid, stat(pid)?.1))).collect();
    let mut tree: Vec<u32> = roots.to_vec();
    let mut seen: HashSet<u32> = roots.iter().copied().collect();
    let mut at = 0;
    while at < tree.len() {
        let parent = tree[at];
        for (pid, ppid) in &parents {
            if *ppid == parent && seen.insert(*pid) {
                tree.push(*pid);
            }
        }
        at += 1;
    }
    tree.retain(|pid| is_running(*pid));
    tree
}

/// Whether `pid` exists and is not a zombie.
pub fn is_running(pid: u32) -> bool {
    stat(pid).is_some_and(|(state, _)| state != 'Z' && state != 'X')
}

/// The local addresses (`ADDR:PORT` in hex, as `/proc/net/tcp` writes
/// them) of the TCP sockets in the listening state held by any of `pids`.
pub fn listening_tcp(pids: &[u32]) -> Vec<String> {
    let mut inodes = HashSet::new();
    for pid in pids {
        let Ok(fds) = fs::read_dir(format!("/proc/{pid}/fd")) else { continue };
        for fd in fds.flatten() {
            let Ok(link) = fs::read_link(fd.path()) else { continue };
            if let Some(inode) =
                link.to_str().and_then(|l| l.strip_prefix("socket:[")).and_then(|l| l.strip_suffix(']'))
            {
                inodes.insert(inode.to_string());
            }
        }
    }
    let mut listening = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = fs::read_to_string(table) else { continue };
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // local address, remote address, state (0A: listening), ..., inode
            if fields.len() > 9 && fields[3] == "0A" && inodes.contains(fields[9]) {
                listening.push(fields[1].to_string());
            }
        }
    }
    listening
}

fn all_pids() -> impl Iterator<Item = u32> {
    fs::read_dir("/proc").into_iter().flatten().flatten().filter_map(|entry| entry.file_name().to_str()?.parse().ok())
}

/// The state letter and parent of `pid`.
fn stat(pid: u32) -> Option<(char, u32)> {
    let text = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid ...`: the name may hold spaces and parentheses.
    let rest = &text[text.rfind(')')? + 2..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    Some((state, ppid))
}
