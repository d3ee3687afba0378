//! One operation of the document as one tool: its name, description,
//! input and output schemas, annotations, and where each argument goes in
//! the HTTP request.

use serde_json::{json, Map, Value};

use super::doc::{escape, text, Doc};
use super::OpenApiError;

/// The HTTP methods an operation may have, in the order paths list them.
pub(crate) const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// The output schema of an operation.
#[derive(Debug, Clone)]
pub(crate) struct Output {
    pub(crate) schema: Map<String, Value>,
    /// The response is not an object: results are `{"result": ...}`.
    pub(crate) wrapped: bool,
}

/// Where a parameter goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    Path,
    Query,
    Header,
    Cookie,
}

impl Place {
    fn parse(s: &str) -> Option<Place> {
        Some(match s {
            "path" => Place::Path,
            "query" => Place::Query,
            "header" => Place::Header,
            "cookie" => Place::Cookie,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Place::Path => "path",
            Place::Query => "query",
            Place::Header => "header",
            Place::Cookie => "cookie",
        }
    }
}

/// One parameter: its name on the wire, its argument's name, where it goes.
#[derive(Debug, Clone)]
pub(crate) struct Param {
    pub(crate) wire: String,
    pub(crate) argument: String,
    pub(crate) place: Place,
}

/// How the request body is sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BodyKind {
    Json,
    Form,
    /// Text of this media type (`text/plain`, `text/markdown`...), as given.
    Text(String),
}

/// An operation, ready to become a tool and to be called.
#[derive(Debug, Clone)]
pub(crate) struct Operation {
    pub(crate) name: String,
    /// Its `operationId`, else its method and path: what its name is made of.
    pub(crate) identity: String,
    pub(crate) method: String,
    pub(crate) path: String,
    pub(crate) pointer: String,
    pub(crate) description: Option<String>,
    pub(crate) params: Vec<Param>,
    /// The argument holding the body, and how it is sent.
    pub(crate) body: Option<(String, BodyKind)>,
    /// Why the operation cannot be called, when it cannot (a body no
    /// argument can hold: multipart, binary).
    pub(crate) unsendable: Option<String>,
    pub(crate) input_schema: Map<String, Value>,
    /// The output schema, if a 2xx response has a JSON body.
    pub(crate) output: Option<Output>,
    /// The security schemes this operation takes, any one set of them.
    pub(crate) security: Vec<Vec<String>>,
}

impl Operation {
    /// Reads the operation `method` of `path` (at `pointer`).
    pub(crate) fn read(
        doc: &Doc,
        path: &str,
        method: &str,
        op: &Value,
        pointer: &str,
    ) -> Result<Operation, OpenApiError> {
        let identity = identity(op.get("operationId").and_then(Value::as_str), method, path);
        let name = tool_name(&identity, method);
        let summary = text(op, "summary").trim();
        let details = text(op, "description").trim();
        let description = match (summary.is_empty(), details.is_empty()) {
            (true, true) => None,
            (false, true) => Some(summary.to_owned()),
            (true, false) => Some(details.to_owned()),
            (false, false) => Some(format!("{summary}\n\n{details}")),
        };

        let raw = parameters(doc, op, pointer)?;
        let mut properties = Map::new();
        let mut required = Vec::new();
        let params = arguments(doc, &raw, &mut properties, &mut required)?;
        let (body, unsendable) =
            match request_body(doc, op, pointer, &mut properties, &mut required)? {
                Ok(body) => (body, None),
                Err(why) => (None, Some(why)),
            };
        let mut input_schema = Map::new();
        input_schema.insert("type".into(), "object".into());
        input_schema.insert("properties".into(), Value::Object(properties));
        if !required.is_empty() {
            input_schema.insert("required".into(), Value::Array(required));
        }

        let output = output_schema(doc, op, pointer)?;
        let security = op
            .get("security")
            .or_else(|| doc.at("/security"))
            .and_then(Value::as_array)
            .map(|alternatives| {
                alternatives
                    .iter()
                    .filter_map(Value::as_object)
                    .map(|set| set.keys().cloned().collect())
                    .collect()
            })
            .unwrap_or_default();
        Ok(Operation {
            name,
            identity,
            method: method.to_owned(),
            path: path.to_owned(),
            pointer: pointer.to_owned(),
            description,
            params,
            body,
            unsendable,
            input_schema,
            output,
            security,
        })
    }

