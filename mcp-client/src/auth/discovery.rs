//! Discovery: the server's Protected Resource Metadata (from the
//! challenge, else the well-known URLs), its authorization server's
//! metadata (the spec's OAuth/OpenID order, `issuer` checked), and the
//! 2025-03-26 fallbacks. Every URL read or used here must be https, or
//! http to a loopback address.

use oxmcp_wire::http_client::fetch_json;
use oxmcp_wire::oauth::{
    authorization_server_metadata_urls, is_secure_or_loopback, protected_resource_metadata_urls,
    split_url, AuthorizationServerMetadata, Challenge, ProtectedResourceMetadata,
};

use super::flow::{Authenticator, Flow, Found, TIMEOUT};
use super::AuthError;

impl Authenticator {
    /// Finds the resource's metadata and its authorization server's.
    pub(super) async fn discover(
        &self,
        flow: &mut Flow,
        challenge: Option<&Challenge>,
    ) -> Result<(), AuthError> {
        let named = challenge.and_then(|c| c.get("resource_metadata"));
        if let Some(found) = &flow.found {
            if named.is_none() || named == found.prm_url.as_deref() {
                return Ok(());
            }
        }
        let candidates = match named {
            Some(url) => vec![url.to_owned()],
            None => protected_resource_metadata_urls(&self.server_url),
        };
        // The resource metadata carries no credential, but it names the
        // issuer the user signs in with and the client's credentials go to:
        // read over plain http, anyone on the path could name another.
        for url in &candidates {
            secure(url)?;
        }
        let mut prm = None;
        for url in candidates {
            match fetch_json::<ProtectedResourceMetadata>(&self.client, &url, TIMEOUT).await {
                Ok(doc) => {
                    prm = Some((url, doc));
                    break;
                }
                Err(e) => {
                    tracing::debug!(%url, error = %oxmcp_types::error::Chain(&e), "no resource metadata here");
                }
            }
        }
        let found = match prm {
            Some((url, doc)) => self.with_resource_metadata(url, doc).await?,
            None => self.legacy_discovery().await?,
        };
        let stored = self
            .oauth
            .store
            .load(&found.store_key)
            .await
            .unwrap_or_default();
        flow.stored = stored;
        flow.found = Some(found);
        Ok(())
    }

    async fn with_resource_metadata(
        &self,
        url: String,
        prm: ProtectedResourceMetadata,
    ) -> Result<Found, AuthError> {
        if !covers(&prm.resource, &self.server_url) {
            return Err(AuthError::Discovery(format!(
                "the resource metadata at {url} is for `{}`, not for `{}`",
                prm.resource, self.server_url
            )));
        }
        let issuer = prm.authorization_servers.first().cloned().ok_or_else(|| {
            AuthError::Discovery(format!(
                "the resource metadata at {url} names no authorization server"
            ))
        })?;
        let meta = self.issuer_metadata(&issuer).await?;
        Ok(Found {
            store_key: format!("{issuer} {}", prm.resource),
            resource: prm.resource.clone(),
            prm_url: Some(url),
            prm: Some(prm),
            meta,
            discovered: true,
        })
    }

    /// An issuer's metadata, from the first of the spec's URLs that has it;
    /// its `issuer` must be the one asked for.
    async fn issuer_metadata(
        &self,
        issuer: &str,
    ) -> Result<AuthorizationServerMetadata, AuthError> {
        secure(issuer)?;
        let urls = authorization_server_metadata_urls(issuer);
        for url in &urls {
            secure(url)?;
        }
        let mut last = None;
        for url in urls {
            match fetch_json::<AuthorizationServerMetadata>(&self.client, &url, TIMEOUT).await {
                Ok(meta) if meta.issuer == issuer => {
                    secure_endpoints(&meta)?;
                    return Ok(meta);
                }
                Ok(meta) => {
                    return Err(AuthError::Discovery(format!(
                        "the metadata at {url} is for the issuer `{}`, not `{issuer}`",
                        meta.issuer
                    )))
                }
                Err(e) => last = Some(e),
            }
        }
        Err(match last {
            Some(e) => AuthError::Discovery(format!(
                "no metadata for the issuer `{issuer}`: {}",
                oxmcp_types::error::Chain(&e)
            )),
            None => AuthError::Discovery(format!("`{issuer}` is not an http(s) issuer URL")),
        })
    }

    /// 2025-03-26: no resource metadata; the authorization server is the MCP
    /// server's origin, its metadata at the root, else the default endpoints.
    async fn legacy_discovery(&self) -> Result<Found, AuthError> {
        let (origin, _) = split_url(&self.server_url).ok_or_else(|| {
            AuthError::Discovery(format!("`{}` is not an http(s) URL", self.server_url))
        })?;
        let origin = origin.to_owned();
        let url = format!("{origin}/.well-known/oauth-authorization-server");
        secure(&url)?;
        let (meta, discovered) = match fetch_json::<AuthorizationServerMetadata>(
            &self.client,
            &url,
            TIMEOUT,
        )
        .await
        {
            Ok(meta) => (meta, true),
            Err(e) => {
                tracing::debug!(error = %oxmcp_types::error::Chain(&e), "no authorization server metadata; using the default endpoints");
                let meta = AuthorizationServerMetadata {
                    issuer: origin.clone(),
                    authorization_endpoint: Some(format!("{origin}/authorize")),
                    token_endpoint: Some(format!("{origin}/token")),
                    registration_endpoint: Some(format!("{origin}/register")),
                    ..AuthorizationServerMetadata::default()
                };
                (meta, false)
            }
        };
        secure_endpoints(&meta)?;
        Ok(Found {
            store_key: format!("{} {}", meta.issuer, self.server_url),
            resource: self.server_url.clone(),
            prm_url: None,
            prm: None,
            meta,
            discovered,
        })
    }
}

/// `url` if it is https, or http to a loopback address.
fn secure(url: &str) -> Result<(), AuthError> {
    if is_secure_or_loopback(url) {
        Ok(())
    } else {
        Err(AuthError::Insecure(url.to_owned()))
    }
}

/// The endpoints the client sends the user or its credentials to, each
/// checked by [`secure`].
fn secure_endpoints(meta: &AuthorizationServerMetadata) -> Result<(), AuthError> {
    [
        &meta.authorization_endpoint,
        &meta.token_endpoint,
        &meta.registration_endpoint,
    ]
    .into_iter()
    .flatten()
    .try_for_each(|url| secure(url))
}

/// Whether the resource identifier `resource` covers the endpoint `url`:
/// the same origin (scheme and host without case), and the endpoint's path
/// at or under the resource's.
fn covers(resource: &str, url: &str) -> bool {
    let (Some((r_origin, r_path)), Some((u_origin, u_path))) =
        (split_url(resource), split_url(url))
    else {
        return false;
    };
    if !r_origin.eq_ignore_ascii_case(u_origin) {
        return false;
    }
    let r_path = r_path.trim_end_matches('/');
    u_path == r_path || u_path.starts_with(&format!("{r_path}/")) || r_path.is_empty()
}

#[cfg(test)]
mod tests {
    use super::covers;

    #[test]
    fn a_resource_covers_its_own_paths_only() {
        assert!(covers("http://h:1/mcp", "http://h:1/mcp"));
        assert!(covers("HTTP://H:1", "http://h:1/mcp"));
        assert!(covers("http://h:1/", "http://h:1/mcp"));
        assert!(!covers("http://h:1/other", "http://h:1/mcp"));
        assert!(!covers("http://h:1/mc", "http://h:1/mcp"));
        assert!(!covers("http://evil:1/mcp", "http://h:1/mcp"));
    }
}
