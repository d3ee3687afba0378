//! An OpenAPI 3.0 or 3.1 document as tools: each operation a tool that
//! calls the API through the hardened HTTP client of the [`http`](crate::http)
//! toolbox (the same address rules, allowed hosts, size and time limits,
//! and no redirect into a refused address).
//!
//! ```no_run
//! use oxmcp_server::Server;
//! use oxmcp_toolbox::http::Http;
//! use oxmcp_toolbox::openapi::{Credential, OpenApi};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let text = std::fs::read_to_string("petstore.yaml")?;
//! let tools = OpenApi::parse(&text)?
//!     .base_url("http://127.0.0.1:8000")
//!     .http(Http::builder().allow_host_port("127.0.0.1", 8000))
//!     .credential("ApiKeyAuth", Credential::ApiKey("secret".into()))
//!     .include_tags(["pets"])
//!     .build()?;
//! for warning in tools.warnings() {
//!     eprintln!("openapi: {warning}");
//! }
//! let server = Server::builder("petstore", "1.0").tools(tools).build();
//! # let _ = server;
//! # Ok(())
//! # }
//! ```
//!
//! # From operations to tools
//!
//! - **Name**: the `operationId`, else the method and path
//!   (`get_pets_petId`), in the characters tool names allow, at most 64 of
//!   them (what the model providers take); a name another operation took
//!   gets a suffix made from its own identity. Two operations with one
//!   `operationId` are refused, naming both.
//! - **Description**: `summary`, then `description`. An operation with
//!   neither is reported ([`OpenApiTools::warnings`]); with
//!   [`strict`](OpenApiBuilder::strict) it is refused, as the `#[tool]`
//!   macro refuses a tool without a description.
//! - **Input schema**: one property per path, query, header and cookie
//!   parameter (a name used in two places takes the place's name first:
//!   `query_id`, `path_id`), and `body` for a JSON, form or text request
//!   body;
//!   every `$ref` resolved (a recursive schema expanded three levels deep,
//!   then cut with a note), OpenAPI 3.0's `nullable` and boolean
//!   `exclusiveMinimum` written as JSON Schema 2020-12 says them.
//! - **Output schema**: the first 2xx JSON response's schema (wrapped as
//!   `{"result": ...}` when it is not an object).
//! - **Annotations**: GET and HEAD read only, DELETE destructive (and
//!   idempotent), PUT idempotent; every tool open-world.
//!
//! # Calls
//!
//! Arguments go where the document says: path segments (percent-encoded),
//! query pairs (an array as repeated pairs), headers, cookies, the body.
//! Credentials for the document's security schemes (an API key in a header,
//! query or cookie; bearer; basic) are configured on the builder and sent
//! with every call of an operation that names their scheme: they are never
//! arguments, so the model never sees or sets them. The base URL is the
//! one given, else the document's first `servers` entry.
//!
//! A JSON response becomes `structuredContent` and text; other text stays
//! text; an image or audio becomes that content, other binary an embedded
//! resource. A status that is not 2xx becomes an `isError` result with the
//! status and the start of the body.
//!
//! # Bad documents
//!
//! Refused when the toolbox is built, naming the document position (a JSON
//! pointer): a document that is not OpenAPI 3.0 or 3.1 (Swagger 2.0 is named
//! as such, with how to convert it), a `$ref` that points nowhere or outside
//! the document, a cycle of references, two operations with one tool name,
//! and, in strict mode, an operation whose request body no argument can
//! hold (multipart, binary: otherwise it is left out and reported).

use std::sync::Arc;

use globset::{Glob, GlobSet, GlobSetBuilder};
use oxmcp_server::types::{Tool, ToolAnnotations};
use oxmcp_server::ToolEntry;
use serde_json::Value;
use url::Url;

use crate::http::HttpBuilder;

mod call;
mod doc;
mod operation;

use call::{Caller, Placed};
use doc::{escape, Doc};
use operation::{Operation, METHODS};

/// Why a document could not become tools: what, and where in the
/// document (a JSON pointer; empty for the whole document).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", if pointer.is_empty() { String::new() } else { format!("at {pointer}: ") })]
pub struct OpenApiError {
    /// Where in the document, as a JSON pointer (`/paths/~1pets/get`).
    pub pointer: String,
    /// What is wrong.
    pub message: String,
}

