//! MCP Apps from the host's side: declare the extension
//! ([`ClientBuilder::apps`](crate::ClientBuilder::apps)) and fetch the page a
//! tool shows ([`Client::app_page`]), checked before it is used: a `ui://`
//! resource served as [`MIME_TYPE`], in one text content, with the sandbox
//! settings a host must apply ([`ResourceUi`]: the CSP origins, each
//! checked as the server checks them, the permissions). Rendering it, and passing messages between the page and
//! the server, is the host's part.

pub use oxmcp_types::apps::{ResourceUi, ToolUi, Visibility, MIME_TYPE};
use oxmcp_types::call::CallError;
use oxmcp_types::{ErrorObject, ResourceContents, Tool};

use crate::client::Client;

/// A tool's page, ready for a host to render.
#[derive(Debug, Clone, PartialEq)]
pub struct AppPage {
    /// Its `ui://` URI.
    pub uri: String,
    /// The HTML document.
    pub html: String,
    /// What the sandbox may load and do: the content's `_meta.ui`, else the
    /// listing's (empty when neither says anything: nothing beyond the page).
    pub ui: ResourceUi,
}

impl Client {
    /// The page `tool` shows (`_meta.ui.resourceUri`), read from the server
    /// and checked; `None` when the tool has none. The server shows pages
    /// only to clients that declared MCP Apps
    /// ([`ClientBuilder::apps`](crate::ClientBuilder::apps)).
    ///
    /// # Errors
    ///
    /// The read's errors, and [`CallError::Protocol`] when the page is not
    /// a `ui://` URI, not served as one text content of [`MIME_TYPE`], or
    /// when its CSP names an origin a host must not write into its policy
    /// (one with a space, quote, `;` or `,`; a wildcard beyond the first
    /// label of a name, as `https://*`; a scheme other than `https` and
    /// `wss`, `http` and `ws` aside for a loopback host), checked as our
    /// server checks the pages it serves.
    pub async fn app_page(&self, tool: &Tool) -> Result<Option<AppPage>, CallError> {
        let Some(uri) = ToolUi::of(tool).and_then(|ui| ui.resource_uri) else {
            return Ok(None);
        };
        if !uri.starts_with(oxmcp_types::apps::SCHEME) {
            return Err(refused(&uri, "an app's page is a `ui://` resource"));
        }
        let read = self.read_resource(&uri).await?;
        let text = match read.contents.as_slice() {
            [ResourceContents::Text(t)] if t.uri == uri => t,
            [_] => return Err(refused(&uri, "the server sent another resource, or bytes")),
            _ => return Err(refused(&uri, "a page is one text content")),
        };
        if text.mime_type.as_deref() != Some(MIME_TYPE) {
            return Err(refused(
                &uri,
                &format!("its MIME type is {:?}, not {MIME_TYPE}", text.mime_type),
            ));
        }
        let from_content = text
            .meta
            .as_ref()
            .and_then(|m| m.get(oxmcp_types::apps::META_KEY))
            .cloned();
        let ui = match from_content {
            Some(ui) => Some(ui),
            None => self.listed_ui(&uri).await?,
        };
        let ui: ResourceUi = match ui {
            Some(v) => serde_json::from_value(v)
                .map_err(|e| refused(&uri, &format!("its `_meta.ui` does not read: {e}")))?,
            None => ResourceUi::default(),
        };
        check_origins(&uri, &ui)?;
        Ok(Some(AppPage {
            uri,
            html: text.text.clone(),
            ui,
        }))
    }

    /// The `_meta.ui` of `uri` in the server's resource list, if any.
    async fn listed_ui(&self, uri: &str) -> Result<Option<serde_json::Value>, CallError> {
        Ok(self
            .list_resources()
            .await?
            .into_iter()
            .find(|r| r.uri == uri)
            .and_then(|r| r.meta?.remove(oxmcp_types::apps::META_KEY)))
    }
}

/// Refuses a page whose CSP names an origin a server of ours would refuse
/// to serve ([`Csp::bad_origin`](oxmcp_types::apps::Csp::bad_origin)): a host
/// writes these origins into the page's Content-Security-Policy, where a
/// `;` or a space adds directives, `https://*` lets the page reach anyone,
/// and plain `http` beyond loopback lets anyone on the way answer. The
/// whole page is refused rather than the origin dropped, so that a host
/// never renders a page with a policy other than the one its server meant.
fn check_origins(uri: &str, ui: &ResourceUi) -> Result<(), CallError> {
    match ui.csp.as_ref().and_then(|csp| csp.bad_origin()) {
        Some((origin, why)) => Err(refused(
            uri,
            &format!("its CSP names the origin {origin:?}: {why}"),
        )),
        None => Ok(()),
    }
}

fn refused(uri: &str, why: &str) -> CallError {
    CallError::Protocol(ErrorObject::invalid_params(format!(
        "app page {uri} refused: {why}"
    )))
}
