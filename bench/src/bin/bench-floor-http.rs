//! The Streamable HTTP floor: the least work a JSON-parsing MCP server over
//! HTTP can do.
//!
//! A bare hyper 1.x HTTP/1.1 server on `127.0.0.1:<--port>` (any path, any
//! method). It reads each request body whole and parses it with `serde_json`,
//! keeping only `id`, `method` and whether `params._meta` names a protocol
//! version; the rest is skipped but still validated. A body without an `id`
//! (a notification) gets `202 Accepted`. Every other body gets an
//! `application/json` canned response carrying that id: a minimal initialize
//! result plus an `mcp-session-id` header for `initialize`, and the `add(1, 2)`
//! tool result for anything else, with `"resultType":"complete"` when the
//! request carried `_meta["io.modelcontextprotocol/protocolVersion"]`
//! (2026-07-28). A body that is not JSON gets `400`.
//!
//! It runs on a current-thread tokio runtime, the fastest setup on a small
//! machine where the driver needs a core of its own; `--multi-thread` uses
//! the multi-threaded runtime instead.

use std::borrow::Cow;
use std::convert::Infallible;
use std::net::Ipv4Addr;
use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{HeaderValue, CONTENT_TYPE};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde::Deserialize;
use serde_json::Value;
use tokio::net::TcpListener;

#[derive(Deserialize)]
struct Message<'a> {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default, borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    params: Option<Params<'a>>,
}

#[derive(Deserialize)]
struct Params<'a> {
    #[serde(default, rename = "_meta", borrow)]
    meta: Option<Meta<'a>>,
}

#[derive(Deserialize)]
struct Meta<'a> {
    #[serde(default, rename = "io.modelcontextprotocol/protocolVersion", borrow)]
    protocol_version: Option<Cow<'a, str>>,
}

const HEAD: &[u8] = br#"{"jsonrpc":"2.0","id":"#;
const INITIALIZE_TAIL: &[u8] = br#","result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"bench-floor-http","version":"0.1.0"}}}"#;
const CALL_TAIL: &[u8] = br#","result":{"content":[{"type":"text","text":"3"}]}}"#;
const MODERN_CALL_TAIL: &[u8] =
    br#","result":{"content":[{"type":"text","text":"3"}],"resultType":"complete"}}"#;

static SESSIONS: AtomicU64 = AtomicU64::new(0);

fn respond(status: StatusCode, body: Bytes) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(body));
    *response.status_mut() = status;
    response
}

async fn handle(request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let body = match request.into_body().collect().await {
        Ok(body) => body.to_bytes(),
        Err(_) => return Ok(respond(StatusCode::BAD_REQUEST, Bytes::new())),
    };
    let Ok(message) = serde_json::from_slice::<Message<'_>>(&body) else {
        return Ok(respond(StatusCode::BAD_REQUEST, Bytes::new()));
    };
    let Some(id) = message.id else {
        return Ok(respond(StatusCode::ACCEPTED, Bytes::new()));
    };
    let initialize = message.method.as_deref() == Some("initialize");
    let modern = message
        .params
        .and_then(|params| params.meta)
        .is_some_and(|meta| meta.protocol_version.is_some());
    let tail = match (initialize, modern) {
        (true, _) => INITIALIZE_TAIL,
        (false, false) => CALL_TAIL,
        (false, true) => MODERN_CALL_TAIL,
    };
    let mut out = Vec::with_capacity(HEAD.len() + 20 + tail.len());
    out.extend_from_slice(HEAD);
    serde_json::to_writer(&mut out, &id).expect("a JSON value serializes");
    out.extend_from_slice(tail);

    let mut response = respond(StatusCode::OK, Bytes::from(out));
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    if initialize {
        let session = SESSIONS.fetch_add(1, Ordering::Relaxed);
        let value = HeaderValue::from_str(&format!("floor-{session}")).expect("a valid header");
        headers.insert("mcp-session-id", value);
    }
    Ok(response)
}

async fn serve(port: u16) -> std::io::Result<()> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port)).await?;
    loop {
        let (stream, _) = listener.accept().await?;
        stream.set_nodelay(true)?;
        tokio::spawn(async move {
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service_fn(handle))
                .await;
        });
    }
}

fn port_argument() -> Result<u16, String> {
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--port" {
            let value = args.next().ok_or("--port needs a value")?;
            return value
                .parse()
                .map_err(|_| format!("--port needs a port number, not {value:?}"));
        }
    }
    Err("usage: bench-floor-http --port N [--multi-thread]".into())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port = port_argument()?;
    let mut builder = if std::env::args().any(|arg| arg == "--multi-thread") {
        tokio::runtime::Builder::new_multi_thread()
    } else {
        tokio::runtime::Builder::new_current_thread()
    };
    let runtime = builder.enable_all().build()?;
    runtime.block_on(serve(port))?;
    Ok(())
}