impl OpenApiError {
    pub(crate) fn at(pointer: &str, message: impl Into<String>) -> OpenApiError {
        OpenApiError {
            pointer: pointer.to_owned(),
            message: message.into(),
        }
    }
}

/// A credential for one of the document's security schemes.
#[derive(Clone)]
#[non_exhaustive]
pub enum Credential {
    /// An API key (an `apiKey` scheme: in a header, the query or a cookie).
    ApiKey(String),
    /// A bearer token (`http` with scheme `bearer`, `oauth2`, `openIdConnect`).
    Bearer(String),
    /// A user and password (`http` with scheme `basic`).
    Basic {
        /// The user.
        user: String,
        /// The password.
        password: String,
    },
}

impl std::fmt::Debug for Credential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the secret itself.
        write!(f, "Credential::{}(..)", self.kind())
    }
}

impl Credential {
    fn kind(&self) -> &'static str {
        match self {
            Credential::ApiKey(_) => "ApiKey",
            Credential::Bearer(_) => "Bearer",
            Credential::Basic { .. } => "Basic",
        }
    }
}

/// A parsed OpenAPI document, to configure into tools with the builder
/// [`parse`](Self::parse) returns.
#[derive(Debug)]
pub struct OpenApi;

impl OpenApi {
    /// Parses `text` (JSON, or YAML) as an OpenAPI 3.0 or 3.1 document.
    ///
    /// # Errors
    ///
    /// Text that is neither, a Swagger 2.0 document, a document without
    /// `paths`.
    pub fn parse(text: &str) -> Result<OpenApiBuilder, OpenApiError> {
        Ok(OpenApiBuilder::new(Doc::parse(text)?))
    }

    /// Fetches the document at `url` through `http` (its address rules
    /// apply), then [`parse`](Self::parse)s it.
    ///
    /// # Errors
    ///
    /// A request refused or failed, a status that is not 2xx, or what
    /// `parse` refuses.
    pub async fn fetch(url: &str, http: HttpBuilder) -> Result<OpenApiBuilder, OpenApiError> {
        let limits = http.build().limits;
        let parsed = Url::parse(url).map_err(|e| OpenApiError::at("", format!("{url}: {e}")))?;
        let request = crate::http::client::Request {
            method: http::Method::GET,
            url: parsed,
            headers: http::HeaderMap::new(),
            body: bytes::Bytes::new(),
        };
        let response = crate::http::client::send(&limits, request)
            .await
            .map_err(|e| OpenApiError::at("", format!("fetching {url}: {e}")))?;
        if !response.status.is_success() || response.truncated {
            return Err(OpenApiError::at(
                "",
                format!(
                    "fetching {url}: HTTP {}{}",
                    response.status.as_u16(),
                    if response.truncated {
                        " (larger than the size limit)"
                    } else {
                        ""
                    }
                ),
            ));
        }
        Self::parse(&String::from_utf8_lossy(&response.body))
    }
}

/// Which operations become tools, how they are called, and with which
/// credentials. From [`OpenApi::parse`].
#[derive(Debug)]
pub struct OpenApiBuilder {
    doc: Doc,
    base_url: Option<String>,
    http: HttpBuilder,
    credentials: Vec<(String, Credential)>,
    headers: Vec<(String, String)>,
    include: Vec<Selector>,
    exclude: Vec<Selector>,
    strict: bool,
}

/// One include or exclude rule.
#[derive(Debug, Clone)]
enum Selector {
    Tag(String),
    OperationId(String),
    Path(String),
}

/// The tools of a document, and what was reported while building them.
#[derive(Debug)]
pub struct OpenApiTools {
    tools: Vec<ToolEntry>,
    warnings: Vec<String>,
}

impl OpenApiTools {
    /// What the document lacks that the tools are the worse for (an
    /// operation without a description, a credential configured for no
    /// scheme...).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The tools' names, in the order of the document.
    pub fn names(&self) -> Vec<&str> {
        self.tools.iter().map(ToolEntry::name).collect()
    }
}

