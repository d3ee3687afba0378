//! Signing in to protected servers (feature `auth`): the OAuth 2.1 client
//! of the MCP authorization spec (2025-06-18 and later, with the 2025-03-26
//! fallbacks).
//!
//! Give [`ClientBuilder::oauth`](crate::ClientBuilder::oauth) an [`OAuth`];
//! when the server answers 401, the client finds its Protected Resource
//! Metadata (from the challenge's `resource_metadata`, else the well-known
//! URLs), then the authorization server's metadata (OAuth, then OpenID, with
//! the spec's path-insertion order, `issuer` checked), registers (a
//! pre-registered client, a Client ID Metadata Document URL when the server
//! supports them, else Dynamic Client Registration, in that order), and
//! runs the authorization code flow with PKCE (S256), `state`, the
//! `resource` parameter (the server's, unless [`OAuth::resource`] or
//! [`OAuth::without_resource`] say otherwise) and the RFC 9207 `iss` check, or the client-credentials grant
//! for machine clients. Tokens are kept in a [`TokenStore`] and refreshed
//! before they expire or on a 401; a 403 `insufficient_scope` asks for the
//! union of the scopes held and those challenged, a bounded number of times.
//! Where the authorization server offers DPoP (RFC 9449; see
//! [`OAuth::dpop`]), tokens are bound to a key of the client and every
//! request carries a proof signed with it.
//!
//! # What the client refuses
//!
//! - **Plain `http` to the authorization server.** The resource metadata
//!   URL, the issuer and its metadata URLs, and the authorization, token
//!   and registration endpoints must be `https`, except on a loopback
//!   address (`127.0.0.0/8`, `[::1]`, `localhost`): they decide where the
//!   user signs in and where the client's credentials go. Anything else
//!   fails with [`AuthError::Insecure`] before any request is sent there.
//! - **A pre-registered credential at another issuer.** A client id,
//!   secret or key registered beforehand ([`OAuth::client`],
//!   [`OAuth::client_credentials`], [`OAuth::client_credentials_key`]) is
//!   given with the [`Issuer`] it was registered with, and only ever sent
//!   there: a server whose metadata names another authorization server
//!   gets [`AuthError::WrongIssuer`], before any request carrying the
//!   credential ([`Issuer::danger_named_by_server`] opts out, for test
//!   harnesses). A registration made by the client itself (Dynamic Client
//!   Registration) is kept per issuer and used with that issuer only.
//!
//! Secrets stay out of `Debug` ([`Stored`], [`OAuth`]) and the
//! `Authorization` values the client builds are marked sensitive;
//! [`FileTokenStore`] writes a fresh 0600 file each time.
//!
//! ```no_run
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), oxmcp_client::Error> {
//! use oxmcp_client::auth::{FileTokenStore, LoopbackAuthorizer, OAuth};
//!
//! let oauth = OAuth::new("my-cli")
//!     .authorizer(LoopbackAuthorizer::new())
//!     .token_store(FileTokenStore::new("/home/me/.config/my-cli/tokens.json"));
//! let client = oxmcp_client::Client::builder()
//!     .oauth(oauth)
//!     .connect_http("https://mcp.example.com/mcp")
//!     .await?;
//! # let _ = client;
//! # Ok(()) }
//! ```

mod discovery;
mod dpop;
mod flow;
mod grants;
mod redirect;
mod store;

use std::sync::Arc;
use std::time::Duration;

pub(crate) use flow::{Attempt, Authenticator, Next};
/// The signature algorithms of [`OAuth::client_credentials_key`] (re-exported
/// from `jsonwebtoken`, which signs the assertion).
pub use jsonwebtoken::Algorithm;
pub use redirect::{Authorizer, HeadlessAuthorizer, LoopbackAuthorizer, RedirectParams};
pub use store::{FileTokenStore, MemoryTokenStore, Stored, TokenStore};

use crate::transport::http::HttpClient;

/// The boxed future a [`TokenStore`] and an [`Authorizer`] return: the one
/// of `oxmcp_types::call`, so the name means one thing in every crate.
pub use oxmcp_types::call::BoxFuture;

/// Why signing in failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AuthError {
    /// The server's metadata or its authorization server's could not be found or used.
    #[error("cannot find how to authorize: {0}")]
    Discovery(String),
    /// The authorization server lacks something the spec requires (PKCE S256...).
    #[error("the authorization server cannot be used: {0}")]
    Unsupported(String),
    /// The client has no way to identify itself to the authorization server.
    #[error("no client registration: {0}")]
    Registration(String),
    /// Sending the user to the authorization server, or its redirect, failed.
    #[error("authorization failed: {0}")]
    Redirect(String),
    /// The authorization server refused (`error` and `error_description`).
    #[error("the authorization server refused: {error}{}", .description.as_deref().map(|d| format!(" ({d})")).unwrap_or_default())]
    Refused {
        /// The OAuth error code.
        error: String,
        /// Its description.
        description: Option<String>,
    },
    /// A pre-registered credential would go to an authorization server
    /// other than the one it was registered with: it is not sent.
    #[error("the client's credentials are registered with the issuer `{registered}`, but the server names the issuer `{named}`: they are not sent there")]
    WrongIssuer {
        /// The issuer the credentials were registered with.
        registered: String,
        /// The issuer the server's metadata names.
        named: String,
    },
    /// An authorization server URL that is not `https` (plain `http` is
    /// accepted on loopback addresses only): nothing is sent to it.
    #[error("`{0}` is not https: the authorization server's URLs must use https (plain http only to a loopback address)")]
    Insecure(String),
    /// The server kept refusing the tokens it got.
    #[error("the server still refuses after {0} authorizations")]
    StepUpLimit(u32),
    /// An HTTP exchange with the authorization server failed.
    #[error("talking to the authorization server failed")]
    Fetch(#[from] oxmcp_wire::http_client::FetchError),
}

/// The authorization server a pre-registered credential belongs to (and
/// is only ever sent to): its issuer identifier, spelled exactly as the
/// server's metadata spells its `issuer` (RFC 8414 compares them as
/// strings). Made from a `&str` or `String`:
///
/// ```
/// use oxmcp_client::auth::OAuth;
///
/// let oauth = OAuth::new("my-cli").client("https://auth.example.com", "my-cli-id", None);
/// # let _ = oauth;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issuer(Pinned);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Pinned {
    Exactly(String),
    NamedByServer,
}

