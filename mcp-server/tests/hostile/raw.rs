//! The raw HTTP requests the rows and the connection tests are written
//! from: a modern `add(20, 22)`, its head written by hand.

use std::fmt::Write as _;

use serde_json::json;

use crate::support::{as_refs, http_request, modern_add, modern_call_headers};

/// The body of a modern `add(20, 22)`.
pub(crate) fn modern_add_body() -> String {
    modern_add(&json!("row"), 20.0, 22.0).to_string()
}

/// A modern `add` request with the head written by hand (after the request line).
pub(crate) fn raw_modern_add(request_line: &str, headers: &str, body: &str) -> Vec<u8> {
    format!(
        "{request_line}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: add\r\n{headers}\r\n{body}"
    )
    .into_bytes()
}

/// A modern `add(20, 22)` to the server on `port`: the request the rows
/// are written from, each changing one thing.
pub(crate) struct Add {
    pub(crate) port: u16,
    pub(crate) body: String,
}

impl Add {
    pub(crate) fn new(port: u16) -> Self {
        Add {
            port,
            body: modern_add_body(),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.body.len()
    }

    /// `Host: 127.0.0.1:PORT` and CRLF.
    pub(crate) fn host_line(&self) -> String {
        format!("Host: 127.0.0.1:{}\r\n", self.port)
    }

    /// The request as a client writes it, with these headers added.
    pub(crate) fn with(&self, extra: &[(&str, &str)]) -> Vec<u8> {
        let owned = modern_call_headers("add");
        let mut headers = as_refs(&owned);
        headers.extend_from_slice(extra);
        http_request("POST", "/mcp", self.port, &headers, self.body.as_bytes())
    }

    /// To this method and path, with a client's headers.
    pub(crate) fn to(&self, method: &str, path: &str) -> Vec<u8> {
        let headers = modern_call_headers("add");
        http_request(
            method,
            path,
            self.port,
            &as_refs(&headers),
            self.body.as_bytes(),
        )
    }

    /// HTTP/1.1 with this `Host` and the body's `Content-Length`.
    pub(crate) fn host(&self, host: &str) -> Vec<u8> {
        let headers = format!("Host: {host}\r\nContent-Length: {}\r\n", self.len());
        raw_modern_add("POST /mcp HTTP/1.1", &headers, &self.body)
    }

    /// HTTP/1.1 with the right `Host`, then `headers` (each ending in CRLF),
    /// then `body`.
    pub(crate) fn head(&self, headers: &str, body: &str) -> Vec<u8> {
        let headers = format!("{}{headers}", self.host_line());
        raw_modern_add("POST /mcp HTTP/1.1", &headers, body)
    }

    /// `head` with the body's `Content-Length` after `headers`.
    pub(crate) fn sized(&self, headers: &str) -> Vec<u8> {
        self.head(
            &format!("{headers}Content-Length: {}\r\n", self.len()),
            &self.body,
        )
    }

    /// `head` with `Transfer-Encoding: chunked` and this chunked body.
    pub(crate) fn chunked(&self, body: &str) -> Vec<u8> {
        self.head("Transfer-Encoding: chunked\r\n", body)
    }

    /// `Content-Length: 5` beside `Transfer-Encoding: chunked`, the body in
    /// one chunk: read as chunked, the length must not be believed.
    pub(crate) fn length_and_chunked(&self) -> Vec<u8> {
        let headers = "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n";
        self.head(headers, &chunked(&[&self.body]))
    }

    /// This request line, the right `Host` if `with_host`, the body's
    /// `Content-Length`.
    pub(crate) fn line(&self, request_line: &str, with_host: bool) -> Vec<u8> {
        let host = if with_host {
            self.host_line()
        } else {
            String::new()
        };
        let headers = format!("{host}Content-Length: {}\r\n", self.len());
        raw_modern_add(request_line, &headers, &self.body)
    }
}

/// The body in chunks of these sizes, then the last chunk.
pub(crate) fn chunked(chunks: &[&str]) -> String {
    let mut b = String::new();
    for c in chunks {
        let _ = write!(b, "{:x}\r\n{c}\r\n", c.len());
    }
    b.push_str("0\r\n\r\n");
    b
}
