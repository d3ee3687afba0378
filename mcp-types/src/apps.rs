//! MCP Apps (`io.modelcontextprotocol/ui`): tools with a user interface.
//!
//! A tool names an HTML page, a `ui://` resource served as
//! [`MIME_TYPE`], in its `_meta.ui` ([`ToolUi`]); the host renders the page
//! in a sandboxed frame next to the conversation, and the page calls the
//! server's tools through the host. The resource's own `_meta.ui`
//! ([`ResourceUi`]) says what the sandbox may load and do. A client
//! supports Apps when its capabilities declare the extension with
//! `mimeTypes` including [`MIME_TYPE`].

use serde::{Deserialize, Serialize};

use crate::lifecycle::ClientCapabilities;

/// The MIME type of an app's page.
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The URI scheme of an app's page.
pub const SCHEME: &str = "ui://";

/// The `_meta` key under which tools and resources carry their Apps settings.
pub const META_KEY: &str = "ui";

/// Who may call a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    /// The model: the host offers the tool to the model.
    Model,
    /// The app: the page may call the tool through the host.
    App,
}

/// A tool's `_meta.ui`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolUi {
    /// The `ui://` resource the host renders for this tool's results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_uri: Option<String>,
    /// Who may call the tool; both when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visibility: Option<Vec<Visibility>>,
}

impl ToolUi {
    /// A tool's `_meta.ui`, if it has one that reads as such.
    pub fn of(tool: &crate::Tool) -> Option<ToolUi> {
        let value = tool.meta.as_ref()?.get(META_KEY)?;
        serde_json::from_value(value.clone()).ok()
    }

    /// Whether only the app may call the tool (the host hides it from the model).
    pub fn app_only(&self) -> bool {
        self.visibility
            .as_deref()
            .is_some_and(|v| !v.contains(&Visibility::Model))
    }
}

/// A `ui://` resource's `_meta.ui`: what its sandbox allows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceUi {
    /// The origins the page may reach (CSP); none when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub csp: Option<Csp>,
    /// The browser features the page asks for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permissions: Option<Permissions>,
    /// A dedicated origin for the sandbox (its format is the host's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// Whether the page wants a visible border.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefers_border: Option<bool>,
}

/// The origins an app's page may use, each list mapped by the host to
/// Content-Security-Policy directives; an empty list allows nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Csp {
    /// `fetch`, XHR and WebSocket targets (`connect-src`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub connect_domains: Vec<String>,
    /// Images, scripts, styles, fonts and media (`img-src`, `script-src`, ...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_domains: Vec<String>,
    /// Nested frames (`frame-src`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frame_domains: Vec<String>,
    /// Document base URIs (`base-uri`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub base_uri_domains: Vec<String>,
}

/// The browser features an app's page asks for (Permissions Policy); each
/// is an empty object on the wire when asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Permissions {
    /// `camera`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub camera: Option<crate::JsonObject>,
    /// `microphone`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub microphone: Option<crate::JsonObject>,
    /// `geolocation`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub geolocation: Option<crate::JsonObject>,
    /// `clipboard-write`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clipboard_write: Option<crate::JsonObject>,
}

impl Permissions {
    /// The permission named `name` on the wire or in Rust
    /// (`clipboardWrite` or `clipboard_write`), if it is one.
    pub fn slot(&mut self, name: &str) -> Option<&mut Option<crate::JsonObject>> {
        match name {
            "camera" => Some(&mut self.camera),
            "microphone" => Some(&mut self.microphone),
            "geolocation" => Some(&mut self.geolocation),
            "clipboard_write" | "clipboardWrite" => Some(&mut self.clipboard_write),
            _ => None,
        }
    }
}

