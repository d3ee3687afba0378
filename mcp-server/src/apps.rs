//! MCP Apps (`io.modelcontextprotocol/ui`): tools that show a page.
//!
//! A tool names its page with `#[tool(ui = "ui://...")]` (or
//! [`ToolEntry::with_ui`](crate::ToolEntry::with_ui)); the page is a
//! resource of the same block, `#[resource(uri = "ui://...")]`, served as
//! [`MIME_TYPE`] with what its sandbox may load and do
//! (`#[resource(uri = "ui://...", app(connect_domains("https://..."), ...))]`,
//! or [`ResourceEntry::with_ui`](crate::resource::ResourceEntry::with_ui)). A `ui`
//! that names no page of its block is a compile error; at run time a tool
//! whose page the server does not serve is refused when it is added.
//!
//! The server offers the extension as soon as it has a page or a tool
//! with Apps settings. Only clients that declared it (with
//! `mimeTypes: ["text/html;profile=mcp-app"]`) see the pages in
//! `resources/list`, tools' `_meta.ui`, and the tools only the app may
//! call (`#[tool(visibility(app))]`); for the others such tools do not
//! show, and every tool answers with its `content` as always, so a tool
//! with a page must still return text that makes sense on its own.
//! Visibility is not access control: use scopes for that.

use oxmcp_types::{Meta, ReadResourceResult, Resource, ResourceContents, Tool};
use serde::Deserialize;

pub use oxmcp_types::apps::{Csp, Permissions, ResourceUi, ToolUi, Visibility, MIME_TYPE};

use crate::error::{Error, RequestError};

/// A page's sandbox settings as `#[resource(uri = "ui://...", app(...))]`
/// writes them (see [`ResourceUi`] for their meaning).
#[derive(Debug, Clone, Copy, Default)]
pub struct PageSpec {
    /// `connect_domains("https://api.example.com")`.
    pub connect_domains: &'static [&'static str],
    /// `resource_domains("https://cdn.example.com")`.
    pub resource_domains: &'static [&'static str],
    /// `frame_domains(...)`.
    pub frame_domains: &'static [&'static str],
    /// `base_uri_domains(...)`.
    pub base_uri_domains: &'static [&'static str],
    /// `permissions(camera, microphone, geolocation, clipboard_write)`.
    pub permissions: &'static [&'static str],
    /// `domain = "..."`.
    pub domain: Option<&'static str>,
    /// `prefers_border = true`.
    pub prefers_border: Option<bool>,
}

impl PageSpec {
    /// The wire form; an unknown permission is an error (the macros
    /// check names as the code compiles).
    pub(crate) fn to_ui(self) -> Result<ResourceUi, Error> {
        let list = |l: &[&str]| l.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let csp = Csp {
            connect_domains: list(self.connect_domains),
            resource_domains: list(self.resource_domains),
            frame_domains: list(self.frame_domains),
            base_uri_domains: list(self.base_uri_domains),
        };
        let mut permissions = Permissions::default();
        for name in self.permissions {
            let slot = permissions.slot(name).ok_or_else(|| {
                Error::Config(format!(
                    "unknown app permission `{name}`: camera, microphone, geolocation or clipboard_write"
                ))
            })?;
            *slot = Some(Meta::new());
        }
        Ok(ResourceUi {
            csp: (csp != Csp::default()).then_some(csp),
            permissions: (permissions != Permissions::default()).then_some(permissions),
            domain: self.domain.map(str::to_owned),
            prefers_border: self.prefers_border,
        })
    }
}

/// Sets `_meta.ui` to `value` (or removes it, for `None`).
pub(crate) fn set_meta<T: serde::Serialize>(meta: &mut Option<Meta>, value: Option<&T>) {
    match value.and_then(|v| serde_json::to_value(v).ok()) {
        Some(v) => {
            meta.get_or_insert_with(Meta::new)
                .insert(oxmcp_types::apps::META_KEY.to_owned(), v);
        }
        None => {
            if let Some(m) = meta {
                m.remove(oxmcp_types::apps::META_KEY);
                if m.is_empty() {
                    *meta = None;
                }
            }
        }
    }
}

/// A tool's `_meta.ui`, if it has one that reads as such.
pub(crate) fn tool_ui(tool: &Tool) -> Option<ToolUi> {
    ToolUi::of(tool)
}

/// Whether a resource is an app's page.
pub(crate) fn is_page(resource: &Resource) -> bool {
    resource.mime_type.as_deref() == Some(MIME_TYPE)
}

