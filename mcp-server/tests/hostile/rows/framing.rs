//! Rows about framing: `Content-Length` and `Transfer-Encoding` (request
//! smuggling, the size limit), bodies that are no JSON, and request lines
//! (methods, paths, HTTP versions).

use super::{row, Row, Want, NOT_FOUND, NOT_JSON, TOO_LARGE};
use crate::raw::{chunked, Add};
use crate::support::{as_refs, http_request, modern_call_headers, JSON};
use crate::table::MAX;

/// `Content-Length` values hyper refuses: (name, the header lines).
const BAD_LENGTHS: &[(&str, &str)] = &[
    ("a non-numeric Content-Length", "Content-Length: ten\r\n"),
    ("a negative Content-Length", "Content-Length: -1\r\n"),
    (
        "a huge Content-Length",
        "Content-Length: 99999999999999999999\r\n",
    ),
];

/// `Content-Length` (wrong, doubled, not a number, over the limit) and
/// bodies that are no JSON.
pub(super) fn lengths(add: &Add) -> Vec<Row> {
    let (len, body) = (add.len(), add.body.as_str());
    let headers = modern_call_headers("add");
    let raw_body = |b: &[u8]| http_request("POST", "/mcp", add.port, &as_refs(&headers), b);
    let short = add.head(&format!("Content-Length: {}\r\n", len - 10), body);
    let two = format!("Content-Length: {len}\r\nContent-Length: {}\r\n", len + 1);
    let mut rows = vec![
        row("Content-Length shorter than the body", short, NOT_JSON),
        row(
            "two different Content-Lengths",
            add.head(&two, body),
            Want::Refused,
        ),
    ];
    rows.extend(
        BAD_LENGTHS
            .iter()
            .map(|&(name, lines)| row(name, add.head(lines, body), Want::Refused)),
    );
    let over = add.head(&format!("Content-Length: {}\r\n", MAX + 1), body);
    rows.push(row(
        "a declared Content-Length over the limit",
        over,
        TOO_LARGE,
    ));
    rows.extend(encodings(add));
    rows.extend([
        row(
            "a body that is not UTF-8",
            raw_body(b"{\"a\":\"\xff\"}"),
            NOT_JSON,
        ),
        row("an empty body", raw_body(b""), NOT_JSON),
    ]);
    rows
}

/// `Transfer-Encoding`: odd but valid chunking is read, broken chunking and
/// unknown codings refused, `Content-Length` beside chunked never smuggles.
fn encodings(add: &Add) -> Vec<Row> {
    let (len, body) = (add.len(), add.body.as_str());
    let one_byte: Vec<String> = body.chars().map(String::from).collect();
    let one_byte: Vec<&str> = one_byte.iter().map(String::as_str).collect();
    let chunk = "x".repeat(64 * 1024);
    let over: Vec<&str> = std::iter::repeat_n(chunk.as_str(), MAX / chunk.len() + 1).collect();
    vec![
        row(
            "a chunked body in 1-byte chunks",
            add.chunked(&chunked(&one_byte)),
            Want::Answered,
        ),
        row(
            "chunk extensions",
            add.chunked(&format!("{len:x};ext=1\r\n{body}\r\n0\r\n\r\n")),
            Want::Answered,
        ),
        row(
            "a bad chunk size",
            add.chunked(&format!("zz\r\n{body}\r\n0\r\n\r\n")),
            Want::Refused,
        ),
        row(
            "a chunk longer than declared",
            add.chunked(&format!("2\r\n{body}\r\n0\r\n\r\n")),
            Want::Refused,
        ),
        row(
            "Content-Length and chunked together",
            add.length_and_chunked(),
            Want::AnsweredOrRefused,
        ),
        row(
            "Transfer-Encoding gzip",
            add.head("Transfer-Encoding: gzip\r\n", body),
            Want::Refused,
        ),
        row(
            "a chunked body over the limit",
            add.chunked(&chunked(&over)),
            TOO_LARGE,
        ),
    ]
}

/// Paths beside the endpoint: (name, the path, what the row must get).
const PATHS: &[(&str, &str, Want)] = &[
    ("a path with a trailing slash", "/mcp/", NOT_FOUND),
    ("a path in upper case", "/MCP", NOT_FOUND),
    ("a query string", "/mcp?x=1", Want::Answered),
    ("a path with ..", "/x/../mcp", NOT_FOUND),
];

/// Methods other than POST, paths, HTTP versions, and request lines that
/// are no HTTP at all.
pub(super) fn request_lines(add: &Add) -> Vec<Row> {
    let not_allowed = Want::Status(405, Some(-32600));
    let put = http_request("PUT", "/mcp", add.port, &[JSON], add.body.as_bytes());
    let options = http_request("OPTIONS", "/mcp", add.port, &[], b"");
    let mut rows = vec![
        row("PUT", put, not_allowed),
        row("OPTIONS", options, not_allowed),
    ];
    rows.extend(
        PATHS
            .iter()
            .map(|&(name, path, want)| row(name, add.to("POST", path), want)),
    );
    let absolute = format!("POST http://127.0.0.1:{}/mcp HTTP/1.1", add.port);
    let tls_hello = b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n".to_vec();
    rows.extend([
        row(
            "HTTP/1.0 without Host",
            add.line("POST /mcp HTTP/1.0", false),
            Want::Answered,
        ),
        row(
            "HTTP/1.0 with Host",
            add.line("POST /mcp HTTP/1.0", true),
            Want::Answered,
        ),
        row("HTTP/0.9", b"GET /mcp\r\n\r\n".to_vec(), Want::Refused),
        row(
            "HTTP/2.0 in an HTTP/1 request line",
            add.line("POST /mcp HTTP/2.0", true),
            Want::Refused,
        ),
        row(
            "HTTP/1.1 with absolute-form for this server",
            add.line(&absolute, true),
            Want::Answered,
        ),
        row("a garbage request line", tls_hello, Want::Refused),
    ]);
    rows
}
