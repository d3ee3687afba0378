//! One tool call as one HTTP request through the hardened client, and its
//! response as a tool result.

use std::sync::Arc;

use bytes::Bytes;
use http::header::{self, HeaderMap, HeaderName, HeaderValue};
use http::Method;
use oxmcp_server::types::{CallToolResult, ContentBlock, JsonObject, ResourceContents};
use serde_json::Value;
use url::Url;

use super::doc::text;
use super::operation::{essence, is_json, BodyKind, Operation, Place};
use super::Credential;
use crate::http::client::{self, Limits, Request};

/// How much of an error response's body an `isError` result quotes.
const ERROR_BODY_CHARS: usize = 1000;

/// What every call of one toolbox shares.
#[derive(Debug)]
pub(crate) struct Caller {
    pub(crate) limits: Arc<Limits>,
    pub(crate) base: Url,
    /// The credentials configured, by security scheme name, with where
    /// each goes (from the document's `securitySchemes`).
    pub(crate) credentials: Vec<(String, Placed)>,
}

/// A credential and where the document says it goes.
#[derive(Debug, Clone)]
pub(crate) enum Placed {
    Header(HeaderName, HeaderValue),
    Query(String, String),
    Cookie(String, String),
}

impl Placed {
    /// Where `credential` goes for the scheme `scheme` (a `securitySchemes` entry).
    pub(crate) fn of(credential: &Credential, scheme: &Value) -> Result<Placed, String> {
        let kind = text(scheme, "type");
        let http_scheme = text(scheme, "scheme").to_ascii_lowercase();
        let value = |v: String| {
            HeaderValue::from_str(&v)
                .map_err(|_| "the credential is not a valid header value".to_owned())
        };
        match (kind, credential) {
            ("apiKey", Credential::ApiKey(key)) => {
                let name = scheme
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or("the apiKey scheme has no `name`")?;
                match scheme.get("in").and_then(Value::as_str) {
                    Some("header") => Ok(Placed::Header(
                        HeaderName::try_from(name)
                            .map_err(|_| format!("`{name}` is not a header name"))?,
                        value(key.clone())?,
                    )),
                    Some("query") => Ok(Placed::Query(name.to_owned(), key.clone())),
                    Some("cookie") => Ok(Placed::Cookie(name.to_owned(), key.clone())),
                    _ => Err("the apiKey scheme has no valid `in`".into()),
                }
            }
            ("http", Credential::Bearer(token)) if http_scheme == "bearer" => Ok(Placed::Header(
                header::AUTHORIZATION,
                value(format!("Bearer {token}"))?,
            )),
            ("http", Credential::Basic { user, password }) if http_scheme == "basic" => {
                let pair =
                    oxmcp_wire::header::base64::encode(format!("{user}:{password}").as_bytes());
                Ok(Placed::Header(
                    header::AUTHORIZATION,
                    value(format!("Basic {pair}"))?,
                ))
            }
            ("oauth2" | "openIdConnect", Credential::Bearer(token)) => Ok(Placed::Header(
                header::AUTHORIZATION,
                value(format!("Bearer {token}"))?,
            )),
            (kind, given) => Err(format!(
                "a {} credential does not fit a `{kind}` scheme{}",
                given.kind(),
                if kind == "http" {
                    format!(" of `{http_scheme}`")
                } else {
                    String::new()
                }
            )),
        }
    }
}

impl Caller {
    /// Calls `op` with `arguments`: the tool's result.
    pub(crate) async fn call(&self, op: &Operation, mut arguments: JsonObject) -> CallToolResult {
        let request = match self.request(op, &mut arguments) {
            Ok(request) => request,
            Err(why) => return CallToolResult::error(why),
        };
        let shown = format!("{} {}", op.method.to_ascii_uppercase(), request.url);
        match client::send(&self.limits, request).await {
            Ok(response) => result(op, &shown, &response, self.limits.max_response_bytes),
            Err(why) => CallToolResult::error(format!("{shown} failed: {why}")),
        }
    }