impl Issuer {
    /// The authorization server whose issuer identifier is `issuer`.
    pub fn new(issuer: impl Into<String>) -> Self {
        Issuer(Pinned::Exactly(issuer.into()))
    }

    /// **Dangerous**: whichever authorization server the MCP server's
    /// metadata names, so the credential goes wherever the server says.
    /// Only for a server trusted as much as the credential itself, such as
    /// a test harness that runs both servers and hands out credentials
    /// without saying for which issuer. (Plain `http` stays refused off
    /// loopback.)
    pub fn danger_named_by_server() -> Self {
        Issuer(Pinned::NamedByServer)
    }

    /// Whether a credential pinned here may go to `issuer`.
    pub(crate) fn admits(&self, issuer: &str) -> bool {
        match &self.0 {
            Pinned::Exactly(pinned) => pinned == issuer,
            Pinned::NamedByServer => true,
        }
    }
}

impl std::fmt::Display for Issuer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Pinned::Exactly(issuer) => f.write_str(issuer),
            Pinned::NamedByServer => f.write_str("(any issuer the server names)"),
        }
    }
}

impl From<&str> for Issuer {
    fn from(issuer: &str) -> Self {
        Issuer::new(issuer)
    }
}

impl From<String> for Issuer {
    fn from(issuer: String) -> Self {
        Issuer::new(issuer)
    }
}