impl IntoIterator for OpenApiTools {
    type Item = ToolEntry;
    type IntoIter = std::vec::IntoIter<ToolEntry>;

    fn into_iter(self) -> Self::IntoIter {
        self.tools.into_iter()
    }
}

impl OpenApiBuilder {
    fn new(doc: Doc) -> Self {
        OpenApiBuilder {
            doc,
            base_url: None,
            http: HttpBuilder::default(),
            credentials: Vec::new(),
            headers: Vec::new(),
            include: Vec::new(),
            exclude: Vec::new(),
            strict: false,
        }
    }

    /// The API's base URL (the document's first `servers` entry otherwise).
    #[must_use]
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// The HTTP client's rules: hosts allowed beyond public addresses,
    /// time and size limits (the [`http`](crate::http) toolbox's defaults
    /// otherwise).
    #[must_use]
    pub fn http(mut self, http: HttpBuilder) -> Self {
        self.http = http;
        self
    }

    /// The credential for the security scheme named `scheme` in the
    /// document's `components.securitySchemes`.
    #[must_use]
    pub fn credential(mut self, scheme: impl Into<String>, credential: Credential) -> Self {
        self.credentials.push((scheme.into(), credential));
        self
    }

    /// Sends this header with every call (an API key the document does
    /// not describe as a security scheme, say). Like credentials, never an
    /// argument.
    #[must_use]
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Offers only the operations with one of these tags (with the other
    /// `include_*` rules: those any of them names).
    #[must_use]
    pub fn include_tags<S: Into<String>>(mut self, tags: impl IntoIterator<Item = S>) -> Self {
        self.include
            .extend(tags.into_iter().map(|t| Selector::Tag(t.into())));
        self
    }

    /// Offers only the operations with one of these `operationId`s.
    #[must_use]
    pub fn include_operations<S: Into<String>>(mut self, ids: impl IntoIterator<Item = S>) -> Self {
        self.include
            .extend(ids.into_iter().map(|t| Selector::OperationId(t.into())));
        self
    }

    /// Offers only the operations whose path matches one of these patterns
    /// (`*` any run of characters, `/` included: `/pets*`).
    #[must_use]
    pub fn include_paths<S: Into<String>>(mut self, patterns: impl IntoIterator<Item = S>) -> Self {
        self.include
            .extend(patterns.into_iter().map(|t| Selector::Path(t.into())));
        self
    }

    /// Leaves out the operations with one of these tags.
    #[must_use]
    pub fn exclude_tags<S: Into<String>>(mut self, tags: impl IntoIterator<Item = S>) -> Self {
        self.exclude
            .extend(tags.into_iter().map(|t| Selector::Tag(t.into())));
        self
    }

    /// Leaves out the operations with one of these `operationId`s.
    #[must_use]
    pub fn exclude_operations<S: Into<String>>(mut self, ids: impl IntoIterator<Item = S>) -> Self {
        self.exclude
            .extend(ids.into_iter().map(|t| Selector::OperationId(t.into())));
        self
    }

    /// Leaves out the operations whose path matches one of these patterns.
    #[must_use]
    pub fn exclude_paths<S: Into<String>>(mut self, patterns: impl IntoIterator<Item = S>) -> Self {
        self.exclude
            .extend(patterns.into_iter().map(|t| Selector::Path(t.into())));
        self
    }

    /// Refuses an operation without a summary or description, instead of
    /// reporting it: the model reads it to decide when to call the tool.
    #[must_use]
    pub fn strict(mut self) -> Self {
        self.strict = true;
        self
    }

    /// The tools.
    ///
    /// # Errors
    ///
    /// What the [module documentation](self) lists under bad documents; an
    /// invalid pattern; no base URL (none given, no `servers`); a
    /// credential that does not fit its scheme; an operation without a
    /// description in strict mode.
    pub fn build(self) -> Result<OpenApiTools, OpenApiError> {
        let mut warnings = Vec::new();
        let base = self.base()?;
        let credentials = self.placed_credentials(&mut warnings)?;
        let always = self.placed_headers()?;
        let limits = self.http.clone().build().limits;
        let include = Rules::new(&self.include)?;
        let exclude = Rules::new(&self.exclude)?;
        let mut operations: Vec<Operation> = Vec::new();
        let paths = self
            .doc
            .at("/paths")
            .and_then(Value::as_object)
            .into_iter()
            .flatten();
        for (path, item) in paths {
            let item_pointer = format!("/paths/{}", escape(path));
            let (item, _) = self.doc.deref(item, &item_pointer)?;
            for method in METHODS {
                let Some(op) = item.get(method) else { continue };
                let pointer = format!("{item_pointer}/{method}");
                let tags: Vec<&str> = op
                    .get("tags")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .collect();
                let id = op.get("operationId").and_then(Value::as_str);
                let offered = (self.include.is_empty() || include.matches(path, id, &tags))
                    && !exclude.matches(path, id, &tags);
                if !offered {
                    continue;
                }
                let operation = Operation::read(&self.doc, path, method, op, &pointer)?;
                if let Some(why) = &operation.unsendable {
                    let what = format!(
                        "the operation {} {path} is left out: {why}",
                        method.to_ascii_uppercase()
                    );
                    if self.strict {
                        return Err(OpenApiError::at(&pointer, what));
                    }
                    warnings.push(format!("at {pointer}: {what}"));
                    continue;
                }
                if operation.description.is_none() {
                    let what = format!("the operation {} {path} has neither a summary nor a description: the model reads one to decide when to call the tool `{}`", method.to_ascii_uppercase(), operation.name);
                    if self.strict {
                        return Err(OpenApiError::at(&pointer, what));
                    }
                    warnings.push(format!("at {pointer}: {what}"));
                }
                let mut operation = operation;
                if let Some(other) = operations.iter().find(|o| o.identity == operation.identity) {
                    return Err(OpenApiError::at(&pointer, format!("this operation and the one at {} have one operationId, `{}`: each must have its own", other.pointer, operation.identity)));
                }
                if operations.iter().any(|o| o.name == operation.name) {
                    operation.name = unique_name(&operation, &operations);
                }
                operations.push(operation);
            }
        }
        let caller = Arc::new(Caller {
            limits,
            base,
            credentials,
        });
        let tools = operations
            .into_iter()
            .map(|op| tool(op, &caller, &always))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(OpenApiTools { tools, warnings })
    }

    /// The base URL: the one given, else the document's first server.
    fn base(&self) -> Result<Url, OpenApiError> {
        let (given, at) = if let Some(url) = &self.base_url {
            (url.clone(), "")
        } else {
            let url = self
                .doc
                .at("/servers/0/url")
                .and_then(Value::as_str)
                .ok_or_else(|| {
                    OpenApiError::at(
                        "/servers",
                        "no base URL: the document names no server, and none was given",
                    )
                })?;
            (url.to_owned(), "/servers/0/url")
        };
        let url = Url::parse(&given).map_err(|e| {
            OpenApiError::at(
                at,
                format!(
                    "the base URL {given:?} is invalid: {e} (give an absolute http or https URL)"
                ),
            )
        })?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(OpenApiError::at(
                at,
                format!("the base URL {given:?} is not http or https"),
            ));
        }
        Ok(url)
    }