    /// The HTTP request for `op` with `arguments`.
    fn request(&self, op: &Operation, arguments: &mut JsonObject) -> Result<Request, String> {
        let mut url = self.base.clone();
        let joined = format!(
            "{}{}",
            url.path().trim_end_matches('/'),
            path(op, arguments)?
        );
        url.set_path(&joined);
        let mut headers = HeaderMap::new();
        let mut cookies: Vec<String> = Vec::new();
        {
            let mut query = url.query_pairs_mut();
            for p in &op.params {
                let Some(value) = arguments.remove(&p.argument) else {
                    continue;
                };
                match p.place {
                    Place::Path => {}
                    // An array: the form style's repeated pairs (OpenAPI's default).
                    Place::Query => match &value {
                        Value::Array(items) => {
                            for item in items {
                                query.append_pair(&p.wire, &scalar(item));
                            }
                        }
                        other => {
                            query.append_pair(&p.wire, &scalar(other));
                        }
                    },
                    Place::Header => {
                        let name = HeaderName::try_from(p.wire.as_str())
                            .map_err(|_| format!("`{}` is not a header name", p.wire))?;
                        let value = HeaderValue::from_str(&scalar(&value)).map_err(|_| {
                            format!(
                                "the header argument `{}` is not a valid header value",
                                p.argument
                            )
                        })?;
                        headers.insert(name, value);
                    }
                    Place::Cookie => cookies.push(format!("{}={}", p.wire, scalar(&value))),
                }
            }
            for (_, placed) in &self.credentials {
                match placed {
                    Placed::Query(name, value) => {
                        query.append_pair(name, value);
                    }
                    Placed::Header(name, value) => {
                        headers.insert(name.clone(), value.clone());
                    }
                    Placed::Cookie(name, value) => cookies.push(format!("{name}={value}")),
                }
            }
        }
        if url.query() == Some("") {
            url.set_query(None);
        }
        if !cookies.is_empty() {
            let cookie = HeaderValue::from_str(&cookies.join("; "))
                .map_err(|_| "a cookie argument is not a valid header value".to_owned())?;
            headers.insert(header::COOKIE, cookie);
        }
        let body = body(op, arguments, &mut headers)?;
        if let Some(unknown) = arguments.keys().next() {
            let takes: Vec<String> = op
                .input_schema
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flat_map(|p| p.keys().map(|k| format!("`{k}`")))
                .collect();
            return Err(format!(
                "unknown argument `{unknown}`: the tool takes {}",
                takes.join(", ")
            ));
        }
        let method = Method::from_bytes(op.method.to_ascii_uppercase().as_bytes())
            .map_err(|e| e.to_string())?;
        headers.insert(
            header::ACCEPT,
            HeaderValue::from_static("application/json, */*;q=0.5"),
        );
        Ok(Request {
            method,
            url,
            headers,
            body,
        })
    }
}

/// The operation's path with its path arguments (taken from `arguments`),
/// each percent-encoded as one segment.
fn path(op: &Operation, arguments: &mut JsonObject) -> Result<String, String> {
    let mut path = String::new();
    let mut rest = op.path.as_str();
    while let Some(open) = rest.find('{') {
        let close = rest[open..]
            .find('}')
            .map(|c| open + c)
            .ok_or_else(|| format!("the path {:?} has an unclosed `{{`", op.path))?;
        path.push_str(&rest[..open]);
        let wire = &rest[open + 1..close];
        let param = op
            .params
            .iter()
            .find(|p| p.place == Place::Path && p.wire == wire);
        let value = param
            .and_then(|p| arguments.remove(&p.argument))
            .ok_or_else(|| {
                format!(
                    "missing the path argument `{}`",
                    param.map_or(wire, |p| p.argument.as_str())
                )
            })?;
        path.push_str(
            &percent_encoding::utf8_percent_encode(&scalar(&value), PATH_SEGMENT).to_string(),
        );
        rest = &rest[close + 1..];
    }
    path.push_str(rest);
    Ok(path)
}