impl From<&String> for Issuer {
    fn from(issuer: &String) -> Self {
        Issuer::new(issuer.as_str())
    }
}

/// A client registered beforehand with one authorization server.
#[derive(Clone)]
pub(crate) struct PreRegistered {
    /// The issuer it is registered with: its credentials go there only.
    pub(crate) issuer: Issuer,
    pub(crate) id: String,
    pub(crate) secret: Option<String>,
}

/// How a machine client proves who it is with the client-credentials grant.
#[derive(Clone)]
enum Credentials {
    /// `client_secret_basic` or `client_secret_post`.
    Secret,
    /// `private_key_jwt` (RFC 7523): a signed assertion.
    PrivateKey {
        key: jsonwebtoken::EncodingKey,
        alg: jsonwebtoken::Algorithm,
    },
    /// A workload's identity token, exchanged with the JWT-bearer grant
    /// (RFC 7523 section 2.1, SEP-1933): the function gives the current one.
    Workload(Arc<dyn Fn() -> String + Send + Sync>),
    /// Enterprise-managed authorization (SEP-990): the user's ID token from
    /// the enterprise identity provider, exchanged there for an ID-JAG
    /// (RFC 8693), which the JWT-bearer grant presents to the issuer.
    Enterprise(Arc<EnterpriseIdp>),
}

/// The enterprise identity provider of [`OAuth::enterprise_managed`].
pub(crate) struct EnterpriseIdp {
    pub(crate) token_endpoint: String,
    pub(crate) client_id: Option<String>,
    pub(crate) id_token: Box<dyn Fn() -> String + Send + Sync>,
}

/// The `resource` parameter (RFC 8707) of authorization and token requests.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) enum ResourceParameter {
    /// The resource the server's metadata names (the spec's default).
    #[default]
    Discovered,
    /// This value instead.
    Given(String),
    /// None at all.
    Omitted,
}

/// Shapes the scopes asked for (see [`OAuth::shape_scopes`]).
pub(crate) type ScopeShaper = Arc<dyn Fn(Vec<String>) -> Vec<String> + Send + Sync>;

/// How the client signs in: its identity, how the user is sent to the
/// authorization server, where tokens are kept.
///
/// The authorization server's URLs must be `https` (plain `http` only on
/// a loopback address), and pre-registered credentials are pinned to
/// their issuer: see [the module documentation](self#what-the-client-refuses).
#[derive(Clone)]
pub struct OAuth {
    pub(crate) client_name: String,
    pub(crate) pre_registered: Option<PreRegistered>,
    pub(crate) metadata_url: Option<String>,
    pub(crate) authorizer: Option<Arc<dyn Authorizer>>,
    pub(crate) store: Arc<dyn TokenStore>,
    credentials: Option<Credentials>,
    pub(crate) max_step_ups: u32,
    pub(crate) http: Option<HttpClient>,
    pub(crate) extra_scopes: Vec<String>,
    /// DPoP-bound tokens: `None` when the issuer advertises them.
    pub(crate) dpop: Option<bool>,
    /// The `resource` parameter sent.
    pub(crate) resource: ResourceParameter,
    /// What the scopes asked for become before they are sent.
    pub(crate) shape_scopes: Option<ScopeShaper>,
    /// An issuer known to do PKCE with S256 though its metadata is silent.
    pub(crate) assumed_pkce: Option<Issuer>,
}

impl std::fmt::Debug for OAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuth")
            .field("client_name", &self.client_name)
            .field("issuer", &self.pre_registered.as_ref().map(|p| &p.issuer))
            .field(
                "client_id",
                &self.pre_registered.as_ref().map(|p| p.id.as_str()),
            )
            .field(
                "client_secret",
                &store::redacted(self.pre_registered.as_ref().and_then(|p| p.secret.as_ref())),
            )
            .field("metadata_url", &self.metadata_url)
            .field("resource", &self.resource)
            .finish_non_exhaustive()
    }
}

