//! One HTTP/1.1 response as read off a raw socket: its status line, its
//! headers, and its body (by `Content-Length`, de-chunked, or up to the end
//! of the connection), with the JSON-RPC messages of a JSON or SSE body.
//!
//! The parsing is pure: [`parse_head`] and [`parse_body`] take the bytes
//! that have arrived so far and say when more are needed, so that a reader
//! of any kind (async on a socket kept open, or sync after reading to the
//! end, [`parse`]) is a loop around them. Used by the tests that read raw
//! HTTP (oxmcp-server's, oxmcp-agent's, the examples').

use serde_json::Value;

/// One HTTP response as read off the wire.
#[derive(Clone)]
pub struct Response {
    pub version: String,
    pub status: u16,
    /// As sent: names in their case, in order.
    pub headers: Vec<(String, String)>,
    /// The body, de-chunked when it was chunked.
    pub body: Vec<u8>,
}

impl std::fmt::Debug for Response {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Response")
            .field("version", &self.version)
            .field("status", &self.status)
            .field("headers", &self.headers)
            .field("body", &truncate(&self.text()))
            .finish()
    }
}

impl Response {
    /// The first header of that name (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as text (lossy).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body as JSON; panics with the body when it is not JSON.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "the answer ({}) is not JSON ({e}): {:?}",
                self.status,
                truncate(&self.text())
            )
        })
    }

    pub fn is_sse(&self) -> bool {
        self.header("content-type")
            .is_some_and(|c| c.starts_with("text/event-stream"))
    }

    /// The JSON-RPC messages of the body: the `data:` lines of an SSE stream,
    /// or the one JSON document (none for an empty body).
    pub fn messages(&self) -> Vec<Value> {
        if self.is_sse() {
            sse_messages(&self.text())
        } else if self.body.is_empty() {
            Vec::new()
        } else {
            vec![self.json()]
        }
    }

    /// The last message (the response, on an SSE stream).
    pub fn last(&self) -> Value {
        self.messages()
            .pop()
            .unwrap_or_else(|| panic!("an empty response: {self:?}"))
    }
}

/// The JSON-RPC messages of the `data:` lines of an SSE text (chunk framing,
/// if the text is raw, does not matter: every event is a line of its own).
pub fn sse_messages(text: &str) -> Vec<Value> {
    text.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| {
            serde_json::from_str(d)
                .unwrap_or_else(|e| panic!("non-JSON SSE data ({e}): {:?}", truncate(d)))
        })
        .collect()
}

/// `s`, cut to 300 bytes for a message.
pub fn truncate(s: &str) -> String {
    if s.len() <= 300 {
        s.to_owned()
    } else {
        let mut end = 300;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}… ({} bytes)", &s[..end], s.len())
    }
}

/// The line at the start of `buf` (without its CRLF) and the bytes it took.
fn line(buf: &[u8]) -> Option<(&[u8], usize)> {
    let end = buf.windows(2).position(|w| w == b"\r\n")?;
    Some((&buf[..end], end + 2))
}

/// The head of the response at the start of `buf` (blank lines before its
/// status line are skipped): the response with an empty body, and how many
/// bytes the head took. `None` until the blank line that ends it arrived.
/// Panics on a malformed status line.
pub fn parse_head(buf: &[u8]) -> Option<(Response, usize)> {
    let mut used = 0;
    let status_line = loop {
        let (l, n) = line(&buf[used..])?;
        used += n;
        if !l.is_empty() {
            break String::from_utf8_lossy(l).into_owned();
        }
    };
    let mut parts = status_line.splitn(3, ' ');
    let version = parts.next().unwrap_or_default().to_owned();
    let status: u16 = parts
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("a malformed status line: {status_line:?}"));
    let mut headers = Vec::new();
    loop {
        let (l, n) = line(&buf[used..])?;
        used += n;
        if l.is_empty() {
            break;
        }
        if let Some((k, v)) = String::from_utf8_lossy(l).split_once(':') {
            headers.push((k.trim().to_owned(), v.trim().to_owned()));
        }
    }
    let head = Response {
        version,
        status,
        headers,
        body: Vec::new(),
    };
    Some((head, used))
}

/// The body of the response whose head is `head`, at the start of `buf`:
/// the body (de-chunked) and how many bytes it took, or `None` while more
/// must arrive. `closed`: nothing more will, which ends a body delimited by
/// the end of the connection and makes a short one an error.
pub fn parse_body(
    head: &Response,
    buf: &[u8],
    closed: bool,
) -> Result<Option<(Vec<u8>, usize)>, String> {
    let chunked = head
        .header("transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    let incomplete = |what: &str| {
        if closed {
            Err(format!("the connection ended inside {what}: {head:?}"))
        } else {
            Ok(None)
        }
    };
    if chunked {
        let mut body = Vec::new();
        let mut used = 0;
        loop {
            let Some((size_line, n)) = line(&buf[used..]) else {
                return incomplete("a chunked body");
            };
            let size_text = String::from_utf8_lossy(size_line);
            let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
                .map_err(|e| format!("a malformed chunk size {size_text:?}: {e}"))?;
            used += n;
            if size == 0 {
                // Trailers, then the empty line.
                loop {
                    let Some((trailer, n)) = line(&buf[used..]) else {
                        return incomplete("the trailers of a chunked body");
                    };
                    used += n;
                    if trailer.is_empty() {
                        return Ok(Some((body, used)));
                    }
                }
            }
            if buf.len() < used + size + 2 {
                return incomplete("a chunk");
            }
            body.extend_from_slice(&buf[used..used + size]);
            used += size + 2;
        }
    } else if let Some(len) = head.header("content-length") {
        let len: usize = len
            .parse()
            .map_err(|e| format!("a malformed content-length {len:?}: {e}"))?;
        if buf.len() < len {
            return incomplete("a body shorter than its content-length");
        }
        Ok(Some((buf[..len].to_vec(), len)))
    } else if head.status == 204 || head.status == 304 || (100..200).contains(&head.status) {
        Ok(Some((Vec::new(), 0)))
    } else if closed {
        // Delimited by the end of the connection.
        Ok(Some((buf.to_vec(), buf.len())))
    } else {
        Ok(None)
    }
}

/// The response at the start of `raw`, all of what a connection carried up
/// to its end.
pub fn parse(raw: &[u8]) -> Result<Response, String> {
    let (mut response, used) = parse_head(raw).ok_or_else(|| {
        format!(
            "no complete response head in {:?}",
            truncate(&String::from_utf8_lossy(raw))
        )
    })?;
    let (body, _) =
        parse_body(&response, &raw[used..], true)?.expect("a closed connection ends every body");
    response.body = body;
    Ok(response)
}
