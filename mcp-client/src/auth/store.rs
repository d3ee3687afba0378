//! [`TokenStore`]: where tokens and registrations are kept between runs.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

use base64::Engine as _;
use serde::{Deserialize, Serialize};

use super::BoxFuture;

/// What a client keeps for one authorization server and resource: its
/// registration and its tokens. Its `Debug` shows whether each secret is
/// there, never the secret.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
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
    /// The access token's type: `DPoP` for a token bound to
    /// [`dpop_key`](Self::dpop_key) (RFC 9449), else a bearer token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_type: Option<String>,
    /// The private key DPoP-bound tokens are bound to (PKCS#8, base64url):
    /// the tokens are useless without it, and it is as secret as they are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_key: Option<String>,
}

impl std::fmt::Debug for Stored {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stored")
            .field("client_id", &self.client_id)
            .field("client_secret", &redacted(self.client_secret.as_ref()))
            .field("access_token", &redacted(self.access_token.as_ref()))
            .field("refresh_token", &redacted(self.refresh_token.as_ref()))
            .field("expires_at", &self.expires_at)
            .field("scope", &self.scope)
            .field("token_type", &self.token_type)
            .field("dpop_key", &redacted(self.dpop_key.as_ref()))
            .finish()
    }
}

/// A secret as `Debug` shows it: `Some("<redacted>")` or `None`.
pub(super) fn redacted<T>(secret: Option<&T>) -> Option<&'static str> {
    secret.map(|_| "<redacted>")
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
        let found = oxmcp_wire::sync::lock(&self.map).get(key).cloned();
        Box::pin(async move { found })
    }

    fn save<'a>(&'a self, key: &'a str, value: Stored) -> BoxFuture<'a, ()> {
        oxmcp_wire::sync::lock(&self.map).insert(key.to_owned(), value);
        Box::pin(async {})
    }
}

/// Keeps everything in one JSON file, keyed by issuer and resource: a
/// command-line tool signs in once.
///
/// Each save writes a new file of mode 0600 on Unix (under a fresh random
/// name beside `path`, created exclusively, so nothing planted there is
/// written through), syncs it and renames it over `path`.
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

    /// Replaces the file with `bytes`: written to a new temporary file
    /// beside it, then renamed over it; the temporary file is removed if
    /// anything fails.
    async fn replace(&self, bytes: &[u8]) -> std::io::Result<()> {
        let dir = match self.path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.to_owned(),
            _ => PathBuf::from("."),
        };
        tokio::fs::create_dir_all(&dir).await?;
        let name = self
            .path
            .file_name()
            .map_or_else(|| "tokens".into(), |n| n.to_string_lossy().into_owned());
        let mut random = [0u8; 12];
        getrandom::fill(&mut random).map_err(|e| std::io::Error::other(e.to_string()))?;
        let suffix = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(random);
        let tmp = dir.join(format!(".{name}.{suffix}.tmp"));
        let mut options = tokio::fs::OpenOptions::new();
        // `create_new` is O_CREAT|O_EXCL: it fails on any existing path,
        // a symbolic link included (never followed), so the file is ours.
        options.write(true).create_new(true);
        #[cfg(unix)]
        options.mode(0o600);
        let mut file = options.open(&tmp).await?;
        let written = async {
            use tokio::io::AsyncWriteExt as _;
            // The umask may have narrowed the mode given at creation:
            // set it outright.
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt as _;
                file.set_permissions(std::fs::Permissions::from_mode(0o600))
                    .await?;
            }
            file.write_all(bytes).await?;
            file.sync_all().await?;
            drop(file);
            tokio::fs::rename(&tmp, &self.path).await
        };
        let result = written.await;
        if result.is_err() {
            let _ = tokio::fs::remove_file(&tmp).await;
        }
        result
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
            if let Err(e) = self.replace(&bytes).await {
                tracing::warn!(path = %self.path.display(), error = %e, "could not save tokens");
            }
        })
    }
}