impl OAuth {
    /// A public client named `client_name` (shown by the authorization
    /// server): it registers itself, and sends the user to authorize through
    /// a [`LoopbackAuthorizer`] unless told otherwise.
    pub fn new(client_name: impl Into<String>) -> Self {
        OAuth {
            client_name: client_name.into(),
            pre_registered: None,
            metadata_url: None,
            authorizer: None,
            store: Arc::new(MemoryTokenStore::default()),
            credentials: None,
            max_step_ups: 3,
            http: None,
            extra_scopes: Vec::new(),
            dpop: None,
            resource: ResourceParameter::Discovered,
            shape_scopes: None,
            assumed_pkce: None,
        }
    }

    /// A client pre-registered with the authorization server `issuer`: its
    /// id, and its secret for a confidential client (`client_secret_basic`
    /// or `client_secret_post`, as the server supports).
    ///
    /// `issuer` (an [`Issuer`], or the issuer identifier as a string,
    /// spelled exactly as the authorization server's metadata spells it)
    /// is where the id and secret may go: a server naming another
    /// authorization server fails with [`AuthError::WrongIssuer`] before
    /// anything carrying them is sent.
    #[must_use]
    pub fn client(
        mut self,
        issuer: impl Into<Issuer>,
        id: impl Into<String>,
        secret: Option<String>,
    ) -> Self {
        self.pre_registered = Some(PreRegistered {
            issuer: issuer.into(),
            id: id.into(),
            secret,
        });
        self
    }

