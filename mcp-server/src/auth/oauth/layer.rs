//! [`AuthLayer`]: the same protection as a tower layer, for an axum app.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::{Method, Request, Response, StatusCode};
use http_body_util::{Either, Full};

use super::{Authorization, Denied};

impl Authorization {
    /// This protection as a tower layer: it answers the well-known metadata
    /// paths, checks the bearer token of every other request, and passes the
    /// [`Identity`](crate::auth::Identity) on in the request's extensions (the MCP
    /// [`HttpService`](crate::http::HttpService) behind it reads it, and so
    /// can your own handlers).
    ///
    /// The layer answers the metadata's well-known paths itself when a
    /// request for them reaches it: give the router a fallback, so that
    /// those requests pass through the layer.
    ///
    /// ```no_run
    /// # async fn demo(server: oxmcp_server::Server, auth: oxmcp_server::auth::Authorization) {
    /// use oxmcp_server::http::HttpConfig;
    ///
    /// let mcp = server.http_service(HttpConfig::default());
    /// let app: axum::Router = axum::Router::new()
    ///     .route_service("/mcp", mcp)
    ///     .fallback(|| async { (http::StatusCode::NOT_FOUND, "not found") })
    ///     .layer(auth.layer());
    /// # let _ = app;
    /// # }
    /// ```
    pub fn layer(&self) -> AuthLayer {
        AuthLayer { auth: self.clone() }
    }

    /// The metadata document as a response (`GET` on a well-known path).
    pub(crate) fn metadata_response(
        &self,
        method: &Method,
    ) -> (StatusCode, Vec<(&'static str, &'static str)>, Vec<u8>) {
        if method != Method::GET && method != Method::HEAD {
            return (
                StatusCode::METHOD_NOT_ALLOWED,
                vec![("allow", "GET")],
                Vec::new(),
            );
        }
        let body = serde_json::to_vec(self.metadata()).unwrap_or_default();
        (
            StatusCode::OK,
            vec![
                ("content-type", "application/json"),
                // Browser-based clients read it from another origin.
                ("access-control-allow-origin", "*"),
                ("cache-control", "max-age=3600"),
            ],
            body,
        )
    }
}

/// The transport asks an [`Authorization`] configured on its
/// [`HttpConfig`](crate::http::HttpConfig) through this, as it would any gate.
impl crate::auth::Gate for Authorization {
    fn answer(&self, method: &Method, path: &str) -> Option<crate::auth::Answer> {
        if !self.is_metadata_path(path) {
            return None;
        }
        let (status, headers, body) = self.metadata_response(method);
        let mut map = http::HeaderMap::new();
        for (name, value) in headers {
            map.insert(name, http::HeaderValue::from_static(value));
        }
        Some((status, map, body))
    }

    fn verify<'a>(
        &'a self,
        method: &'a Method,
        uri: &'a http::Uri,
        headers: &'a http::HeaderMap,
        store: Option<&'a dyn crate::state::Store>,
    ) -> oxmcp_types::call::BoxFuture<'a, Result<crate::auth::Verified, crate::auth::Answer>> {
        Box::pin(async move {
            self.verify_request(method, uri, headers, store)
                .await
                .map_err(Denied::into_parts)
        })
    }

    fn insufficient_scope(&self, dpop: bool, needed: &[&str]) -> crate::auth::Answer {
        self.insufficient_scope_for(dpop, needed).into_parts()
    }
}

/// A tower layer protecting the services under it; see [`Authorization::layer`].
#[derive(Debug, Clone)]
pub struct AuthLayer {
    auth: Authorization,
}

impl<S> tower_layer::Layer<S> for AuthLayer {
    type Service = AuthService<S>;

    fn layer(&self, inner: S) -> AuthService<S> {
        AuthService {
            auth: self.auth.clone(),
            inner,
        }
    }
}

/// The service [`AuthLayer`] makes.
#[derive(Debug, Clone)]
pub struct AuthService<S> {
    auth: Authorization,
    inner: S,
}

fn full<B>(
    status: StatusCode,
    headers: &[(&str, &str)],
    body: Vec<u8>,
) -> Response<Either<Full<Bytes>, B>> {
    let mut response = Response::new(Either::Left(Full::new(Bytes::from(body))));
    *response.status_mut() = status;
    for (name, value) in headers {
        if let (Ok(name), Ok(value)) = (
            http::HeaderName::from_bytes(name.as_bytes()),
            http::HeaderValue::from_str(value),
        ) {
            response.headers_mut().insert(name, value);
        }
    }
    response
}

/// A refusal as a response of any body type.
pub(crate) fn denied_response<B>(denied: Denied) -> Response<Either<Full<Bytes>, B>> {
    let (status, headers, body) = denied.into_parts();
    let mut response = full(status, &[], body);
    response.headers_mut().extend(headers);
    response
}

impl<S, ReqBody, ResBody> tower_service::Service<Request<ReqBody>> for AuthService<S>
where
    S: tower_service::Service<Request<ReqBody>, Response = Response<ResBody>, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send,
    ReqBody: Send + 'static,
{
    type Response = Response<Either<Full<Bytes>, ResBody>>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut req: Request<ReqBody>) -> Self::Future {
        let auth = self.auth.clone();
        // The clone that was driven to readiness serves this request.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        Box::pin(async move {
            if auth.is_metadata_path(req.uri().path()) {
                let (status, headers, body) = auth.metadata_response(req.method());
                return Ok(full(status, &headers, body));
            }
            match auth
                .verify_request(req.method(), req.uri(), req.headers(), None)
                .await
            {
                Ok(verified) => {
                    req.extensions_mut().insert(verified.clone());
                    let mut response = inner.call(req).await?;
                    verified.dress(&mut response);
                    Ok(response.map(Either::Right))
                }
                Err(denied) => Ok(denied_response(denied)),
            }
        })
    }
}
