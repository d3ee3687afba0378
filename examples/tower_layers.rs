//! Tower layers on the HTTP side. `Server::http_service` is a
//! `tower::Service`, so HTTP concerns sit in front of MCP as ordinary layers:
//!
//! - `BearerAuth` (written here) answers 401 with `WWW-Authenticate` before
//!   MCP sees a request without a known token, and passes the caller's name on
//!   in the `x-authenticated-user` header, which it first removes from what the
//!   client sent, so it cannot be forged;
//! - tower's `ConcurrencyLimitLayer` bounds the requests being handled at once.
//!
//! The tools' permission hook then reads that header: only `admin` sees (and
//! may call) the admin toolbox. Inside, per tool call, tower layers again:
//! `ServerBuilder::layer` takes tower's `TimeoutLayer` and
//! `ConcurrencyLimitLayer` (behind `LoadShedLayer`, so a call over the limit
//! is refused with an `isError` result instead of waiting).
//!
//! Run with: `cargo run -p mcp-examples --bin tower_layers -- --port 3003`, then
//! POST to `http://127.0.0.1:3003/mcp` with `Authorization: Bearer reader-token`
//! or `Bearer admin-token`.

use std::collections::HashMap;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::Router;
use clap::Parser;
use http::header::{AUTHORIZATION, CONTENT_TYPE, WWW_AUTHENTICATE};
use http::{HeaderName, HeaderValue, Request, Response, StatusCode};
use mcp_examples::command_line;
use oxmcp_server::http::{HttpConfig, McpBody};
use oxmcp_server::policy::BoxFuture;
use oxmcp_server::{tool, Server};
use std::time::Duration;

use tower::limit::ConcurrencyLimitLayer;
use tower::load_shed::LoadShedLayer;
use tower::timeout::TimeoutLayer;
use tower::{Layer, Service, ServiceBuilder};

/// Where `BearerAuth` names the authenticated caller.
const USER: HeaderName = HeaderName::from_static("x-authenticated-user");

/// Tools anyone signed in may use.
#[derive(Debug)]
pub struct Public;

#[tool(description = "Tools for every signed-in user")]
impl Public {
    #[describe("The server's status")]
    pub fn status(&self) -> String {
        "all systems nominal".into()
    }
}

/// Tools for the administrator only.
#[derive(Debug)]
pub struct Admin;

#[tool(description = "Administration")]
impl Admin {
    #[describe("Flush every cache")]
    #[tool(destructive, idempotent)]
    pub fn flush_caches(&self) -> String {
        "caches flushed".into()
    }
}

/// A tower layer: bearer tokens to user names.
#[derive(Clone)]
pub struct BearerAuth {
    users: Arc<HashMap<String, HeaderValue>>,
}

impl BearerAuth {
    /// Accepts these `(token, user)` pairs.
    pub fn new<'a>(users: impl IntoIterator<Item = (&'a str, &'static str)>) -> Self {
        let users = users
            .into_iter()
            .map(|(token, user)| (token.to_owned(), HeaderValue::from_static(user)))
            .collect();
        BearerAuth {
            users: Arc::new(users),
        }
    }
}

// Tokens are secrets: never in a log.
impl std::fmt::Debug for BearerAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BearerAuth")
            .field("tokens", &self.users.len())
            .finish()
    }
}

impl<S> Layer<S> for BearerAuth {
    type Service = Authenticated<S>;

    fn layer(&self, inner: S) -> Authenticated<S> {
        Authenticated {
            inner,
            users: Arc::clone(&self.users),
        }
    }
}

/// The service `BearerAuth` wraps around another.
#[derive(Clone)]
pub struct Authenticated<S> {
    inner: S,
    users: Arc<HashMap<String, HeaderValue>>,
}

impl<S: std::fmt::Debug> std::fmt::Debug for Authenticated<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authenticated")
            .field("inner", &self.inner)
            .field("tokens", &self.users.len())
            .finish()
    }
}

impl<S, B> Service<Request<B>> for Authenticated<S>
where
    S: Service<Request<B>, Response = Response<McpBody>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = Response<McpBody>;
    type Error = S::Error;
    type Future = BoxFuture<'static, Result<Response<McpBody>, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut req: Request<B>) -> Self::Future {
        // Whatever the client says about itself is not to be believed.
        req.headers_mut().remove(USER);
        let user = req
            .headers()
            .get(AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .and_then(|token| self.users.get(token))
            .cloned();
        match user {
            Some(user) => {
                req.headers_mut().insert(USER, user);
                Box::pin(self.inner.call(req))
            }
            None => Box::pin(async { Ok(unauthorized()) }),
        }
    }
}

/// 401 with a JSON-RPC error body, as MCP clients expect from an HTTP server.
fn unauthorized() -> Response<McpBody> {
    let body = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"missing or unknown bearer token"}}"#;
    let mut response = Response::new(McpBody::full(body));
    *response.status_mut() = StatusCode::UNAUTHORIZED;
    let headers = response.headers_mut();
    headers.insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// The application: MCP at `/mcp` behind the two layers.
pub fn app(server: &Server) -> Router {
    let mcp = ServiceBuilder::new()
        .layer(ConcurrencyLimitLayer::new(256))
        .layer(BearerAuth::new([
            ("reader-token", "reader"),
            ("admin-token", "admin"),
        ]))
        .service(server.http_service(HttpConfig::default()));
    Router::new().route_service("/mcp", mcp)
}

/// Bearer-token auth and a concurrency limit as tower layers in front of MCP.
#[derive(Debug, Parser)]
#[command(
    name = "tower_layers",
    version,
    after_help = "Examples:\n  \
        tower_layers                                # http://127.0.0.1:3003/mcp\n  \
        tower_layers --port 0"
)]
struct Args {
    /// Serve MCP at `http://127.0.0.1:PORT/mcp` (0 picks a free port; stderr names it).
    #[arg(long, value_name = "PORT", default_value_t = 3003)]
    port: u16,
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let port = command_line::parse::<Args>().port;
    let server = Server::builder("tower-layers", env!("CARGO_PKG_VERSION"))
        .toolbox(Public)
        .toolbox(Admin)
        .visibility(|caller, tool| {
            tool.toolbox != "Admin" || caller.header(USER.as_str()) == Some("admin")
        })
        // Per tool call: at most 5 s, and 32 at once; the 33rd is refused.
        .layer(TimeoutLayer::new(Duration::from_secs(5)))
        .layer(LoadShedLayer::new())
        .layer(ConcurrencyLimitLayer::new(32))
        .build();
    // `--port 0` picks a free port; the line below names it.
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    eprintln!("listening on http://{}/mcp", listener.local_addr()?);
    axum::serve(listener, app(&server)).await
}
