//! The `Context` side of asking the client: [`Context::sample`],
//! [`Context::elicit`], [`Context::roots`] and their keyed forms
//! ([`Context::ask`]), and the typed elicitation forms: a Rust type's JSON
//! Schema checked against (and reduced to) the spec's restricted, flat
//! elicitation schema before anything is sent.

use oxmcp_types::elicitation::{ElicitAction, ElicitParams, ElicitResult};
use oxmcp_types::roots::{ListRootsResult, Root};
use oxmcp_types::sampling::{CreateMessageParams, CreateMessageResult};
use oxmcp_types::{method, JsonObject};
use oxmcp_wire::deprecated::{self, Feature};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::ask::AskError;
use crate::context::Context;

/// What the user did with a typed form.
#[derive(Debug, Clone, PartialEq)]
pub enum Elicited<T> {
    /// Submitted it: the answer.
    Accepted(T),
    /// Declined explicitly.
    Declined,
    /// Dismissed it.
    Cancelled,
}

/// Asks under a key of your choosing (the 2026-07-28 input request's key;
/// in the legacy era the key is not sent). From [`Context::ask`].
#[derive(Debug, Clone, Copy)]
pub struct Ask<'a> {
    ctx: &'a Context,
    key: Option<&'a str>,
}

impl Context {
    /// Asks under `key`: `ctx.ask("user_name").elicit::<Name>("What is your name?")`.
    pub fn ask<'a>(&'a self, key: &'a str) -> Ask<'a> {
        Ask {
            ctx: self,
            key: Some(key),
        }
    }

    fn ask_auto(&self) -> Ask<'_> {
        Ask {
            ctx: self,
            key: None,
        }
    }

    /// Asks the client's model to sample a message (`sampling/createMessage`).
    ///
    /// # Errors
    ///
    /// See [`AskError`]: the client lacks the `sampling` capability, refused,
    /// answered something invalid, or the request ended first.
    #[deprecated(
        since = "0.1.0",
        note = "sampling is deprecated since MCP 2026-07-28 (SEP-2577): call the model provider's API from the server instead (oxmcp-agent's models)"
    )]
    #[allow(deprecated)]
    pub async fn sample(
        &self,
        params: CreateMessageParams,
    ) -> Result<CreateMessageResult, AskError> {
        self.ask_auto().sample(params).await
    }

    /// Asks the user to fill in the form of `T` (`elicitation/create`): `T`'s
    /// fields are the form's properties (strings, numbers, integers, booleans,
    /// enums of strings, `Vec`s of such enums; `Option` fields are optional),
    /// doc comments their descriptions.
    ///
    /// ```
    /// use oxmcp_server::{tool, Context, ask::Elicited, ToolError};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Confirm {
    ///     /// Type the note's title to delete it
    ///     title: String,
    /// }
    ///
    /// pub struct Notes;
    ///
    /// #[tool(description = "Notes")]
    /// impl Notes {
    ///     #[describe("Delete a note, after the user confirms")]
    ///     pub async fn delete(&self, #[param("The note")] id: u32, ctx: Context) -> Result<String, ToolError> {
    ///         match ctx.elicit::<Confirm>(format!("Delete note {id}?")).await? {
    ///             Elicited::Accepted(c) => Ok(format!("deleted {}", c.title)),
    ///             Elicited::Declined | Elicited::Cancelled => Ok("kept".into()),
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// # Errors
    ///
    /// [`AskError::Unaskable`] before anything is sent when `T`'s schema is
    /// not a flat form; otherwise as [`sample`](Self::sample).
    pub async fn elicit<T: DeserializeOwned + JsonSchema>(
        &self,
        message: impl Into<String>,
    ) -> Result<Elicited<T>, AskError> {
        self.ask_auto().elicit(message).await
    }

    /// Asks the client with elicitation parameters written by hand.
    ///
    /// # Errors
    ///
    /// As [`sample`](Self::sample).
    pub async fn elicit_with(&self, params: ElicitParams) -> Result<ElicitResult, AskError> {
        self.ask_auto().elicit_with(params).await
    }

    /// Asks the client for its roots (`roots/list`).
    ///
    /// # Errors
    ///
    /// As [`sample`](Self::sample).
    #[deprecated(
        since = "0.1.0",
        note = "roots are deprecated since MCP 2026-07-28 (SEP-2577): take directories or files as tool parameters, resource URIs or server configuration instead"
    )]
    #[allow(deprecated)]
    pub async fn roots(&self) -> Result<Vec<Root>, AskError> {
        self.ask_auto().roots().await
    }
}