    /// The tool's annotations, from the method: GET and HEAD read only,
    /// DELETE destructive, PUT idempotent (and DELETE, as HTTP says).
    pub(crate) fn annotations(&self) -> Value {
        let mut a = Map::new();
        match self.method.as_str() {
            "get" | "head" | "options" => {
                a.insert("readOnlyHint".into(), true.into());
            }
            "delete" => {
                a.insert("readOnlyHint".into(), false.into());
                a.insert("destructiveHint".into(), true.into());
                a.insert("idempotentHint".into(), true.into());
            }
            "put" => {
                a.insert("readOnlyHint".into(), false.into());
                a.insert("destructiveHint".into(), false.into());
                a.insert("idempotentHint".into(), true.into());
            }
            _ => {
                a.insert("readOnlyHint".into(), false.into());
                a.insert("destructiveHint".into(), false.into());
            }
        }
        a.insert("openWorldHint".into(), true.into());
        Value::Object(a)
    }
}

/// The parameters of the operation at `pointer`: its path item's,
/// overridden by its own (same name and place), each with its position.
fn parameters(doc: &Doc, op: &Value, pointer: &str) -> Result<Vec<(Value, String)>, OpenApiError> {
    let item = pointer.rsplit_once('/').map_or("", |(p, _)| p);
    let mut raw: Vec<(Value, String)> = Vec::new();
    for (list, at) in [
        (
            doc.at(&format!("{item}/parameters")),
            format!("{item}/parameters"),
        ),
        (op.get("parameters"), format!("{pointer}/parameters")),
    ] {
        for (i, p) in list
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let here = format!("{at}/{i}");
            let (p, _) = doc.deref(p, &here)?;
            raw.retain(|(q, _)| !(q.get("name") == p.get("name") && q.get("in") == p.get("in")));
            raw.push((p.clone(), here));
        }
    }
    Ok(raw)
}

/// The arguments of `raw` parameters, their schemas added to `properties`
/// and the required ones to `required`. Two parameters of one name (in
/// different places) each take the place's name first, so that no argument
/// stands for two; nor does one take the body's name.
fn arguments(
    doc: &Doc,
    raw: &[(Value, String)],
    properties: &mut Map<String, Value>,
    required: &mut Vec<Value>,
) -> Result<Vec<Param>, OpenApiError> {
    let name_of = |p: &Value| p.get("name").and_then(Value::as_str).map(str::to_owned);
    let taken = |name: &str, me: usize| {
        name == "body"
            || raw
                .iter()
                .enumerate()
                .any(|(j, (q, _))| j != me && name_of(q).as_deref() == Some(name))
    };
    let mut params = Vec::new();
    for (i, (p, here)) in raw.iter().enumerate() {
        let wire =
            name_of(p).ok_or_else(|| OpenApiError::at(here, "a parameter without a `name`"))?;
        let place = p
            .get("in")
            .and_then(Value::as_str)
            .and_then(Place::parse)
            .ok_or_else(|| {
                OpenApiError::at(
                    here,
                    format!(
                        "the parameter `{wire}` has no valid `in` (path, query, header or cookie)"
                    ),
                )
            })?;
        let argument = if taken(&wire, i) {
            format!("{}_{wire}", place.name())
        } else {
            wire.clone()
        };
        let mut schema = match p.get("schema") {
            Some(s) => doc.schema(s, &format!("{here}/schema"))?,
            None => json!({"type": "string"}),
        };
        describe(&mut schema, p);
        if place == Place::Path || p.get("required") == Some(&Value::Bool(true)) {
            required.push(Value::String(argument.clone()));
        }
        properties.insert(argument.clone(), schema);
        params.push(Param {
            wire,
            argument,
            place,
        });
    }
    Ok(params)
}

/// The request body of the operation at `pointer`, as an argument (`body`,
/// or `request_body` when a parameter took that name) holding a JSON,
/// form or text body; `Err` inside says why no argument can hold it.
fn request_body(
    doc: &Doc,
    op: &Value,
    pointer: &str,
    properties: &mut Map<String, Value>,
    required: &mut Vec<Value>,
) -> Result<Result<Option<(String, BodyKind)>, String>, OpenApiError> {
    let Some(b) = op.get("requestBody") else {
        return Ok(Ok(None));
    };
    let here = format!("{pointer}/requestBody");
    let (b, _) = doc.deref(b, &here)?;
    let Some(content) = b
        .get("content")
        .and_then(Value::as_object)
        .filter(|c| !c.is_empty())
    else {
        return Ok(Ok(None));
    };
    let json = content
        .iter()
        .find(|(t, _)| is_json(t))
        .map(|(t, v)| (t, v, BodyKind::Json));
    let form = || {
        content
            .iter()
            .find(|(t, _)| t.as_str() == "application/x-www-form-urlencoded")
            .map(|(t, v)| (t, v, BodyKind::Form))
    };
    let text = || {
        content
            .iter()
            .find(|(t, _)| t.starts_with("text/"))
            .map(|(t, v)| (t, v, BodyKind::Text(t.clone())))
    };
    let Some((media, media_obj, kind)) = json.or_else(form).or_else(text) else {
        let kinds: Vec<&String> = content.keys().collect();
        return Ok(Err(format!(
            "its request body ({kinds:?}) cannot be sent: JSON, form and text bodies can"
        )));
    };
    let at = format!("{here}/content/{}/schema", escape(media));
    let mut schema = match (media_obj.get("schema"), &kind) {
        (_, BodyKind::Text(_)) => json!({"type": "string"}),
        (Some(s), _) => doc.schema(s, &at)?,
        (None, _) => json!({}),
    };
    describe(&mut schema, b);
    let argument = if properties.contains_key("body") {
        "request_body"
    } else {
        "body"
    }
    .to_owned();
    if b.get("required") == Some(&Value::Bool(true)) {
        required.push(Value::String(argument.clone()));
    }
    properties.insert(argument.clone(), schema);
    Ok(Ok(Some((argument, kind))))
}

