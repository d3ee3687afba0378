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

impl Csp {
    /// Every origin of the four lists, in their order.
    pub fn origins(&self) -> impl Iterator<Item = &str> {
        [
            &self.connect_domains,
            &self.resource_domains,
            &self.frame_domains,
            &self.base_uri_domains,
        ]
        .into_iter()
        .flatten()
        .map(String::as_str)
    }

    /// The first origin [`origin_problem`] refuses, and why: what both a
    /// server (before it serves a page) and a host (before it writes the
    /// page's policy) check.
    pub fn bad_origin(&self) -> Option<(&str, &'static str)> {
        self.origins()
            .find_map(|origin| origin_problem(origin).map(|why| (origin, why)))
    }
}

/// What is wrong with `origin` as an entry of a page's [`Csp`], if
/// anything: it is a CSP source (`https://api.example.com`,
/// `https://*.example.com`, `wss://live.example.com:8443`): a scheme,
/// `://` and a host, without spaces, quotes, `;` or `,`, which would let
/// it add directives to the policy the host writes. The scheme is `https`
/// or `wss`; `http` and `ws` only for a loopback host (`localhost`,
/// `127.0.0.1`, `[::1]`), since plain text elsewhere lets anyone on the
/// way answer for the origin. A wildcard is only the first label of a name
/// of two labels or more (`https://*.example.com`): `https://*`,
/// `https://*.com` or a `*` port would let the page reach anyone. A
/// `const fn`, so that an origin written in code is checked when it
/// compiles.
pub const fn origin_problem(origin: &str) -> Option<&'static str> {
    const WILDCARD: &str = "a wildcard is only the first label of a host of two labels or more, as in `https://*.example.com`";
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
        if c == b'*' && j != i + 3 {
            return Some(WILDCARD);
        }
        j += 1;
    }
    let (host, end) = (i + 3, host_end(b, i + 3));
    if end == host {
        return Some("the origin names no host");
    }
    if b[host] == b'*' && !is_wildcard_name(b, host, end) {
        return Some(WILDCARD);
    }
    if span_is(b, 0, i, "https") || span_is(b, 0, i, "wss") {
        return None;
    }
    if !(span_is(b, 0, i, "http") || span_is(b, 0, i, "ws")) {
        return Some("an origin's scheme is https or wss (http or ws for a loopback host only)");
    }
    if span_is(b, host, end, "localhost")
        || span_is(b, host, end, "127.0.0.1")
        || span_is(b, host, end, "[::1]")
    {
        return None;
    }
    Some(
        "plain http or ws only for a loopback host (localhost, 127.0.0.1, [::1]): use https or wss",
    )
}

/// Where the host that starts at `start` ends: after a bracketed IPv6
/// address, else at a port's `:` or a path's `/`.
const fn host_end(b: &[u8], start: usize) -> usize {
    let mut end = start;
    if b[start] == b'[' {
        while end < b.len() && b[end] != b']' {
            end += 1;
        }
        return if end < b.len() { end + 1 } else { start };
    }
    while end < b.len() && b[end] != b':' && b[end] != b'/' {
        end += 1;
    }
    end
}

/// Whether `b[start..end]` is `*.` and a name with a dot between two labels.
const fn is_wildcard_name(b: &[u8], start: usize, end: usize) -> bool {
    if end < start + 2 || b[start + 1] != b'.' {
        return false;
    }
    let mut k = start + 3;
    while k + 1 < end {
        if b[k] == b'.' && b[k - 1] != b'.' {
            return true;
        }
        k += 1;
    }
    false
}

/// Whether `b[start..end]` is `text`, ASCII case aside.
const fn span_is(b: &[u8], start: usize, end: usize, text: &str) -> bool {
    let t = text.as_bytes();
    if end - start != t.len() {
        return false;
    }
    let mut k = 0;
    while k < t.len() {
        if b[start + k].to_ascii_lowercase() != t[k] {
            return false;
        }
        k += 1;
    }
    true
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
            "https://*.fonts.example/path",
            "wss://live.example.com:8443",
            "HTTPS://API.example.com",
            "http://[::1]:8080",
            "http://localhost:5173",
            "ws://127.0.0.1:9000",
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
            // wildcards that reach anyone
            "https://*",
            "https://*.com",
            "https://*.",
            "https://*..com",
            "https://a.*.com",
            "https://a.com:*",
            "*://a.com",
            // plain text beyond loopback, other schemes
            "http://api.example.com",
            "ws://live.example.com",
            "http://localhost.evil.example",
            "ftp://files.example.com",
            "javascript://a.com",
            "https://[::1",
        ] {
            assert!(origin_problem(bad).is_some(), "{bad}");
        }
    }

    #[test]
    fn a_csp_names_its_first_bad_origin_from_any_list() {
        let csp = Csp {
            connect_domains: vec!["https://api.example.com".into()],
            frame_domains: vec![
                "https://ok.example.com".into(),
                "http://evil.example".into(),
            ],
            ..Csp::default()
        };
        assert_eq!(csp.origins().count(), 3);
        let (origin, why) = csp.bad_origin().unwrap();
        assert_eq!(origin, "http://evil.example");
        assert!(why.contains("loopback"), "{why}");
        assert_eq!(Csp::default().bad_origin(), None);
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