impl Ask<'_> {
    async fn request<R: DeserializeOwned>(
        self,
        method: &'static str,
        capability: &'static str,
        declared: bool,
        params: Value,
    ) -> Result<R, AskError> {
        if !declared {
            return Err(AskError::Unsupported(capability));
        }
        let answer = self
            .ctx
            .asker()
            .ask(self.key, method, params, self.ctx.cancelled())
            .await?;
        serde_json::from_value(answer).map_err(|e| AskError::Invalid(e.to_string()))
    }

    /// [`Context::sample`] under this key.
    ///
    /// # Errors
    ///
    /// As [`Context::sample`].
    #[deprecated(
        since = "0.1.0",
        note = "sampling is deprecated since MCP 2026-07-28 (SEP-2577): call the model provider's API from the server instead (oxmcp-agent's models)"
    )]
    pub async fn sample(
        self,
        params: CreateMessageParams,
    ) -> Result<CreateMessageResult, AskError> {
        let declared = self.ctx.client_capabilities().sampling.is_some();
        if declared {
            deprecated::used(Feature::Sampling);
        }
        let params =
            serde_json::to_value(params).map_err(|e| AskError::Unaskable(e.to_string()))?;
        self.request(
            method::SAMPLING_CREATE_MESSAGE,
            "sampling",
            declared,
            params,
        )
        .await
    }

    /// [`Context::elicit_with`] under this key.
    ///
    /// # Errors
    ///
    /// As [`Context::sample`].
    pub async fn elicit_with(self, params: ElicitParams) -> Result<ElicitResult, AskError> {
        let declared = self.ctx.client_capabilities().elicitation.is_some();
        let params =
            serde_json::to_value(params).map_err(|e| AskError::Unaskable(e.to_string()))?;
        self.request(method::ELICITATION_CREATE, "elicitation", declared, params)
            .await
    }

    /// [`Context::elicit`] under this key.
    ///
    /// # Errors
    ///
    /// As [`Context::elicit`].
    pub async fn elicit<T: DeserializeOwned + JsonSchema>(
        self,
        message: impl Into<String>,
    ) -> Result<Elicited<T>, AskError> {
        let schema = form_schema::<T>().map_err(AskError::Unaskable)?;
        let result = self
            .elicit_with(ElicitParams::form(message, schema))
            .await?;
        match result.action {
            ElicitAction::Accept => {
                let content = Value::Object(result.content.unwrap_or_default());
                serde_json::from_value(content)
                    .map(Elicited::Accepted)
                    .map_err(|e| AskError::Invalid(e.to_string()))
            }
            ElicitAction::Decline => Ok(Elicited::Declined),
            ElicitAction::Cancel => Ok(Elicited::Cancelled),
        }
    }

    /// [`Context::roots`] under this key.
    ///
    /// # Errors
    ///
    /// As [`Context::sample`].
    #[deprecated(
        since = "0.1.0",
        note = "roots are deprecated since MCP 2026-07-28 (SEP-2577): take directories or files as tool parameters, resource URIs or server configuration instead"
    )]
    pub async fn roots(self) -> Result<Vec<Root>, AskError> {
        let declared = self.ctx.client_capabilities().roots.is_some();
        if declared {
            deprecated::used(Feature::Roots);
        }
        let result: ListRootsResult = self
            .request(
                method::ROOTS_LIST,
                "roots",
                declared,
                Value::Object(Map::new()),
            )
            .await?;
        Ok(result.roots)
    }
}

/// `T`'s schema as the spec's restricted elicitation schema: an object of
/// primitive properties (or an error naming what the spec cannot express).
pub fn form_schema<T: JsonSchema>() -> Result<JsonObject, String> {
    let root = serde_json::to_value(schemars::schema_for!(T)).map_err(|e| e.to_string())?;
    let defs = root.get("$defs").cloned().unwrap_or(Value::Null);
    let name = T::schema_name();
    if root.get("type").and_then(Value::as_str) != Some("object") {
        return Err(format!("`{name}` is not a struct with named fields: an elicitation form is an object of primitive properties"));
    }
    let mut properties = Map::new();
    for (field, schema) in root
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let flat = primitive(resolve(schema, &defs), &defs)
            .map_err(|why| format!("field `{field}` of `{name}` {why}"))?;
        properties.insert(field.clone(), flat);
    }
    let mut form = JsonObject::new();
    form.insert("type".into(), "object".into());
    form.insert("properties".into(), Value::Object(properties));
    if let Some(required) = root.get("required") {
        form.insert("required".into(), required.clone());
    }
    Ok(form)
}

/// Follows a `$ref` into `$defs`, once.
fn resolve<'a>(schema: &'a Value, defs: &'a Value) -> &'a Value {
    schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
        .and_then(|name| defs.get(name))
        .unwrap_or(schema)
}

/// The kept keywords of a primitive property.
const KEPT: &[&str] = &[
    "title",
    "description",
    "default",
    "format",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "enum",
    "minItems",
    "maxItems",
];

