//! What a resource is at run time: static resources (one URI) and resource
//! templates (RFC 6570 URI templates), their erased handlers, and the trait
//! that turns Rust return values into `resources/read` results.

use std::borrow::Cow;
use std::fmt;
use std::future::Future;
use std::sync::Arc;

use oxmcp_types::{ReadResourceResult, Resource, ResourceContents, ResourceTemplate};
use oxmcp_uri_template::UriTemplate;

use crate::auth::Scopes;
use crate::common::BoxFuture;
use crate::complete::{CompleteHandler, Completions};
use crate::context::Context;
use crate::error::{Error, RequestError};
use crate::prompt::StringArgs;

/// One `resources/read`: the URI asked for and, for a template, the values
/// its variables bound.
#[derive(Debug, Clone)]
pub struct Reading {
    /// The URI asked for.
    pub uri: String,
    /// The template's variables (empty for a static resource).
    pub variables: StringArgs,
}

/// The erased form of every resource handler.
pub(crate) type ReadHandler = dyn Fn(Reading, Context) -> BoxFuture<'static, Result<ReadResourceResult, RequestError>>
    + Send
    + Sync;

/// The static facts about one resource or template, as the macros write them.
#[derive(Debug, Clone, Default)]
pub struct ResourceSpec {
    /// The URI (a static resource) or the URI template (a template).
    pub uri: &'static str,
    /// A programmatic name.
    pub name: &'static str,
    /// A display name.
    pub title: Option<&'static str>,
    /// What it is.
    pub description: &'static str,
    /// Its MIME type.
    pub mime_type: Option<&'static str>,
    /// OAuth scopes a caller's token needs (HTTP with
    /// [`Authorization`](crate::auth)): a caller without them does not see
    /// the resource or template, and reading it (subscribing to it,
    /// completing a template's variables) is answered with the step-up
    /// challenge (403).
    pub scopes: &'static [&'static str],
    /// MCP Apps: this resource is an app's page (a `ui://` URI served as
    /// [`apps::MIME_TYPE`](crate::apps::MIME_TYPE)), with these sandbox settings.
    pub app: Option<crate::apps::PageSpec>,
}

/// What runs when a client subscribes to a resource (the URI it follows).
pub(crate) type SubscribeHook = dyn Fn(&str) + Send + Sync;

/// A static resource ready to serve.
#[derive(Clone)]
pub struct ResourceEntry {
    pub(crate) def: Arc<Resource>,
    pub(crate) handler: Arc<ReadHandler>,
    pub(crate) toolbox: Cow<'static, str>,
    pub(crate) scopes: Scopes,
    pub(crate) on_subscribe: Option<Arc<SubscribeHook>>,
}

/// A resource template ready to serve.
#[derive(Clone)]
pub struct TemplateEntry {
    pub(crate) def: Arc<ResourceTemplate>,
    pub(crate) template: Arc<UriTemplate>,
    pub(crate) handler: Arc<ReadHandler>,
    pub(crate) completions: Completions,
    pub(crate) toolbox: Cow<'static, str>,
    pub(crate) scopes: Scopes,
    pub(crate) on_subscribe: Option<Arc<SubscribeHook>>,
}

impl fmt::Debug for ResourceEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceEntry")
            .field("uri", &self.def.uri)
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for TemplateEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TemplateEntry")
            .field("uri_template", &self.def.uri_template)
            .finish_non_exhaustive()
    }
}