    /// The headers given, to send with every call.
    fn placed_headers(&self) -> Result<Vec<(String, Placed)>, OpenApiError> {
        self.headers
            .iter()
            .map(|(name, value)| {
                let bad =
                    || OpenApiError::at("", format!("the header `{name}` is not a valid header"));
                let name_ok = http::HeaderName::try_from(name.as_str()).map_err(|_| bad())?;
                let value_ok = http::HeaderValue::from_str(value).map_err(|_| bad())?;
                Ok((String::new(), Placed::Header(name_ok, value_ok)))
            })
            .collect()
    }

    /// Each credential given, placed where its scheme says.
    fn placed_credentials(
        &self,
        warnings: &mut Vec<String>,
    ) -> Result<Vec<(String, Placed)>, OpenApiError> {
        let mut placed = Vec::new();
        for (name, credential) in &self.credentials {
            let at = format!("/components/securitySchemes/{}", escape(name));
            let Some(scheme) = self.doc.at(&at) else {
                warnings.push(format!("a credential was given for the security scheme `{name}`, which the document does not define"));
                continue;
            };
            let (scheme, _) = self.doc.deref(scheme, &at)?;
            placed.push((
                name.clone(),
                Placed::of(credential, scheme).map_err(|e| OpenApiError::at(&at, e))?,
            ));
        }
        Ok(placed)
    }
}

