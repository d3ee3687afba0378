//! [`Error`]: why a [`TestClient`](crate::TestClient) could not connect.

/// Why a [`TestClient`](crate::TestClient) could not connect to the server.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The client's handshake with the server failed.
    #[error("the test client could not connect to the server")]
    Connect(#[source] oxmcp_client::Error),
    /// No loopback port could be bound for the server (`connect_as`).
    #[error("no loopback port for the server")]
    Listen(#[source] std::io::Error),
    /// The server's authorization could not be set up (`connect_as`).
    #[error("the server's authorization could not be set up")]
    Authorization(#[source] Box<dyn std::error::Error + Send + Sync>),
}