    /// The HTTPS URL of this client's metadata document: used as its
    /// `client_id` where the authorization server supports Client ID
    /// Metadata Documents.
    #[must_use]
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.metadata_url = Some(url.into());
        self
    }

    /// How the user is sent to the authorization server.
    #[must_use]
    pub fn authorizer(mut self, authorizer: impl Authorizer) -> Self {
        self.authorizer = Some(Arc::new(authorizer));
        self
    }

    /// Where registrations and tokens are kept.
    #[must_use]
    pub fn token_store(mut self, store: impl TokenStore) -> Self {
        self.store = Arc::new(store);
        self
    }

    /// A machine client registered with the authorization server
    /// `issuer`: the client-credentials grant with this id and secret, no
    /// user involved. The secret is sent to that issuer only (see
    /// [`OAuth::client`]).
    #[must_use]
    pub fn client_credentials(
        mut self,
        issuer: impl Into<Issuer>,
        id: impl Into<String>,
        secret: impl Into<String>,
    ) -> Self {
        self.pre_registered = Some(PreRegistered {
            issuer: issuer.into(),
            id: id.into(),
            secret: Some(secret.into()),
        });
        self.credentials = Some(Credentials::Secret);
        self
    }

    /// A machine client registered with the authorization server `issuer`,
    /// authenticating with a signed assertion (`private_key_jwt`, RFC
    /// 7523): `pem` is its private key (PKCS#8, EC P-256 for `ES256` or RSA
    /// for `RS256`). Assertions go to that issuer only (see
    /// [`OAuth::client`]).
    pub fn client_credentials_key(
        mut self,
        issuer: impl Into<Issuer>,
        id: impl Into<String>,
        pem: &[u8],
        alg: Algorithm,
    ) -> Result<Self, AuthError> {
        let key = match alg {
            jsonwebtoken::Algorithm::ES256 | jsonwebtoken::Algorithm::ES384 => {
                jsonwebtoken::EncodingKey::from_ec_pem(pem)
            }
            jsonwebtoken::Algorithm::RS256
            | jsonwebtoken::Algorithm::RS384
            | jsonwebtoken::Algorithm::RS512
            | jsonwebtoken::Algorithm::PS256
            | jsonwebtoken::Algorithm::PS384
            | jsonwebtoken::Algorithm::PS512 => jsonwebtoken::EncodingKey::from_rsa_pem(pem),
            jsonwebtoken::Algorithm::EdDSA => jsonwebtoken::EncodingKey::from_ed_pem(pem),
            other => {
                return Err(AuthError::Unsupported(format!(
                    "{other:?} is not an asymmetric algorithm"
                )))
            }
        }
        .map_err(|e| AuthError::Registration(format!("the private key does not load: {e}")))?;
        self.pre_registered = Some(PreRegistered {
            issuer: issuer.into(),
            id: id.into(),
            secret: None,
        });
        self.credentials = Some(Credentials::PrivateKey { key, alg });
        Ok(self)
    }

    /// A workload registered with the authorization server `issuer` as
    /// `id`, proving who it is with a JWT its platform issues (workload
    /// identity federation, SEP-1933): the JWT-bearer grant (RFC 7523,
    /// `urn:ietf:params:oauth:grant-type:jwt-bearer`) exchanges `assertion()`
    /// (called for each token request, so a token the platform renews is
    /// read afresh) for an access token. A refused grant is an error, never
    /// retried nor replaced by another grant. The assertion goes to that
    /// issuer only (see [`OAuth::client`]).
    #[must_use]
    pub fn workload_identity(
        mut self,
        issuer: impl Into<Issuer>,
        id: impl Into<String>,
        assertion: impl Fn() -> String + Send + Sync + 'static,
    ) -> Self {
        self.pre_registered = Some(PreRegistered {
            issuer: issuer.into(),
            id: id.into(),
            secret: None,
        });
        self.credentials = Some(Credentials::Workload(Arc::new(assertion)));
        self
    }

    /// Enterprise-managed authorization (SEP-990): a client registered with
    /// the authorization server `issuer` as `id` with `secret` (sent there
    /// only, as `client_secret_basic`), whose user signed in with the
    /// enterprise's identity provider. For each token, the user's ID token
    /// (`id_token()`) is exchanged at the provider's `idp_token_endpoint`
    /// (RFC 8693 token exchange; `idp_client_id` names this client there)
    /// for an identity assertion grant (ID-JAG) for this issuer and this
    /// resource, which the JWT-bearer grant (RFC 7523) presents to the
    /// issuer. No browser is involved.
    #[must_use]
    pub fn enterprise_managed(
        mut self,
        issuer: impl Into<Issuer>,
        id: impl Into<String>,
        secret: impl Into<String>,
        idp_token_endpoint: impl Into<String>,
        idp_client_id: Option<String>,
        id_token: impl Fn() -> String + Send + Sync + 'static,
    ) -> Self {
        self.pre_registered = Some(PreRegistered {
            issuer: issuer.into(),
            id: id.into(),
            secret: Some(secret.into()),
        });
        self.credentials = Some(Credentials::Enterprise(Arc::new(EnterpriseIdp {
            token_endpoint: idp_token_endpoint.into(),
            client_id: idp_client_id,
            id_token: Box::new(id_token),
        })));
        self
    }

    /// Scopes the application knows it will need, asked for with those the
    /// server names (the first sign-in then covers what it will do, instead
    /// of a step-up at the first call that needs more).
    #[must_use]
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.extra_scopes.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// Sends `resource` as the `resource` parameter (RFC 8707) of the
    /// authorization and token requests, instead of the resource the
    /// server's metadata names: for an authorization server that knows the
    /// API by another identifier (an Auth0 API identifier, say). The server
    /// must then accept what the authorization server writes in `aud` for
    /// it (`JwtVerifier::audiences` on ours).
    #[must_use]
    pub fn resource(mut self, resource: impl Into<String>) -> Self {
        self.resource = ResourceParameter::Given(resource.into());
        self
    }

    /// Sends no `resource` parameter at all: for an authorization server
    /// that refuses it, as Entra ID does beside `.default` scopes (the
    /// scope names the API there: see [`shape_scopes`](Self::shape_scopes)). The token's audience is then
    /// whatever the authorization server decides.
    #[must_use]
    pub fn without_resource(mut self) -> Self {
        self.resource = ResourceParameter::Omitted;
        self
    }

    /// Rewrites the scopes asked for, after those the server named (its
    /// challenge, else its metadata's `scopes_supported`), those granted
    /// before (a step-up) and [`scopes`](Self::scopes) are put together,
    /// and before they are sent: for an identity provider whose scopes are
    /// not the server's names, such as Entra ID's
    /// `api://<application id>/.default` (every permission granted to the
    /// client for that API). An empty list sends no `scope`.
    ///
    /// ```
    /// use oxmcp_client::auth::OAuth;
    ///
    /// // Entra ID: the API's scopes by their application ID URI, no `resource`.
    /// let oauth = OAuth::new("my-cli")
    ///     .client("https://login.microsoftonline.com/TENANT/v2.0", "CLIENT-ID", None)
    ///     .without_resource()
    ///     .shape_scopes(|_| vec!["api://calculator/.default".into(), "offline_access".into()]);
    /// # let _ = oauth;
    /// ```
    #[must_use]
    pub fn shape_scopes(
        mut self,
        shape: impl Fn(Vec<String>) -> Vec<String> + Send + Sync + 'static,
    ) -> Self {
        self.shape_scopes = Some(Arc::new(shape));
        self
    }

    /// Takes the authorization server `issuer` to do PKCE with S256 although
    /// its metadata has no `code_challenge_methods_supported`. The spec has
    /// clients refuse such a server, and the client does, except for the
    /// issuer named here (spelled as its metadata spells `issuer`): Entra
    /// ID documents PKCE with S256 for its authorization code flow but does
    /// not advertise it. A server whose metadata lists methods without
    /// S256 is still refused.
    #[must_use]
    pub fn assume_pkce_s256(mut self, issuer: impl Into<Issuer>) -> Self {
        self.assumed_pkce = Some(issuer.into());
        self
    }

    /// Whether tokens are bound to a key of this client with DPoP (RFC
    /// 9449), so a stolen token is useless without the key.
    ///
    /// By default the client does so when the authorization server
    /// advertises `dpop_signing_alg_values_supported` with `ES256`; `true`
    /// binds tokens whatever the metadata says (an issuer advertising DPoP
    /// without `ES256` is then refused), `false` never does.
    ///
    /// With DPoP the client generates an ES256 key pair (kept in the
    /// [`TokenStore`] with the tokens it binds, and reused when they are
    /// refreshed), sends a proof signed with it on every token request and
    /// every request to the server (`DPoP` header: a JWT of type
    /// `dpop+jwt` with the public key, the method, the URL without query
    /// or fragment, a fresh `jti`, `iat`, and on requests to the server
    /// `ath`, the access token's hash), and presents the token as
    /// `Authorization: DPoP <token>`. A server's `DPoP-Nonce` is put in
    /// every later proof to that origin, the last one given replacing the
    /// one before; a refusal with `use_dpop_nonce` (400 from the token
    /// endpoint, 401 from the server) is retried once with the new nonce.
    /// An issuer that answers with a bearer token despite the proof gets
    /// its token used as a bearer token.
    ///
    /// ```
    /// use oxmcp_client::auth::OAuth;
    ///
    /// let oauth = OAuth::new("my-cli").dpop(true);
    /// # let _ = oauth;
    /// ```
    #[must_use]
    pub fn dpop(mut self, bind: bool) -> Self {
        self.dpop = Some(bind);
        self
    }

    /// How many times the client authorizes for one request (the first
    /// sign-in and each step-up for more scope) before it gives up (default 3).
    #[must_use]
    pub fn max_step_ups(mut self, n: u32) -> Self {
        self.max_step_ups = n;
        self
    }
}

pub(crate) fn default_http_client() -> HttpClient {
    crate::transport::http::http_client(Duration::from_secs(10), None)
}