/// What a client that did not declare Apps sees of a tool: everything
/// but `_meta.ui`.
pub(crate) fn without_ui(mut tool: Tool) -> Tool {
    set_meta::<()>(&mut tool.meta, None);
    tool
}

/// Marks every content of a page's read result with its MIME type and
/// `_meta.ui`, where the handler left them out.
pub(crate) fn mark_contents(result: &mut ReadResourceResult, ui: Option<&serde_json::Value>) {
    for contents in &mut result.contents {
        let (mime, meta) = match contents {
            ResourceContents::Text(t) => (&mut t.mime_type, &mut t.meta),
            ResourceContents::Blob(b) => (&mut b.mime_type, &mut b.meta),
            _ => continue,
        };
        mime.get_or_insert_with(|| MIME_TYPE.to_owned());
        if let Some(ui) = ui {
            meta.get_or_insert_with(Meta::new)
                .entry(oxmcp_types::apps::META_KEY)
                .or_insert_with(|| ui.clone());
        }
    }
}

/// Checks that each tool's page is served: a static resource of that URI
/// (among the resources `page` finds) with the app MIME type.
pub(crate) fn check_pages<'a>(
    tools: impl IntoIterator<Item = &'a Tool>,
    page: impl Fn(&str) -> Option<Resource>,
) -> Result<(), Error> {
    for tool in tools {
        let Some(uri) = tool_ui(tool).and_then(|ui| ui.resource_uri) else {
            continue;
        };
        let name = &tool.name;
        if !uri.starts_with(oxmcp_types::apps::SCHEME) {
            return Err(Error::Config(format!(
                "tool `{name}` shows `{uri}`: an app's page is a `ui://` resource"
            )));
        }
        match page(&uri) {
            Some(r) if is_page(&r) => {}
            Some(r) => {
                return Err(Error::Config(format!(
                    "tool `{name}` shows `{uri}`, whose MIME type is {:?}: an app's page is served as `{MIME_TYPE}`",
                    r.mime_type.unwrap_or_default()
                )))
            }
            None => {
                return Err(Error::Config(format!(
                    "tool `{name}` shows `{uri}`, which no resource serves: add the page (a `#[resource(uri = \"{uri}\")]` returning its HTML) with the tool"
                )))
            }
        }
    }
    Ok(())
}

/// Checks the origins of each page's CSP ([`Csp::bad_origin`], which the
/// client checks too): one that would add a directive to the host's
/// policy, reach anyone, or go in plain text beyond loopback is refused.
pub(crate) fn check_origins<'a>(
    resources: impl IntoIterator<Item = &'a Resource>,
) -> Result<(), Error> {
    for r in resources {
        if let Some(why) = ui_problem(r.meta.as_ref()) {
            return Err(Error::Config(format!("page `{}`: {why}", r.uri)));
        }
    }
    Ok(())
}

/// Checks the origins of the `_meta.ui` a handler put in the contents it
/// read, which [`check_origins`] never sees (a handler written in code, a
/// template, a resource added at run time), as the client checks them:
/// a page whose CSP would inject a directive is not served. That is the
/// handler author's mistake, not the caller's: an internal error naming
/// the resource and the origin, and a warning in the server's log.
pub(crate) fn check_read(uri: &str, result: &ReadResourceResult) -> Result<(), RequestError> {
    for contents in &result.contents {
        let (page, meta) = match contents {
            ResourceContents::Text(t) => (&t.uri, &t.meta),
            ResourceContents::Blob(b) => (&b.uri, &b.meta),
            _ => continue,
        };
        if let Some(why) = ui_problem(meta.as_ref()) {
            tracing::warn!(%uri, %page, "page not served: {why}");
            return Err(RequestError::internal(format!(
                "reading `{uri}`: page `{page}` not served: {why}"
            )));
        }
    }
    Ok(())
}

/// What is wrong with the `_meta.ui` in `meta`, if anything: not MCP Apps
/// resource metadata, or a CSP origin [`Csp::bad_origin`] refuses.
fn ui_problem(meta: Option<&Meta>) -> Option<String> {
    let ui = meta?.get(oxmcp_types::apps::META_KEY)?;
    let Ok(ui) = ResourceUi::deserialize(ui) else {
        return Some("its `_meta.ui` is not MCP Apps resource metadata".to_owned());
    };
    let csp = ui.csp?;
    let (origin, why) = csp.bad_origin()?;
    Some(format!("invalid origin {origin:?}: {why}"))
}
