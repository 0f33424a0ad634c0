//! A real `redis-server` for tests: started on a free loopback port with no
//! persistence, killed when dropped.
//!
//! The program is `$WEBCANON_REDIS_SERVER`, else Debian's
//! `/usr/bin/redis-server`. Without either, [`RedisServer::start_or_skip`]
//! prints a note and returns `None` (the test passes without running),
//! unless `WEBCANON_REQUIRE_REDIS` is set, as `scripts/test.sh` does: then
//! it panics, so that the tests can never be skipped silently.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Where Debian's `redis-server` package puts the server.
const DEBIAN_REDIS_SERVER: &str = "/usr/bin/redis-server";
/// How long the server may take to answer its first `PING`.
const START_TIMEOUT: Duration = Duration::from_secs(10);

/// A running `redis-server` on `127.0.0.1`.
#[derive(Debug)]
pub struct RedisServer {
    program: PathBuf,
    port: u16,
    child: Option<Child>,
}

/// The server program, or why there is none.
fn program() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("WEBCANON_REDIS_SERVER") {
        let path = PathBuf::from(path);
        // A program named explicitly must be there.
        assert!(path.is_file(), "WEBCANON_REDIS_SERVER={} does not exist", path.display());
        return Ok(path);
    }
    let debian = PathBuf::from(DEBIAN_REDIS_SERVER);
    if debian.is_file() {
        return Ok(debian);
    }
    Err(format!("no redis-server: set WEBCANON_REDIS_SERVER or install Debian's redis-server ({DEBIAN_REDIS_SERVER})"))
}

impl RedisServer {
    /// Starts a server for `test`, or returns `None` after printing why
    /// not when no `redis-server` is installed and `WEBCANON_REQUIRE_REDIS`
    /// is unset.
    pub fn start_or_skip(test: &str) -> Option<RedisServer> {
        match program() {
            Ok(program) => Some(RedisServer::start_with(program, free_port())),
            Err(why) if std::env::var_os("WEBCANON_REQUIRE_REDIS").is_some() => {
                panic!("{test}: {why} (WEBCANON_REQUIRE_REDIS is set)")
            }
            Err(why) => {
                eprintln!("note: {test} skipped: {why}");
                None
            }
        }
    }

    fn start_with(program: PathBuf, port: u16) -> RedisServer {
        let mut server = RedisServer { program, port, child: None };
        server.launch();
        server
    }

    fn launch(&mut self) {
        let child = Command::new(&self.program)
            .args(["--bind", "127.0.0.1", "--port", &self.port.to_string()])
            .args(["--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", self.program.display()));
        self.child = Some(child);
        let started = Instant::now();
        while !self.answers_ping() {
            if let Some(status) = self.child.as_mut().and_then(|c| c.try_wait().ok().flatten()) {
                panic!("redis-server on port {} exited at start: {status}", self.port);
            }
            assert!(started.elapsed() < START_TIMEOUT, "redis-server on port {} did not answer PING", self.port);
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Whether the server answers `PING` with `PONG`.
    pub fn answers_ping(&self) -> bool {
        let Ok(mut stream) = TcpStream::connect(("127.0.0.1", self.port)) else { return false };
        let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
        let mut answer = [0u8; 7];
        stream.write_all(b"PING\r\n").is_ok() && stream.read_exact(&mut answer).is_ok() && &answer == b"+PONG\r\n"
    }

    /// `redis://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Kills the server at once (SIGKILL): no shutdown, connections reset.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the server again on the same port, empty.
    pub fn restart(&mut self) {
        self.kill();
        self.launch();
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A port nobody listens on right now.
fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    listener.local_addr().expect("local address").port()
}