/// The request body (taken from `arguments`), its `Content-Type` set in `headers`.
fn body(
    op: &Operation,
    arguments: &mut JsonObject,
    headers: &mut HeaderMap,
) -> Result<Bytes, String> {
    let Some((argument, kind)) = &op.body else {
        return Ok(Bytes::new());
    };
    let Some(value) = arguments.remove(argument) else {
        return Ok(Bytes::new());
    };
    match kind {
        BodyKind::Json => {
            headers.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            Ok(Bytes::from(
                serde_json::to_vec(&value).map_err(|e| e.to_string())?,
            ))
        }
        BodyKind::Form => {
            let Value::Object(fields) = value else {
                return Err(format!(
                    "the argument `{argument}` must be an object (a form)"
                ));
            };
            let mut form = url::form_urlencoded::Serializer::new(String::new());
            for (k, v) in &fields {
                form.append_pair(k, &scalar(v));
            }
            headers.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/x-www-form-urlencoded"),
            );
            Ok(Bytes::from(form.finish()))
        }
        BodyKind::Text(media) => {
            let Value::String(text) = value else {
                return Err(format!("the argument `{argument}` must be text"));
            };
            let media = HeaderValue::from_str(media).map_err(|e| e.to_string())?;
            headers.insert(header::CONTENT_TYPE, media);
            Ok(Bytes::from(text))
        }
    }
}

/// What is escaped in a path segment (RFC 3986: all but unreserved).
const PATH_SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// A JSON value as a parameter's text: strings as they are, the rest as JSON.
fn scalar(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The tool result of a response.
fn result(op: &Operation, shown: &str, response: &client::Response, cap: usize) -> CallToolResult {
    let status = response.status.as_u16();
    let media = response
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("application/octet-stream")
        .to_owned();
    let cut = if response.truncated {
        format!(" (the response was cut at {cap} bytes, the size limit)")
    } else {
        String::new()
    };
    if !response.status.is_success() {
        let text = String::from_utf8_lossy(&response.body);
        let start: String = text.chars().take(ERROR_BODY_CHARS).collect();
        let more = if text.chars().count() > ERROR_BODY_CHARS {
            "..."
        } else {
            ""
        };
        let reason = response.status.canonical_reason().unwrap_or_default();
        return CallToolResult::error(format!(
            "{shown} answered HTTP {status} {reason}{cut}: {start}{more}"
        ));
    }
    if response.body.is_empty() {
        return CallToolResult::text(format!("HTTP {status} (no content)"));
    }
    if is_json(&media) && !response.truncated {
        if let Ok(value) = serde_json::from_slice::<Value>(&response.body) {
            let text = String::from_utf8_lossy(&response.body).into_owned();
            let structured = match (&op.output, value) {
                (Some(output), value) if output.wrapped => Some(json_object("result", value)),
                (_, Value::Object(object)) => Some(object),
                _ => None,
            };
            let mut result = CallToolResult::text(text);
            result.structured_content = structured.map(Value::Object);
            return result;
        }
    }
    let essence = essence(&media);
    let encoded = || oxmcp_wire::header::base64::encode(&response.body);
    let block = if essence.starts_with("text/")
        || is_json(&essence)
        || essence.ends_with("+xml")
        || essence == "application/xml"
    {
        ContentBlock::text(format!("{}{cut}", String::from_utf8_lossy(&response.body)))
    } else if essence.starts_with("image/") {
        ContentBlock::image(encoded(), essence)
    } else if essence.starts_with("audio/") {
        ContentBlock::audio(encoded(), essence)
    } else {
        ContentBlock::resource(ResourceContents::blob(
            response.url.as_str(),
            essence,
            encoded(),
        ))
    };
    let mut result = CallToolResult::text(String::new());
    result.content = vec![block];
    result
}

fn json_object(key: &str, value: Value) -> serde_json::Map<String, Value> {
    let mut m = serde_json::Map::new();
    m.insert(key.into(), value);
    m
}