/// Wraps a typed read function into the erased handler: its value becomes
/// contents of the URI read, with the resource's MIME type.
fn erase<F, Fut, R>(mime_type: Option<String>, read: F) -> Arc<ReadHandler>
where
    F: Fn(Reading, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = R> + Send + 'static,
    R: IntoReadResult,
{
    Arc::new(move |reading: Reading, ctx| {
        let uri = reading.uri.clone();
        let mime = mime_type.clone();
        let fut = read(reading, ctx);
        Box::pin(async move { fut.await.into_read_result(&uri, mime.as_deref()) })
    })
}

impl ResourceEntry {
    /// Assembles a static resource. Used by generated code, whose handler
    /// already converts its value with [`IntoReadResult`].
    pub fn new<F>(spec: &ResourceSpec, handler: F) -> ResourceEntry
    where
        F: Fn(Reading, Context) -> BoxFuture<'static, Result<ReadResourceResult, RequestError>>
            + Send
            + Sync
            + 'static,
    {
        let entry = ResourceEntry {
            def: Arc::new(Resource {
                uri: spec.uri.to_owned(),
                name: spec.name.to_owned(),
                title: spec.title.map(str::to_owned),
                description: Some(spec.description.to_owned()),
                mime_type: spec.mime_type.map(str::to_owned),
                size: None,
                icons: None,
                annotations: None,
                meta: None,
            }),
            handler: Arc::new(handler),
            toolbox: Cow::Borrowed(""),
            scopes: Scopes::of(spec.scopes),
            on_subscribe: None,
        };
        match spec.app.map(crate::apps::PageSpec::to_ui) {
            Some(Ok(ui)) => entry.with_ui(ui),
            // The macros check the permission names; a hand-written spec
            // with an unknown one has the page served without them.
            Some(Err(e)) => {
                tracing::warn!(uri = spec.uri, "{e}");
                entry.with_ui(crate::apps::ResourceUi::default())
            }
            None => entry,
        }
    }

    /// MCP Apps: makes this resource an app's page ([`apps`](crate::apps)),
    /// served as [`apps::MIME_TYPE`](crate::apps::MIME_TYPE) with `ui` (what
    /// its sandbox may load and do) in its listing and in each content read.
    /// Its URI should be a `ui://` one.
    #[must_use]
    pub fn with_ui(mut self, ui: crate::apps::ResourceUi) -> Self {
        let def = Arc::make_mut(&mut self.def);
        def.mime_type = Some(crate::apps::MIME_TYPE.to_owned());
        let ui = if ui == crate::apps::ResourceUi::default() {
            None
        } else {
            serde_json::to_value(ui).ok()
        };
        crate::apps::set_meta(&mut def.meta, ui.as_ref());
        let read = Arc::clone(&self.handler);
        self.handler = Arc::new(move |reading, ctx| {
            let fut = read(reading, ctx);
            let ui = ui.clone();
            Box::pin(async move {
                let mut result = fut.await?;
                crate::apps::mark_contents(&mut result, ui.as_ref());
                Ok(result)
            })
        });
        self
    }

    /// A static resource built at run time from its definition and an async
    /// read function returning anything [`IntoReadResult`] (text, bytes,
    /// contents).
    ///
    /// ```
    /// use oxmcp_server::resource::ResourceEntry;
    /// use oxmcp_server::types::Resource;
    ///
    /// let mut def = Resource::new("config://app", "config");
    /// def.mime_type = Some("application/json".into());
    /// let config = ResourceEntry::dynamic(def, |_reading, _ctx| async { r#"{"debug":false}"# }).unwrap();
    /// assert_eq!(config.uri(), "config://app");
    /// ```
    ///
    /// # Errors
    ///
    /// An empty URI or name.
    pub fn dynamic<F, Fut, R>(def: Resource, read: F) -> Result<ResourceEntry, Error>
    where
        F: Fn(Reading, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoReadResult,
    {
        if def.uri.is_empty() || def.name.is_empty() {
            return Err(Error::Config("a resource needs a URI and a name".into()));
        }
        Ok(ResourceEntry {
            handler: erase(def.mime_type.clone(), read),
            def: Arc::new(def),
            toolbox: Cow::Borrowed(""),
            scopes: Scopes::default(),
            on_subscribe: None,
        })
    }

    /// Needs these OAuth scopes (added to any it has): a caller whose token
    /// lacks one does not see the resource, and reading or subscribing to
    /// it gets the step-up challenge (HTTP 403 naming the scopes).
    #[must_use]
    pub fn with_scopes<S: AsRef<str>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = self.scopes.with(scopes);
        self
    }

    /// Runs `hook` with the URI when a client subscribes to this resource
    /// (`resources/subscribe`, or a 2026-07-28 `subscriptions/listen` filter
    /// naming it), once the server has checked that the client may: for
    /// resources whose changes are learnt from elsewhere, such as a mounted
    /// server's, which must be asked to report them. A client subscribing
    /// again runs it again; an unsubscription does not run it.
    #[must_use]
    pub fn on_subscribe(mut self, hook: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.on_subscribe = Some(Arc::new(hook));
        self
    }

    /// The OAuth scopes a caller's token needs for this resource.
    pub fn scopes(&self) -> impl Iterator<Item = &str> {
        self.scopes.iter()
    }

    /// The wire definition.
    pub fn resource(&self) -> &Resource {
        &self.def
    }

    /// The resource's URI.
    pub fn uri(&self) -> &str {
        &self.def.uri
    }

    pub(crate) fn with_toolbox(mut self, toolbox: Cow<'static, str>) -> Self {
        self.toolbox = toolbox;
        self
    }
}

impl TemplateEntry {
    /// Assembles a resource template. Used by generated code (which checked
    /// the template at compile time).
    ///
    /// # Panics
    ///
    /// If `spec.uri` is not a valid URI template; the macro refuses those.
    pub fn new<F>(spec: &ResourceSpec, handler: F) -> TemplateEntry
    where
        F: Fn(Reading, Context) -> BoxFuture<'static, Result<ReadResourceResult, RequestError>>
            + Send
            + Sync
            + 'static,
    {
        let template = match UriTemplate::parse(spec.uri) {
            Ok(t) => t,
            Err(e) => panic!("invalid URI template {:?}: {e}", spec.uri),
        };
        TemplateEntry {
            def: Arc::new(ResourceTemplate {
                uri_template: spec.uri.to_owned(),
                name: spec.name.to_owned(),
                title: spec.title.map(str::to_owned),
                description: Some(spec.description.to_owned()),
                mime_type: spec.mime_type.map(str::to_owned),
                icons: None,
                annotations: None,
                meta: None,
            }),
            template: Arc::new(template),
            handler: Arc::new(handler),
            completions: Completions::default(),
            toolbox: Cow::Borrowed(""),
            scopes: Scopes::of(spec.scopes),
            on_subscribe: None,
        }
    }

    /// A resource template built at run time: its definition (whose
    /// `uri_template` is parsed now) and an async read function, which finds
    /// the variables' values in [`Reading::variables`].
    ///
    /// ```
    /// use oxmcp_server::resource::TemplateEntry;
    /// use oxmcp_server::types::ResourceTemplate;
    ///
    /// let users = TemplateEntry::dynamic(
    ///     ResourceTemplate::new("users://{id}", "user"),
    ///     |reading, _ctx| async move { format!("user {}", reading.variables.get("id").unwrap_or("?")) },
    /// )
    /// .unwrap();
    /// assert_eq!(users.uri_template(), "users://{id}");
    /// ```
    ///
    /// # Errors
    ///
    /// An invalid URI template, or an empty name.
    pub fn dynamic<F, Fut, R>(def: ResourceTemplate, read: F) -> Result<TemplateEntry, Error>
    where
        F: Fn(Reading, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoReadResult,
    {
        let template = UriTemplate::parse(&def.uri_template).map_err(|e| {
            Error::Config(format!("invalid URI template {:?}: {e}", def.uri_template))
        })?;
        if def.name.is_empty() {
            return Err(Error::Config("a resource template needs a name".into()));
        }
        Ok(TemplateEntry {
            handler: erase(def.mime_type.clone(), read),
            def: Arc::new(def),
            template: Arc::new(template),
            completions: Completions::default(),
            toolbox: Cow::Borrowed(""),
            scopes: Scopes::default(),
            on_subscribe: None,
        })
    }

    /// Completes the variable `variable` with `handler`.
    #[must_use]
    pub fn with_completion(mut self, variable: &str, handler: Arc<CompleteHandler>) -> Self {
        self.completions.insert(variable, handler);
        self
    }

    /// Needs these OAuth scopes (added to any it has): a caller whose token
    /// lacks one does not see the template, and reading one of its URIs,
    /// subscribing to one, or completing its variables gets the step-up
    /// challenge (HTTP 403 naming the scopes).
    #[must_use]
    pub fn with_scopes<S: AsRef<str>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = self.scopes.with(scopes);
        self
    }

    /// Runs `hook` with the URI when a client subscribes to one of this template's URIs
    /// (`resources/subscribe`, or a 2026-07-28 `subscriptions/listen` filter
    /// naming it), once the server has checked that the client may: for
    /// resources whose changes are learnt from elsewhere, such as a mounted
    /// server's, which must be asked to report them. A client subscribing
    /// again runs it again; an unsubscription does not run it.
    #[must_use]
    pub fn on_subscribe(mut self, hook: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.on_subscribe = Some(Arc::new(hook));
        self
    }

    /// The OAuth scopes a caller's token needs for this template and its URIs.
    pub fn scopes(&self) -> impl Iterator<Item = &str> {
        self.scopes.iter()
    }

    /// The wire definition.
    pub fn template(&self) -> &ResourceTemplate {
        &self.def
    }

    /// The URI template.
    pub fn uri_template(&self) -> &str {
        &self.def.uri_template
    }

    /// The variables' values if `uri` is one of this template's URIs.
    pub(crate) fn bind(&self, uri: &str) -> Option<StringArgs> {
        let vars = self.template.matches(uri)?;
        Some(StringArgs::new(vars.into_iter().collect()))
    }

    pub(crate) fn with_toolbox(mut self, toolbox: Cow<'static, str>) -> Self {
        self.toolbox = toolbox;
        self
    }
}

/// Reads with `handler`; a panic becomes an internal error, and so does an
/// app's page whose CSP origins a host must not write into its policy
/// ([`apps::check_read`](crate::apps::check_read)): every read, in either
/// era, comes through here.
pub(crate) async fn read(
    handler: &ReadHandler,
    reading: Reading,
    ctx: Context,
) -> Result<ReadResourceResult, RequestError> {
    let uri = reading.uri.clone();
    let result = crate::panic::CatchUnwind::new(handler(reading, ctx))
        .await
        .unwrap_or_else(|panic| {
            tracing::error!(%uri, panic = %panic, "resource read panicked");
            Err(RequestError::internal(format!(
                "reading `{uri}` failed: it panicked ({panic})"
            )))
        })?;
    crate::apps::check_read(&uri, &result)?;
    Ok(result)
}

/// Turns what a resource function returns into a `resources/read` result
/// for the URI read.
///
/// Implemented for text (`String`, `&str`: text contents with the resource's
/// MIME type, `text/plain` if it has none), bytes (`Vec<u8>`: a base64 blob,
/// `application/octet-stream` if it has no MIME type), [`ResourceContents`],
/// `Vec<ResourceContents>` (several contents per read), [`ReadResourceResult`],
/// and `Result<T, E>` where `E: Into<RequestError>` (an error becomes a
/// JSON-RPC error; [`RequestError::not_found`] is -32602 with `data.uri`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a resource",
    note = "return a `String` (text), a `Vec<u8>` (binary), `ResourceContents`, `Vec<ResourceContents>`, a `ReadResourceResult`, or a `Result<_, RequestError>` of one of these"
)]
pub trait IntoReadResult {
    /// The result, for `uri`, with the resource's `mime_type`.
    fn into_read_result(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<ReadResourceResult, RequestError>;
}

impl IntoReadResult for String {
    fn into_read_result(
        self,
        uri: &str,
        mime: Option<&str>,
    ) -> Result<ReadResourceResult, RequestError> {
        Ok(ReadResourceResult::new(vec![ResourceContents::text(
            uri,
            mime.unwrap_or("text/plain"),
            self,
        )]))
    }
}

impl IntoReadResult for &str {
    fn into_read_result(
        self,
        uri: &str,
        mime: Option<&str>,
    ) -> Result<ReadResourceResult, RequestError> {
        self.to_owned().into_read_result(uri, mime)
    }
}

impl IntoReadResult for Vec<u8> {
    fn into_read_result(
        self,
        uri: &str,
        mime: Option<&str>,
    ) -> Result<ReadResourceResult, RequestError> {
        Ok(ReadResourceResult::new(vec![ResourceContents::blob(
            uri,
            mime.unwrap_or("application/octet-stream"),
            oxmcp_wire::header::base64::encode(&self),
        )]))
    }
}

impl IntoReadResult for ResourceContents {
    fn into_read_result(
        self,
        _: &str,
        _: Option<&str>,
    ) -> Result<ReadResourceResult, RequestError> {
        Ok(ReadResourceResult::new(vec![self]))
    }
}

impl IntoReadResult for Vec<ResourceContents> {
    fn into_read_result(
        self,
        _: &str,
        _: Option<&str>,
    ) -> Result<ReadResourceResult, RequestError> {
        Ok(ReadResourceResult::new(self))
    }
}

impl IntoReadResult for ReadResourceResult {
    fn into_read_result(
        self,
        _: &str,
        _: Option<&str>,
    ) -> Result<ReadResourceResult, RequestError> {
        Ok(self)
    }
}

impl<T: IntoReadResult, E: Into<RequestError>> IntoReadResult for Result<T, E> {
    fn into_read_result(
        self,
        uri: &str,
        mime: Option<&str>,
    ) -> Result<ReadResourceResult, RequestError> {
        self.map_err(Into::into)?.into_read_result(uri, mime)
    }
}