fn primitive(schema: &Value, defs: &Value) -> Result<Value, &'static str> {
    let obj = schema.as_object().ok_or("has no schema")?;
    // `Option<T>`: `"type": ["T", "null"]`, or `anyOf: [T, null]`.
    if let Some(any) = obj.get("anyOf").and_then(Value::as_array) {
        let non_null: Vec<&Value> = any
            .iter()
            .filter(|s| s.get("type").and_then(Value::as_str) != Some("null"))
            .collect();
        if let [one] = non_null[..] {
            let mut inner = primitive(resolve(one, defs), defs)?;
            carry(obj, &mut inner);
            return Ok(inner);
        }
        return Err("is a union, which an elicitation form cannot express");
    }
    if let Some(one_of) = obj.get("oneOf").and_then(Value::as_array) {
        // A string enum whose variants are documented: a titled single-select.
        let options: Option<Vec<Value>> = one_of
            .iter()
            .map(|v| {
                let c = v
                    .get("const")
                    .or_else(|| v.get("enum").and_then(|e| e.get(0)))?;
                c.as_str()?;
                let mut o = Map::new();
                o.insert("const".into(), c.clone());
                let title = v.get("description").or_else(|| v.get("title")).unwrap_or(c);
                o.insert("title".into(), title.clone());
                Some(Value::Object(o))
            })
            .collect();
        let options =
            options.ok_or("is an enum with data, which an elicitation form cannot express")?;
        let mut out = Map::new();
        out.insert("type".into(), "string".into());
        out.insert("oneOf".into(), Value::Array(options));
        carry_map(obj, &mut out);
        return Ok(Value::Object(out));
    }
    let ty = match obj.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => {
            let non_null: Vec<&str> = ts.iter().filter_map(Value::as_str).filter(|t| *t != "null").collect();
            match non_null[..] {
                [t] => t,
                _ => return Err("has several types, which an elicitation form cannot express"),
            }
        }
        _ if obj.contains_key("enum") => "string",
        _ => return Err("has no primitive type: an elicitation form holds strings, numbers, integers, booleans and enums"),
    };
    let mut out = Map::new();
    match ty {
        "string" | "number" | "integer" | "boolean" => {
            out.insert("type".into(), ty.into());
        }
        "array" => {
            let items = obj
                .get("items")
                .map(|i| resolve(i, defs))
                .ok_or("is an array without items")?;
            let items = primitive(items, defs)?;
            let is_choice = items.get("enum").is_some() || items.get("oneOf").is_some();
            if !is_choice {
                return Err("is a list of free values: an elicitation form's lists are multi-selects of enum values");
            }
            let mut items = items.as_object().cloned().unwrap_or_default();
            // A titled multi-select lists its options under `anyOf`.
            if let Some(options) = items.remove("oneOf") {
                items.remove("type");
                items.insert("anyOf".into(), options);
            }
            out.insert("type".into(), "array".into());
            out.insert("items".into(), Value::Object(items));
        }
        "object" => return Err("is an object: an elicitation form is flat (no nested objects)"),
        _ => return Err("has a type an elicitation form cannot express"),
    }
    carry_map(obj, &mut out);
    Ok(Value::Object(out))
}

/// Copies the kept keywords of `from` that `into` lacks.
fn carry(from: &Map<String, Value>, into: &mut Value) {
    if let Value::Object(into) = into {
        carry_map(from, into);
    }
}

fn carry_map(from: &Map<String, Value>, into: &mut Map<String, Value>) {
    for key in KEPT {
        if let Some(v) = from.get(*key) {
            into.entry((*key).to_owned()).or_insert_with(|| v.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[allow(dead_code)]
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    enum Status {
        Active,
        Inactive,
    }

    #[allow(dead_code)]
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Form {
        /// User name
        name: String,
        age: Option<u32>,
        score: f64,
        verified: bool,
        status: Status,
        tags: Vec<Status>,
    }

    #[allow(dead_code)]
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Nested {
        inner: Form,
    }

    #[test]
    fn a_struct_of_primitives_is_a_flat_form() {
        let form = form_schema::<Form>().unwrap();
        let p = &form["properties"];
        assert_eq!(
            p["name"],
            json!({"type": "string", "description": "User name"})
        );
        assert_eq!(p["age"]["type"], "integer");
        assert_eq!(p["score"]["type"], "number");
        assert_eq!(p["verified"]["type"], "boolean");
        assert_eq!(
            p["status"],
            json!({"type": "string", "enum": ["Active", "Inactive"]})
        );
        assert_eq!(p["tags"]["items"]["enum"], json!(["Active", "Inactive"]));
        let required: Vec<&str> = form["required"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert!(required.contains(&"name") && !required.contains(&"age"));
    }

    #[test]
    fn what_the_spec_cannot_express_is_refused_before_sending() {
        let e = form_schema::<Nested>().unwrap_err();
        assert!(e.contains("field `inner`") && e.contains("flat"), "{e}");
        assert!(form_schema::<Vec<String>>()
            .unwrap_err()
            .contains("not a struct"));
    }
}
