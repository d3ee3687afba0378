//! What a method of a `#[tool]` block is besides a tool: a prompt
//! (`#[prompt]`), a resource or resource template (`#[resource(...)]`), or
//! the completion function of a prompt's argument or a template's variable
//! (`#[complete(target, argument)]`). The attribute is read and stripped here.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{Attribute, Ident, LitStr};

use crate::ctxt::Ctxt;

/// What a method of a `#[tool]` block is.
pub(crate) enum ItemKind {
    /// A tool (no attribute).
    Tool,
    /// `#[prompt]`.
    Prompt(Named),
    /// `#[resource(uri = ...)]` or `#[resource(template = ...)]`.
    Resource(ResourceAttr),
    /// `#[complete(target, argument)]`.
    Complete(CompleteAttr),
    /// A kind attribute that could not be read (already reported): nothing
    /// is generated for the method and nothing more is said of it.
    Broken,
}

/// A prompt's optional `name` and `title`.
#[derive(Default)]
pub(crate) struct Named {
    pub(crate) name: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
}

/// `#[resource(...)]`.
pub(crate) struct ResourceAttr {
    pub(crate) named: Named,
    /// `uri = "..."`: a static resource.
    pub(crate) uri: Option<LitStr>,
    /// `template = "..."`: a resource template.
    pub(crate) template: Option<LitStr>,
    pub(crate) mime_type: Option<LitStr>,
    /// The variables of a valid template, in order.
    pub(crate) variables: Vec<String>,
    /// `app(...)`: the sandbox settings of an app's page.
    pub(crate) app: Option<AppAttr>,
}

/// `app(connect_domains("..."), permissions(camera), domain = "...", prefers_border = true)`
/// in `#[resource(uri = "ui://...", ...)]`.
#[derive(Default)]
pub(crate) struct AppAttr {
    /// `connect_domains`, `resource_domains`, `frame_domains`, `base_uri_domains`.
    pub(crate) domains: Vec<(Ident, Vec<LitStr>)>,
    pub(crate) permissions: Vec<Ident>,
    pub(crate) domain: Option<LitStr>,
    pub(crate) prefers_border: Option<syn::LitBool>,
}

/// The lists of origins a page's CSP has.
const DOMAIN_LISTS: [&str; 4] = [
    "connect_domains",
    "resource_domains",
    "frame_domains",
    "base_uri_domains",
];
/// The permissions a page may ask for.
const PERMISSIONS: [&str; 4] = ["camera", "microphone", "geolocation", "clipboard_write"];
/// The MIME type of an app's page.
pub(crate) const APP_MIME_TYPE: &str = "text/html;profile=mcp-app";

impl ResourceAttr {
    /// Whether the resource is an app's page (a `ui://` URI).
    pub(crate) fn is_page(&self) -> bool {
        self.uri
            .as_ref()
            .is_some_and(|u| u.value().starts_with("ui://"))
    }
}

impl ResourceAttr {
    /// The URI or the template.
    pub(crate) fn address(&self) -> Option<&LitStr> {
        self.uri.as_ref().or(self.template.as_ref())
    }
}

/// `#[complete(target, argument)]`.
pub(crate) struct CompleteAttr {
    pub(crate) target: Ident,
    pub(crate) argument: Ident,
}

impl ItemKind {
    /// What the item is called in messages.
    pub(crate) fn noun(&self) -> &'static str {
        match self {
            ItemKind::Tool => "tool",
            ItemKind::Prompt(_) => "prompt",
            ItemKind::Resource(r) if r.template.is_some() => "resource template",
            ItemKind::Resource(_) => "resource",
            ItemKind::Complete(_) => "completion function",
            ItemKind::Broken => "item",
        }
    }

    /// The `name = "..."` and `title = "..."` of a prompt or resource.
    pub(crate) fn named(&self) -> Option<&Named> {
        match self {
            ItemKind::Prompt(n) => Some(n),
            ItemKind::Resource(r) => Some(&r.named),
            _ => None,
        }
    }
}

const KINDS: [&str; 3] = ["prompt", "resource", "complete"];

/// `scopes` written in `#[prompt(...)]` or `#[resource(...)]`.
const SCOPES_HERE: &str = "`scopes` goes in the method's own #[tool(...)], as on a tool: write #[tool(scopes(\"notes:read\"))] above the method";

