//! [`HttpServer`]: a server under test on a real 127.0.0.1 socket.

use std::net::SocketAddr;
use std::time::Duration;

use oxmcp_server::http::HttpConfig;
use oxmcp_server::Server;

/// A server on a real 127.0.0.1 socket.
pub struct HttpServer {
    pub addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<Result<(), oxmcp_server::Error>>,
}

impl HttpServer {
    pub async fn start(server: Server, config: HttpConfig) -> HttpServer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(server.serve_http_on(listener, config, async {
            let _ = stopped.await;
        }));
        HttpServer {
            addr,
            stop: Some(stop),
            task,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let _ = tokio::time::timeout(Duration::from_secs(15), &mut self.task).await;
    }
}
