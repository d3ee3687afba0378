//! [`TestClient`]: a server and a client connected to it in one process.

use oxmcp_client::{Client, ClientBuilder};
use oxmcp_server::Server;
use tokio::task::JoinHandle;

use crate::Error;

/// Room in each direction of the in-memory pipe: a whole listing or result
/// of ordinary size passes without waiting for the other side to read.
const PIPE_BYTES: usize = 256 * 1024;

/// A client connected to a server running in the same process, for tests.
///
/// It dereferences to the [`oxmcp_client::Client`], so everything a client can
/// do (list prompts, read resources, subscribe, call with progress) is there
/// as in production; the one-line helpers (`call_text`, ...) are on top.
#[derive(Debug)]
pub struct TestClient {
    client: Client,
    server: JoinHandle<Result<(), oxmcp_server::Error>>,
    /// Ends an HTTP server (`connect_as`); the in-memory one ends with its input.
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl TestClient {
    /// Serves `server` over an in-memory pipe (`tokio::io::duplex`, no
    /// socket) and connects a client to it with the default settings (the
    /// newest protocol era both sides speak).
    pub async fn connect(server: Server) -> Result<TestClient, Error> {
        TestClient::connect_with(server, Client::builder()).await
    }

    /// [`connect`](Self::connect) with a client configured by `builder`: a
    /// protocol era (`.protocol(Era::Legacy)`), handlers for sampling or
    /// elicitation, timeouts.
    pub async fn connect_with(server: Server, builder: ClientBuilder) -> Result<TestClient, Error> {
        let (client_end, server_end) = tokio::io::duplex(PIPE_BYTES);
        let (server_read, server_write) = tokio::io::split(server_end);
        let server = tokio::spawn(server.serve_io(server_read, server_write));
        let (client_read, client_write) = tokio::io::split(client_end);
        match builder.connect_io(client_read, client_write).await {
            Ok(client) => Ok(TestClient {
                client,
                server,
                stop: None,
            }),
            Err(e) => {
                server.abort();
                Err(Error::Connect(e))
            }
        }
    }

    /// Connects as a caller with `identity`: its subject, client id, scopes
    /// and claims reach the server's tools
    /// ([`Context::identity`](oxmcp_server::Context::identity)), and a tool,
    /// prompt or resource needing a scope the identity lacks is hidden from
    /// its lists and refused as a real token would be (HTTP 403).
    ///
    /// Authorization is checked on HTTP only, so the server is served by its
    /// real HTTP transport, with its real OAuth gate, on a loopback port of
    /// this machine (`127.0.0.1`, port chosen by the system), and the gate's
    /// verifier accepts one random token, sent by this client, as standing
    /// for `identity`: what is tested is the server's own scope handling,
    /// with no authorization server and no JWT.
    #[cfg(feature = "auth")]
    pub async fn connect_as(
        server: Server,
        identity: oxmcp_server::auth::Identity,
    ) -> Result<TestClient, Error> {
        TestClient::connect_as_with(server, identity, Client::builder()).await
    }

    /// [`connect_as`](Self::connect_as) with a client configured by `builder`.
    #[cfg(feature = "auth")]
    pub async fn connect_as_with(
        server: Server,
        identity: oxmcp_server::auth::Identity,
        builder: ClientBuilder,
    ) -> Result<TestClient, Error> {
        let http = oxmcp_server::http::HttpConfig::default();
        TestClient::connect_as_over(server, identity, http, builder).await
    }

    /// [`connect_as_with`](Self::connect_as_with), the server served with
    /// `http`, the configuration the program serves it with (its store,
    /// session and origin settings, its limits), so that what is tested is
    /// what runs. Its authorization, if it has one, is replaced by the
    /// gate standing for `identity`, and its endpoint is `/mcp` (the client
    /// is pointed there; the path changes nothing a tool sees).
    #[cfg(feature = "auth")]
    pub async fn connect_as_over(
        server: Server,
        identity: oxmcp_server::auth::Identity,
        http: oxmcp_server::http::HttpConfig,
        builder: ClientBuilder,
    ) -> Result<TestClient, Error> {
        let listener = tokio::net::TcpListener::bind((std::net::Ipv4Addr::LOCALHOST, 0))
            .await
            .map_err(Error::Listen)?;
        let addr = listener.local_addr().map_err(Error::Listen)?;
        let resource = format!("http://{addr}/mcp");
        let token = auth::token()
            .map_err(|e| Error::Authorization(std::io::Error::other(e.to_string()).into()))?;
        let verifier = auth::OneToken {
            token: token.clone(),
            identity,
        };
        let authorization = oxmcp_server::auth::Authorization::new(&resource, verifier)
            .map_err(|e| Error::Authorization(e.into()))?;
        let config = http.endpoint("/mcp").authorization(authorization);
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(server.serve_http_on(listener, config, async {
            let _ = stopped.await;
        }));
        let connected = builder
            .http_header("Authorization", format!("Bearer {token}"))
            .connect_http(&resource)
            .await;
        match connected {
            Ok(client) => Ok(TestClient {
                client,
                server,
                stop: Some(stop),
            }),
            Err(e) => {
                server.abort();
                Err(Error::Connect(e))
            }
        }
    }

    /// The client, for what the helpers do not cover.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Closes the session and waits for the server to finish.
    ///
    /// # Panics
    ///
    /// If the server ended with an error (or panicked): a test that closes
    /// its client sees a server that failed behind it.
    pub async fn close(self) {
        self.client.close().await;
        if let Some(stop) = self.stop {
            let _ = stop.send(());
        }
        match self.server.await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => panic!("the server under test failed: {e}"),
            Err(e) => panic!("the server under test panicked: {e}"),
        }
    }
}

impl std::ops::Deref for TestClient {
    type Target = Client;

    fn deref(&self) -> &Client {
        &self.client
    }
}

/// The verifier `connect_as` gives the server's gate.
#[cfg(feature = "auth")]
mod auth {
    use oxmcp_server::auth::{Identity, TokenError, TokenVerifier, VerifyFuture};

    /// Accepts `token`, and only it, as standing for `identity`.
    pub(super) struct OneToken {
        pub(super) token: String,
        pub(super) identity: Identity,
    }

    impl TokenVerifier for OneToken {
        fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a> {
            Box::pin(async move {
                if token == self.token {
                    Ok(self.identity.clone())
                } else {
                    Err(TokenError::invalid("not the test client's token"))
                }
            })
        }
    }

    /// A random token (another program on the machine cannot guess it and
    /// call the loopback server as the test's identity).
    pub(super) fn token() -> Result<String, getrandom::Error> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes)?;
        Ok(bytes.iter().fold(String::new(), |mut hex, b| {
            use std::fmt::Write as _;
            let _ = write!(hex, "{b:02x}");
            hex
        }))
    }
}