/// Whether `attr` is one of `#[prompt]`, `#[resource]`, `#[complete]`.
pub(crate) fn is_kind_attr(attr: &Attribute) -> bool {
    KINDS.iter().any(|k| attr.path().is_ident(k))
}

/// Reads and strips the kind attribute of a method.
pub(crate) fn item_kind(cx: &Ctxt, attrs: &mut Vec<Attribute>) -> ItemKind {
    let mut kind = ItemKind::Tool;
    let mut first: Option<TokenStream> = None;
    attrs.retain(|attr| {
        if !is_kind_attr(attr) {
            return true;
        }
        if first.is_some() {
            cx.error_spanned_by(
                attr,
                "one method is one thing: a tool, a #[prompt], a #[resource] or a #[complete] function; remove this attribute",
            );
            return false;
        }
        first = Some(attr.to_token_stream());
        let parsed = if attr.path().is_ident("prompt") {
            prompt(attr).map(ItemKind::Prompt)
        } else if attr.path().is_ident("resource") {
            resource(attr).map(ItemKind::Resource)
        } else {
            complete(attr).map(ItemKind::Complete)
        };
        match parsed {
            Ok(k) => kind = k,
            Err(e) => {
                cx.syn_error(e);
                kind = ItemKind::Broken;
            }
        }
        false
    });
    kind
}

fn prompt(attr: &Attribute) -> syn::Result<Named> {
    let mut named = Named::default();
    if matches!(attr.meta, syn::Meta::Path(_)) {
        return Ok(named);
    }
    attr.parse_nested_meta(|meta| {
        if meta.path.is_ident("name") {
            named.name = Some(meta.value()?.parse()?);
        } else if meta.path.is_ident("title") {
            named.title = Some(meta.value()?.parse()?);
        } else if meta.path.is_ident("scopes") {
            return Err(meta.error(SCOPES_HERE));
        } else {
            return Err(
                meta.error("unknown key: #[prompt] takes `name = \"...\"` and `title = \"...\"`")
            );
        }
        Ok(())
    })?;
    Ok(named)
}

fn resource(attr: &Attribute) -> syn::Result<ResourceAttr> {
    let mut r = ResourceAttr {
        named: Named::default(),
        uri: None,
        template: None,
        mime_type: None,
        variables: Vec::new(),
        app: None,
    };
    if matches!(attr.meta, syn::Meta::Path(_)) {
        return Err(syn::Error::new_spanned(
            attr,
            "a resource needs its address: #[resource(uri = \"scheme://...\")] for one resource, or #[resource(template = \"scheme://{var}\")] for a template",
        ));
    }
    attr.parse_nested_meta(|meta| {
        let slot = if meta.path.is_ident("uri") {
            &mut r.uri
        } else if meta.path.is_ident("template") {
            &mut r.template
        } else if meta.path.is_ident("mime_type") {
            &mut r.mime_type
        } else if meta.path.is_ident("name") {
            &mut r.named.name
        } else if meta.path.is_ident("title") {
            &mut r.named.title
        } else if meta.path.is_ident("scopes") {
            return Err(meta.error(SCOPES_HERE));
        } else if meta.path.is_ident("app") {
            if r.app.is_some() {
                return Err(meta.error("duplicate key: remove one of the two"));
            }
            r.app = Some(app(&meta)?);
            return Ok(());
        } else {
            return Err(meta.error(
                "unknown key: #[resource] takes `uri` or `template`, and `mime_type`, `name`, `title`, `app(...)` (an app's page)",
            ));
        };
        if slot.is_some() {
            return Err(meta.error("duplicate key: remove one of the two"));
        }
        *slot = Some(meta.value()?.parse()?);
        Ok(())
    })?;
    match (&r.uri, &r.template) {
        (None, None) => Err(syn::Error::new_spanned(
            attr,
            "a resource needs its address: `uri = \"scheme://...\"` for one resource, or `template = \"scheme://{var}\"` for a template",
        )),
        (Some(_), Some(t)) => Err(syn::Error::new_spanned(
            t,
            "a resource has a `uri` or a `template`, not both",
        )),
        (Some(uri), None) if uri.value().is_empty() => {
            Err(syn::Error::new_spanned(uri, "empty URI: write the resource's URI"))
        }
        (None, Some(t)) if r.app.is_some() => Err(syn::Error::new_spanned(
            t,
            "an app's page has one URI: write `uri = \"ui://...\"`, not a template",
        )),
        (Some(uri), None) if r.app.is_some() && !r.is_page() => Err(syn::Error::new_spanned(
            uri,
            "`app(...)` makes the resource an app's page, whose URI is a `ui://` one: write `uri = \"ui://...\"`",
        )),
        (Some(_), None) if r.is_page() => match &r.mime_type {
            Some(m) if m.value() != APP_MIME_TYPE => Err(syn::Error::new_spanned(
                m,
                format!("a `ui://` resource is an app's page, served as `{APP_MIME_TYPE}`: remove `mime_type`"),
            )),
            _ => Ok(r),
        },
        (None, Some(t)) => match oxmcp_uri_template::UriTemplate::parse(&t.value()) {
            Ok(parsed) => {
                r.variables = parsed.variables().into_iter().map(str::to_owned).collect();
                if r.variables.is_empty() {
                    return Err(syn::Error::new_spanned(
                        t,
                        "this template has no variable: it names one resource; write `uri = \"...\"` instead",
                    ));
                }
                Ok(r)
            }
            Err(e) => Err(syn::Error::new_spanned(t, format!("invalid URI template: {e}"))),
        },
        _ => Ok(r),
    }
}

