//! The `redis-server` the HTTP benchmark starts for its `ours-redis` target,
//! and the few commands the driver sends it (RESP over a `TcpStream`).

use std::io::{self, BufRead, BufReader, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// Where the benchmark expects Redis.
pub(crate) const REDIS_SERVER: &str = "/usr/bin/redis-server";
/// How long `redis-server` may take to answer `PING`.
const START_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one command may take.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(10);

/// A `redis-server` started for the run, without persistence, on a free
/// port of 127.0.0.1; killed when dropped.
#[derive(Debug)]
pub(crate) struct RedisServer {
    child: Child,
    addr: SocketAddr,
}

impl RedisServer {
    pub(crate) fn start() -> Result<Self, String> {
        if !Path::new(REDIS_SERVER).is_file() {
            return Err(format!(
                "the Redis mode needs {REDIS_SERVER}, which does not exist \
                 (install Redis, e.g. `apt-get install redis-server`)"
            ));
        }
        let port = crate::http::free_port().map_err(|e| format!("finding a free port: {e}"))?;
        let child = Command::new(REDIS_SERVER)
            .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
            .args(["--save", "", "--appendonly", "no"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("starting {REDIS_SERVER}: {e}"))?;
        let mut server = Self {
            child,
            addr: SocketAddr::from((Ipv4Addr::LOCALHOST, port)),
        };
        server.wait_ready()?;
        Ok(server)
    }

    /// Waits until the server answers `PING`.
    fn wait_ready(&mut self) -> Result<(), String> {
        let start = Instant::now();
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => {
                    return Err(format!(
                        "{REDIS_SERVER} exited ({status}) before answering on {}",
                        self.addr
                    ))
                }
                Ok(None) => {}
                Err(e) => return Err(format!("{REDIS_SERVER}: {e}")),
            }
            if let Ok(reply) = self.connect().and_then(|mut c| c.command(&["PING"])) {
                if reply == "PONG" {
                    return Ok(());
                }
            }
            if start.elapsed() > START_TIMEOUT {
                return Err(format!(
                    "{REDIS_SERVER} did not answer PING on {} within {START_TIMEOUT:?}",
                    self.addr
                ));
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// The URL a server under test connects to (database 0).
    pub(crate) fn url(&self) -> String {
        format!("redis://{}/0", self.addr)
    }

    pub(crate) fn connect(&self) -> io::Result<Connection> {
        Connection::open(self.addr)
    }

    /// Empties every database.
    pub(crate) fn flush_all(&self) -> io::Result<()> {
        let reply = self.connect()?.command(&["FLUSHALL"])?;
        if reply == "OK" {
            Ok(())
        } else {
            Err(io::Error::other(format!("FLUSHALL answered {reply:?}")))
        }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One connection to Redis. The memory measurement keeps one open across
/// its two readings, so that the connection's own buffers count in both.
#[derive(Debug)]
pub(crate) struct Connection {
    reader: BufReader<TcpStream>,
}

impl Connection {
    fn open(addr: SocketAddr) -> io::Result<Self> {
        let stream = TcpStream::connect_timeout(&addr, COMMAND_TIMEOUT)?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(COMMAND_TIMEOUT))?;
        stream.set_write_timeout(Some(COMMAND_TIMEOUT))?;
        Ok(Self {
            reader: BufReader::new(stream),
        })
    }

    /// Sends one command; returns a simple string, integer or bulk string
    /// reply as text. An error reply is an error; arrays are not needed here.
    pub(crate) fn command(&mut self, args: &[&str]) -> io::Result<String> {
        self.reader.get_mut().write_all(&encode(args))?;
        read_reply(&mut self.reader)
    }

    /// `used_memory` from `INFO memory`: the bytes Redis's allocator holds.
    pub(crate) fn used_memory(&mut self) -> io::Result<u64> {
        let info = self.command(&["INFO", "memory"])?;
        info_field(&info, "used_memory")
            .and_then(|value| value.parse().ok())
            .ok_or_else(|| io::Error::other("INFO memory has no used_memory"))
    }

    /// The number of keys in the current database (`DBSIZE`).
    pub(crate) fn keys(&mut self) -> io::Result<u64> {
        let reply = self.command(&["DBSIZE"])?;
        reply
            .parse()
            .map_err(|_| bad(format!("DBSIZE answered {reply:?}")))
    }
}

/// A command as a RESP array of bulk strings.
fn encode(args: &[&str]) -> Vec<u8> {
    let mut out = format!("*{}\r\n", args.len()).into_bytes();
    for arg in args {
        out.extend_from_slice(format!("${}\r\n", arg.len()).as_bytes());
        out.extend_from_slice(arg.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out
}

fn bad(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what)
}

/// Reads one reply: `+simple`, `-error`, `:integer` or `$bulk`.
fn read_reply(reader: &mut impl BufRead) -> io::Result<String> {
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "Redis closed the connection",
        ));
    }
    let line = line.trim_end_matches(['\r', '\n']);
    let (kind, rest) = line.split_at(line.len().min(1));
    match kind {
        "+" | ":" => Ok(rest.to_owned()),
        "-" => Err(io::Error::other(format!("Redis error: {rest}"))),
        "$" => {
            let len: usize = rest
                .parse()
                .map_err(|_| bad(format!("bad bulk length {rest:?}")))?;
            let mut body = vec![0; len + 2];
            reader.read_exact(&mut body)?;
            body.truncate(len);
            String::from_utf8(body).map_err(|e| bad(format!("bulk reply: {e}")))
        }
        _ => Err(bad(format!("unexpected reply {line:?}"))),
    }
}

/// The value of `name` in `INFO` text (`name:value` lines).
fn info_field<'a>(info: &'a str, name: &str) -> Option<&'a str> {
    info.lines().find_map(|line| {
        line.trim_end()
            .strip_prefix(name)
            .and_then(|rest| rest.strip_prefix(':'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_encoded_and_replies_read() {
        assert_eq!(
            encode(&["INFO", "memory"]),
            b"*2\r\n$4\r\nINFO\r\n$6\r\nmemory\r\n"
        );
        let mut input: &[u8] =
            b"+OK\r\n$12\r\nhello\r\nthere\r\n-ERR no\r\n:1032\r\n*1\r\n$1\r\nx\r\n";
        assert_eq!(read_reply(&mut input).unwrap(), "OK");
        assert_eq!(read_reply(&mut input).unwrap(), "hello\r\nthere");
        assert!(read_reply(&mut input)
            .unwrap_err()
            .to_string()
            .contains("ERR no"));
        assert_eq!(read_reply(&mut input).unwrap(), "1032");
        assert!(read_reply(&mut input).is_err(), "arrays are not needed");
    }

    #[test]
    fn info_fields_are_found_by_exact_name() {
        let info =
            "# Memory\r\nused_memory_human:1.2M\r\nused_memory:1234567\r\nused_memory_rss:9\r\n";
        assert_eq!(info_field(info, "used_memory"), Some("1234567"));
        assert_eq!(info_field(info, "used_memory_rss"), Some("9"));
        assert_eq!(info_field(info, "maxmemory"), None);
    }
}
