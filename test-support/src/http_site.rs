//! A loopback HTTP/1.1 server for the HTTP toolbox's tests: it records
//! every request (method, path, headers, body) and answers what the test's
//! route says. Used by `examples/tests/fetch.rs` and `mcp-toolbox/tests/http`.

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One request as the test server read it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// What the test server answers.
#[derive(Debug)]
pub enum Reply {
    Bytes(Vec<u8>),
    /// Never answers.
    Hang,
}

pub fn reply(status: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
    let mut out = format!(
        "HTTP/1.1 {status}\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        let _ = write!(out, "{name}: {value}\r\n");
    }
    out.push_str("\r\n");
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(body);
    Reply::Bytes(bytes)
}

/// An HTTP/1.1 server on 127.0.0.1 that records every request.
#[derive(Debug)]
pub struct Site {
    pub addr: SocketAddr,
    pub seen: Arc<Mutex<Vec<Seen>>>,
}

impl Site {
    pub async fn start(route: impl Fn(&Seen) -> Reply + Send + Sync + 'static) -> Site {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let record = Arc::clone(&seen);
        let route = Arc::new(route);
        tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                let record = Arc::clone(&record);
                let route = Arc::clone(&route);
                tokio::spawn(async move {
                    let mut tcp = tcp;
                    let Some(request) = read_request(&mut tcp).await else {
                        return;
                    };
                    record.lock().unwrap().push(request.clone());
                    match route(&request) {
                        Reply::Bytes(bytes) => {
                            let _ = tcp.write_all(&bytes).await;
                            let _ = tcp.shutdown().await;
                        }
                        Reply::Hang => tokio::time::sleep(Duration::from_secs(60)).await,
                    }
                });
            }
        });
        Site { addr, seen }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub fn allow(&self) -> String {
        self.addr.to_string()
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

pub async fn read_request(tcp: &mut TcpStream) -> Option<Seen> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = tcp.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if buf[0] == 0x16 {
            return None; // a TLS handshake: hang up
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let (method, path) = (first.next()?.to_owned(), first.next()?.to_owned());
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < length {
        let n = tcp.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some(Seen {
        method,
        path,
        headers,
        body,
    })
}
