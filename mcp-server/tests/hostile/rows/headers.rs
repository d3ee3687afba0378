//! Rows about headers: `Host` and `Origin` (DNS rebinding), header
//! injection, and header sizes.

use std::fmt::Write as _;

use serde_json::json;

use super::{row, Row, Want, FORBIDDEN, NOT_FOUND};
use crate::raw::Add;
use crate::support::{self, http_request, ACCEPT_BOTH, JSON};

/// `Host` values: (name, the value, served). `{port}` stands for the
/// server's port; every other value is refused with 403.
const HOSTS: &[(&str, &str, bool)] = &[
    ("Host [::1] with a port", "[::1]:{port}", true),
    ("Host [::1] without a port", "[::1]", true),
    ("Host LOCALHOST", "LOCALHOST", true),
    ("Host [::2]", "[::2]:{port}", false),
    ("Host [::1 unclosed", "[::1", false),
    ("Host with userinfo", "user@localhost:{port}", false),
    (
        "Host with userinfo after the port",
        "localhost:{port}@evil.example",
        false,
    ),
    ("Host with a trailing dot", "localhost.", false),
    ("Host with a bad port", "127.0.0.1:port", false),
    ("Host with two ports", "127.0.0.1:80:80", false),
    ("Host a list", "localhost, evil.example", false),
    ("Host empty", "", false),
    (
        "Host a subdomain of localhost",
        "localhost.evil.example",
        false,
    ),
    (
        "Host an IPv4-mapped IPv6 of elsewhere",
        "[::ffff:10.0.0.1]",
        false,
    ),
];

/// `Origin` values, as `HOSTS`.
const ORIGINS: &[(&str, &str, bool)] = &[
    ("Origin null", "null", false),
    ("Origin localhost", "http://localhost:{port}", true),
    ("Origin elsewhere", "http://evil.example", false),
    (
        "Origin with userinfo",
        "http://evil.example@localhost:{port}",
        false,
    ),
    (
        "Origin with userinfo after the port",
        "http://localhost:{port}@evil.example",
        false,
    ),
    (
        "Origin a subdomain of localhost",
        "http://localhost.evil.example",
        false,
    ),
    ("Origin file://", "file://", false),
];

/// The rows of a `HOSTS`-shaped table, each value (its `{port}` replaced)
/// put in a request by `request`.
fn served_or_forbidden(
    table: &[(&'static str, &str, bool)],
    port: u16,
    request: impl Fn(&str) -> Vec<u8>,
) -> Vec<Row> {
    let port = port.to_string();
    let rows = table.iter().map(|&(name, value, served)| {
        let want = if served { Want::Answered } else { FORBIDDEN };
        row(name, request(&value.replace("{port}", &port)), want)
    });
    rows.collect()
}

pub(super) fn host(add: &Add) -> Vec<Row> {
    let mut rows = vec![row("a good request", add.with(&[]), Want::Answered)];
    rows.extend(served_or_forbidden(HOSTS, add.port, |host| add.host(host)));
    rows
}

pub(super) fn origin(add: &Add) -> Vec<Row> {
    let mut rows = served_or_forbidden(ORIGINS, add.port, |o| add.with(&[("Origin", o)]));
    let not_utf8 = add.sized("Origin: http://\u{e9}vil\r\n");
    rows.push(row("Origin not UTF-8", not_utf8, FORBIDDEN));
    rows
}

/// Header lines hyper must not read as more headers: (name, the lines
/// before `Content-Length`, what the row must get).
const MALFORMED_HEADERS: &[(&str, &str, Want)] = &[
    (
        "a bare CR in a header value",
        "X-A: a\rInjected: b\r\n",
        Want::Refused,
    ),
    (
        "a bare LF in a header value",
        "X-A: a\nInjected: b\r\n",
        Want::AnsweredOrRefused,
    ),
    ("a NUL in a header value", "X-A: a\0b\r\n", Want::Refused),
    (
        "a space in a header name",
        "Bad Header: x\r\n",
        Want::Refused,
    ),
    ("an obs-folded header", "X-A: a\r\n b\r\n", Want::Refused),
];

/// Header injection, through the raw head or the headers the server reads
/// (a base64 `Mcp-Name`, a session id), and header sizes.
pub(super) fn injection(add: &Add) -> Vec<Row> {
    let mut rows: Vec<Row> = MALFORMED_HEADERS
        .iter()
        .map(|&(name, lines, want)| row(name, add.sized(lines), want))
        .collect();
    let injected_name = format!("=?base64?{}?=", base64("add\r\nX-Injected: 1"));
    let name_headers = [
        JSON,
        ACCEPT_BOTH,
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", &injected_name),
    ];
    let smuggled = http_request("POST", "/mcp", add.port, &name_headers, add.body.as_bytes());
    let path_session = [JSON, ACCEPT_BOTH, ("Mcp-Session-Id", "../../etc/passwd")];
    let legacy = support::legacy_add(&json!(1), 1.0, 1.0).to_string();
    let path_id = http_request("POST", "/mcp", add.port, &path_session, legacy.as_bytes());
    let many = (0..500).fold(String::new(), |mut h, i| {
        let _ = write!(h, "X-H{i}: v\r\n");
        h
    });
    rows.extend([
        row(
            "a CRLF smuggled in a base64 Mcp-Name",
            smuggled,
            Want::Status(400, Some(-32020)),
        ),
        row("a session id with path characters", path_id, NOT_FOUND),
        row(
            "a 64 KiB header",
            add.with(&[("X-Big", &"b".repeat(64 * 1024))]),
            Want::Answered,
        ),
        row(
            "a 1 MiB header",
            add.with(&[("X-Big", &"b".repeat(1 << 20))]),
            Want::Refused,
        ),
        row("500 headers", add.sized(&many), Want::Refused),
    ]);
    rows
}

/// Standard base64 with padding (RFC 4648 §4), as the `=?base64?...?=`
/// form of an `Mcp-Name` header takes it.
#[allow(
    clippy::cast_possible_truncation,
    reason = "a 6-bit index and an ASCII byte"
)]
fn base64(input: &str) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let bytes = input.as_bytes();
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}