/// What is wrong with `origin` as an entry of a page's [`Csp`], if
/// anything: it is a CSP source (`https://api.example.com`,
/// `https://*.example.com`, `wss://live.example.com:8443`): a scheme,
/// `://` and a host, without spaces, quotes, `;` or `,`, which would let
/// it add directives to the policy the host writes. A `const fn`, so that
/// an origin written in code is checked when it compiles.
pub const fn origin_problem(origin: &str) -> Option<&'static str> {
    let b = origin.as_bytes();
    let mut i = 0;
    while i < b.len() && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'+' | b'-' | b'.')) {
        i += 1;
    }
    if i == 0 || !b[0].is_ascii_alphabetic() {
        return Some("an origin starts with its scheme, as in `https://api.example.com`");
    }
    if i + 3 > b.len() || b[i] != b':' || b[i + 1] != b'/' || b[i + 2] != b'/' {
        return Some("an origin is a scheme, `://` and a host, as in `https://api.example.com`");
    }
    if i + 3 == b.len() {
        return Some("the origin names no host");
    }
    let mut j = i + 3;
    while j < b.len() {
        let c = b[j];
        let allowed = c.is_ascii_alphanumeric()
            || matches!(
                c,
                b'.' | b'-' | b'_' | b'*' | b':' | b'/' | b'[' | b']' | b'%' | b'~'
            );
        if !allowed {
            return Some(
                "an origin has no spaces, quotes, `;` or `,` (they would add to the host's policy)",
            );
        }
        j += 1;
    }
    None
}

/// Whether `capabilities` declare MCP Apps with pages of [`MIME_TYPE`].
pub fn client_supports(capabilities: &ClientCapabilities) -> bool {
    capabilities
        .extension(crate::extension::UI)
        .and_then(|settings| settings.get("mimeTypes"))
        .and_then(serde_json::Value::as_array)
        .is_some_and(|types| types.iter().any(|t| t.as_str() == Some(MIME_TYPE)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_and_resource_settings_have_the_wire_names() {
        let tool = ToolUi {
            resource_uri: Some("ui://notes/board".into()),
            visibility: Some(vec![Visibility::App]),
        };
        assert_eq!(
            serde_json::to_value(&tool).unwrap(),
            json!({"resourceUri": "ui://notes/board", "visibility": ["app"]})
        );
        assert!(tool.app_only());
        assert!(!ToolUi::default().app_only());
        let mut permissions = Permissions::default();
        *permissions.slot("clipboard_write").unwrap() = Some(crate::JsonObject::new());
        let page = ResourceUi {
            csp: Some(Csp {
                connect_domains: vec!["https://api.example.com".into()],
                ..Csp::default()
            }),
            permissions: Some(permissions),
            domain: None,
            prefers_border: Some(true),
        };
        assert_eq!(
            serde_json::to_value(&page).unwrap(),
            json!({
                "csp": {"connectDomains": ["https://api.example.com"]},
                "permissions": {"clipboardWrite": {}},
                "prefersBorder": true
            })
        );
    }

    #[test]
    fn origins_are_csp_sources_that_cannot_add_directives() {
        for good in [
            "https://api.example.com",
            "https://*.example.com",
            "wss://live.example.com:8443",
            "http://[::1]:8080",
        ] {
            assert_eq!(origin_problem(good), None, "{good}");
        }
        for bad in [
            "",
            "api.example.com",
            "https://",
            "https://a.com; script-src *",
            "https://a.com,https://b.com",
            "https://a.com 'unsafe-inline'",
            "1https://a.com",
        ] {
            assert!(origin_problem(bad).is_some(), "{bad}");
        }
    }

    #[test]
    fn a_client_supports_apps_when_it_declares_the_page_type() {
        let with = |settings: serde_json::Value| -> ClientCapabilities {
            serde_json::from_value(json!({"extensions": {crate::extension::UI: settings}})).unwrap()
        };
        assert!(client_supports(&with(json!({"mimeTypes": [MIME_TYPE]}))));
        assert!(!client_supports(&with(json!({"mimeTypes": ["text/html"]}))));
        assert!(!client_supports(&with(json!({}))));
        assert!(!client_supports(&ClientCapabilities::default()));
    }
}
