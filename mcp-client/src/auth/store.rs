//! [`TokenStore`]: where tokens and registrations are kept between runs.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::BoxFuture;

/// What a client keeps for one authorization server and resource: its
/// registration and its tokens.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stored {
    /// The client id the issuer gave (or the pre-registered / metadata URL one).
    pub client_id: Option<String>,
    /// Its secret, when the issuer gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// The access token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_token: Option<String>,
    /// The refresh token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// When the access token expires (seconds since the Unix epoch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// The scopes asked for, space-separated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

/// Keeps registrations and tokens, keyed by issuer and resource (a client
/// keeps separate state per authorization server, as the spec requires).
///
/// [`MemoryTokenStore`] is the default; [`FileTokenStore`] keeps them in a
/// JSON file for command-line tools.
pub trait TokenStore: Send + Sync + 'static {
    /// What is kept under `key`.
    fn load<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Option<Stored>>;
    /// Keeps `value` under `key`.
    fn save<'a>(&'a self, key: &'a str, value: Stored) -> BoxFuture<'a, ()>;
}

/// Keeps everything in memory, for the life of the process.
#[derive(Debug, Default)]
pub struct MemoryTokenStore {
    map: Mutex<HashMap<String, Stored>>,
}

impl TokenStore for MemoryTokenStore {
    fn load<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Option<Stored>> {
        let found = mcp_wire::sync::lock(&self.map).get(key).cloned();
        Box::pin(async move { found })
    }

    fn save<'a>(&'a self, key: &'a str, value: Stored) -> BoxFuture<'a, ()> {
        mcp_wire::sync::lock(&self.map).insert(key.to_owned(), value);
        Box::pin(async {})
    }
}

/// Keeps everything in one JSON file (created with mode 0600 on Unix),
/// keyed by issuer and resource: a command-line tool signs in once.
#[derive(Debug)]
pub struct FileTokenStore {
    path: PathBuf,
    lock: tokio::sync::Mutex<()>,
}

impl FileTokenStore {
    /// Uses the file at `path`.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        FileTokenStore {
            path: path.into(),
            lock: tokio::sync::Mutex::new(()),
        }
    }

    async fn read_all(&self) -> HashMap<String, Stored> {
        match tokio::fs::read(&self.path).await {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|e| {
                tracing::warn!(path = %self.path.display(), error = %e, "the token file is not valid JSON; starting afresh");
                HashMap::new()
            }),
            Err(_) => HashMap::new(),
        }
    }
}

impl TokenStore for FileTokenStore {
    fn load<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Option<Stored>> {
        Box::pin(async move {
            let _one = self.lock.lock().await;
            self.read_all().await.remove(key)
        })
    }

    fn save<'a>(&'a self, key: &'a str, value: Stored) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            let _one = self.lock.lock().await;
            let mut all = self.read_all().await;
            all.insert(key.to_owned(), value);
            let Ok(bytes) = serde_json::to_vec_pretty(&all) else {
                return;
            };
            if let Some(dir) = self.path.parent() {
                let _ = tokio::fs::create_dir_all(dir).await;
            }
            let tmp = self.path.with_extension("tmp");
            let mut options = tokio::fs::OpenOptions::new();
            options.write(true).create(true).truncate(true);
            #[cfg(unix)]
            options.mode(0o600);
            let written = async {
                use tokio::io::AsyncWriteExt as _;
                let mut file = options.open(&tmp).await?;
                file.write_all(&bytes).await?;
                file.sync_all().await?;
                tokio::fs::rename(&tmp, &self.path).await
            };
            if let Err(e) = written.await {
                tracing::warn!(path = %self.path.display(), error = %e, "could not save tokens");
            }
        })
    }
}