/// Gives `schema` the `description` of `owner` (a parameter, a body) unless it has one.
fn describe(schema: &mut Value, owner: &Value) {
    if let (Value::Object(s), Some(d)) = (schema, owner.get("description").and_then(Value::as_str))
    {
        s.entry("description").or_insert_with(|| d.into());
    }
}

/// A media type without its parameters, in lower case (`text/html`).
pub(crate) fn essence(media: &str) -> String {
    media
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// Whether `media` is JSON (`application/json`, `application/problem+json`...).
pub(crate) fn is_json(media: &str) -> bool {
    let essence = essence(media);
    essence == "application/json"
        || (essence.starts_with("application/") && essence.ends_with("+json"))
}

/// The output schema of the first 2xx response with a JSON body: an
/// object schema as it is; any other wrapped as `{"result": ...}`.
fn output_schema(doc: &Doc, op: &Value, pointer: &str) -> Result<Option<Output>, OpenApiError> {
    let Some(responses) = op.get("responses").and_then(Value::as_object) else {
        return Ok(None);
    };
    let mut codes: Vec<&String> = responses.keys().filter(|c| c.starts_with('2')).collect();
    codes.sort();
    for code in codes {
        let here = format!("{pointer}/responses/{code}");
        let (response, _) = doc.deref(&responses[code], &here)?;
        let Some(content) = response.get("content").and_then(Value::as_object) else {
            continue;
        };
        let Some((media, media_obj)) = content.iter().find(|(t, _)| is_json(t)) else {
            continue;
        };
        let Some(schema) = media_obj.get("schema") else {
            return Ok(None);
        };
        let schema = doc.schema(schema, &format!("{here}/content/{}/schema", escape(media)))?;
        return Ok(Some(match schema {
            Value::Object(s) if s.get("type") == Some(&Value::String("object".into())) => Output {
                schema: s,
                wrapped: false,
            },
            other => {
                let mut properties = Map::new();
                properties.insert("result".into(), other);
                let mut schema = Map::new();
                schema.insert("type".into(), "object".into());
                schema.insert("properties".into(), Value::Object(properties));
                schema.insert("required".into(), json!(["result"]));
                Output {
                    schema,
                    wrapped: true,
                }
            }
        }));
    }
    Ok(None)
}

/// What names an operation in the document: its `operationId`, else its
/// method and path.
fn identity(operation_id: Option<&str>, method: &str, path: &str) -> String {
    match operation_id {
        Some(id) if !id.trim().is_empty() => id.to_owned(),
        _ => format!("{method}_{path}"),
    }
}

/// The longest tool name made: what the model providers' APIs take
/// (Anthropic's and OpenAI's tool names are at most 64 characters).
pub(crate) const MAX_NAME: usize = 64;

/// The tool name of an operation of identity `raw` (see [`identity`]),
/// in the characters tool names allow (`[A-Za-z0-9_.-]`, at most
/// [`MAX_NAME`]).
fn tool_name(raw: &str, method: &str) -> String {
    let mut name = String::new();
    for c in raw.chars() {
        let c = if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
            c
        } else {
            '_'
        };
        if c == '_' && (name.is_empty() || name.ends_with('_')) {
            continue;
        }
        name.push(c);
    }
    let name = name.trim_end_matches('_');
    let name: String = name.chars().take(MAX_NAME).collect();
    if name.is_empty() {
        format!("{method}_root")
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_valid_tool_names() {
        let name = |id: Option<&str>, method: &str, path: &str| {
            tool_name(&identity(id, method, path), method)
        };
        assert_eq!(name(Some("listPets"), "get", "/pets"), "listPets");
        assert_eq!(
            name(None, "get", "/pets/{petId}/photos"),
            "get_pets_petId_photos"
        );
        assert_eq!(name(Some("pets list (v2)"), "get", "/x"), "pets_list_v2");
        assert_eq!(name(None, "get", "/"), "get");
        let long = name(Some(&"x".repeat(300)), "get", "/");
        assert_eq!(long.len(), MAX_NAME);
        assert!(oxmcp_server::types::tool::is_valid_tool_name(&long));
    }
}