/// `app(...)` of a page.
fn app(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<AppAttr> {
    let usage = "`app(...)` takes connect_domains(\"https://...\"), resource_domains(...), frame_domains(...), base_uri_domains(...), permissions(camera, microphone, geolocation, clipboard_write), domain = \"...\" and prefers_border = true";
    let mut app = AppAttr::default();
    meta.parse_nested_meta(|inner| {
        let Some(key) = inner.path.get_ident().cloned() else {
            return Err(inner.error(usage));
        };
        let name = key.to_string();
        if DOMAIN_LISTS.contains(&name.as_str()) {
            if app.domains.iter().any(|(k, _)| *k == key) {
                return Err(inner.error("duplicate key: remove one of the two"));
            }
            let content;
            syn::parenthesized!(content in inner.input);
            let origins =
                syn::punctuated::Punctuated::<LitStr, syn::Token![,]>::parse_terminated(&content)?;
            app.domains.push((key, origins.into_iter().collect()));
        } else if name == "permissions" {
            let content;
            syn::parenthesized!(content in inner.input);
            let names =
                syn::punctuated::Punctuated::<Ident, syn::Token![,]>::parse_terminated(&content)?;
            for p in names {
                if !PERMISSIONS.contains(&p.to_string().as_str()) {
                    return Err(syn::Error::new_spanned(
                        &p,
                        format!(
                            "unknown permission `{p}`: a page may ask for {}",
                            PERMISSIONS.join(", ")
                        ),
                    ));
                }
                if app.permissions.contains(&p) {
                    return Err(syn::Error::new_spanned(
                        &p,
                        "duplicate permission: remove one of the two",
                    ));
                }
                app.permissions.push(p);
            }
        } else if name == "domain" {
            app.domain = Some(inner.value()?.parse()?);
        } else if name == "prefers_border" {
            app.prefers_border = Some(if inner.input.peek(syn::Token![=]) {
                inner.value()?.parse()?
            } else {
                syn::LitBool::new(true, key.span())
            });
        } else {
            return Err(inner.error(format!("unknown key `{name}`: {usage}")));
        }
        Ok(())
    })?;
    Ok(app)
}

fn complete(attr: &Attribute) -> syn::Result<CompleteAttr> {
    let usage = "#[complete(target, argument)]: the prompt or resource template (its method's name) and the argument or template variable this function completes";
    let idents = attr
        .parse_args_with(syn::punctuated::Punctuated::<Ident, syn::Token![,]>::parse_terminated)
        .map_err(|e| syn::Error::new(e.span(), usage))?;
    let mut it = idents.into_iter();
    match (it.next(), it.next(), it.next()) {
        (Some(target), Some(argument), None) => Ok(CompleteAttr { target, argument }),
        _ => Err(syn::Error::new_spanned(attr, usage)),
    }
}