/// A name for `op` that none of `others` has: its name, shortened, with
/// a suffix made from its identity (so that the same document always gives
/// the same names).
fn unique_name(op: &Operation, others: &[Operation]) -> String {
    // FNV-1a of the identity: stable across runs and platforms.
    let hash = op.identity.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    let stem: String = op.name.chars().take(operation::MAX_NAME - 7).collect();
    // Fewer operations than suffixes: one of them is free.
    (0..=others.len() as u64)
        .map(|n| format!("{stem}_{:06x}", hash.wrapping_add(n) & 0xff_ffff))
        .find(|name| others.iter().all(|o| o.name != *name))
        .unwrap_or_else(|| {
            unreachable!(
                "{} names cannot take {} suffixes",
                others.len(),
                others.len() + 1
            )
        })
}

/// Compiled include or exclude rules.
struct Rules {
    tags: Vec<String>,
    ids: Vec<String>,
    paths: GlobSet,
}

impl Rules {
    fn new(selectors: &[Selector]) -> Result<Rules, OpenApiError> {
        let mut tags = Vec::new();
        let mut ids = Vec::new();
        let mut paths = GlobSetBuilder::new();
        for s in selectors {
            match s {
                Selector::Tag(t) => tags.push(t.clone()),
                Selector::OperationId(i) => ids.push(i.clone()),
                Selector::Path(p) => {
                    let glob = Glob::new(p).map_err(|e| {
                        OpenApiError::at("", format!("the path pattern {p:?} is invalid: {e}"))
                    })?;
                    paths.add(glob);
                }
            }
        }
        let paths = paths
            .build()
            .map_err(|e| OpenApiError::at("", e.to_string()))?;
        Ok(Rules { tags, ids, paths })
    }

    fn matches(&self, path: &str, id: Option<&str>, tags: &[&str]) -> bool {
        tags.iter().any(|t| self.tags.iter().any(|r| r == t))
            || id.is_some_and(|id| self.ids.iter().any(|r| r == id))
            || self.paths.is_match(path)
    }
}

/// The tool of `op`, calling through `caller` with the credentials of the
/// schemes `op` names, and the headers sent with every call (`always`).
fn tool(
    op: Operation,
    caller: &Arc<Caller>,
    always: &[(String, Placed)],
) -> Result<ToolEntry, OpenApiError> {
    let annotations: ToolAnnotations = serde_json::from_value(op.annotations())
        .map_err(|e| OpenApiError::at(&op.pointer, e.to_string()))?;
    let mut def = Tool::new(op.name.clone(), op.input_schema.clone());
    def.description.clone_from(&op.description);
    def.output_schema = op
        .output
        .as_ref()
        .map(|output| Value::Object(output.schema.clone()));
    def.annotations = Some(annotations);
    // The credentials this operation's security names (all the schemes of
    // every alternative it lists: the server takes the one it wants).
    let wanted: Vec<&String> = op.security.iter().flatten().collect();
    let caller = Arc::new(Caller {
        limits: Arc::clone(&caller.limits),
        base: caller.base.clone(),
        credentials: always
            .iter()
            .chain(
                caller
                    .credentials
                    .iter()
                    .filter(|(name, _)| wanted.contains(&name)),
            )
            .cloned()
            .collect(),
    });
    let pointer = op.pointer.clone();
    let op = Arc::new(op);
    ToolEntry::from_tool(def, move |arguments, _ctx| {
        let caller = Arc::clone(&caller);
        let op = Arc::clone(&op);
        async move { caller.call(&op, arguments).await }
    })
    .map(|t| t.in_toolbox("openapi"))
    .map_err(|e| OpenApiError::at(&pointer, e.to_string()))
}
