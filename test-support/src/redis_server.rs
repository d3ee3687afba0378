//! A `redis-server` of a test's own: started on a free loopback port with no
//! persistence, signalled (`kill -STOP`, `-CONT`), killed and restarted by
//! the test, and killed when dropped. Synchronous, std only.
//!
//! The binary is `$REDIS_SERVER`, `/usr/bin/redis-server`, or
//! `redis-server` on `PATH`; without one the tests that start a server fail
//! (they never skip).

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a server may take to answer `PING` after it was spawned.
const STARTUP: Duration = Duration::from_secs(10);

/// The `redis-server` binary; panics when there is none.
pub fn redis_server_binary() -> PathBuf {
    if let Some(path) = std::env::var_os("REDIS_SERVER") {
        let path = PathBuf::from(path);
        assert!(
            path.is_file(),
            "REDIS_SERVER={} is not a file: these tests need a real redis-server",
            path.display()
        );
        return path;
    }
    let standard = PathBuf::from("/usr/bin/redis-server");
    if standard.is_file() {
        return standard;
    }
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("redis-server"))
            .find(|p| p.is_file())
    });
    on_path.unwrap_or_else(|| {
        panic!(
            "redis-server is not installed (looked at /usr/bin/redis-server and on PATH; \
             set REDIS_SERVER to its path): these tests need a real Redis \
             (apt-get install redis-server)"
        )
    })
}

/// A loopback port that was free a moment ago.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Whether a Redis answers `PING` on `port`.
fn ping(port: u16) -> bool {
    use std::io::{Read, Write};
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let Ok(mut conn) = TcpStream::connect_timeout(&addr, Duration::from_millis(200)) else {
        return false;
    };
    let _ = conn.set_read_timeout(Some(Duration::from_millis(500)));
    let mut reply = [0u8; 7];
    conn.write_all(b"PING\r\n").is_ok()
        && conn.read_exact(&mut reply).is_ok()
        && &reply == b"+PONG\r\n"
}

/// A `redis-server` of the test's own (no persistence), killed when dropped.
#[derive(Debug)]
pub struct RedisServer {
    port: u16,
    child: Option<Child>,
}

impl RedisServer {
    /// Starts one on a free port (another one if that was taken meanwhile);
    /// returns once it answers `PING`.
    pub fn start() -> RedisServer {
        for _ in 0..5 {
            let mut server = RedisServer {
                port: free_port(),
                child: None,
            };
            if server.spawn() {
                return server;
            }
        }
        panic!("redis-server did not start on any of five free ports");
    }

    /// Starts redis-server on `self.port`; `false` if it exited (the port
    /// was taken meanwhile).
    fn spawn(&mut self) -> bool {
        let binary = redis_server_binary();
        let child = Command::new(&binary)
            .args(["--bind", "127.0.0.1", "--port"])
            .arg(self.port.to_string())
            .args(["--save", "", "--appendonly", "no", "--protected-mode", "no"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
        let child = self.child.insert(child);
        let deadline = Instant::now() + STARTUP;
        while Instant::now() < deadline {
            if let Some(status) = child.try_wait().unwrap() {
                eprintln!("redis-server on port {} exited: {status}", self.port);
                self.child = None;
                return false;
            }
            if ping(self.port) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!(
            "redis-server on port {} did not answer in {STARTUP:?}",
            self.port
        );
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// `redis://127.0.0.1:PORT/0`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }

    /// The process id; panics after [`kill`](Self::kill).
    pub fn pid(&self) -> u32 {
        self.child.as_ref().expect("redis-server is running").id()
    }

    fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .arg(signal)
            .arg(self.pid().to_string())
            .status()
            .expect("running kill");
        assert!(status.success(), "kill {signal} failed");
    }

    /// SIGSTOP: the server keeps its connections but answers nothing.
    pub fn pause(&self) {
        self.signal("-STOP");
    }

    /// SIGCONT.
    pub fn resume(&self) {
        self.signal("-CONT");
    }

    /// SIGKILL, and waits for the process to be gone.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// A new, empty server on the same port.
    pub fn restart(&mut self) {
        self.kill();
        let deadline = Instant::now() + STARTUP;
        while !self.spawn() {
            assert!(
                Instant::now() < deadline,
                "redis-server did not restart on port {}",
                self.port
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
    }
}
