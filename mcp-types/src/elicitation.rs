//! Elicitation: `elicitation/create`, which a server asks of the client to
//! get input from the user (a request in the legacy era, an input request in
//! the 2026-07-28 era).

use serde::{Deserialize, Serialize};

use crate::{JsonObject, Meta};

/// Parameters of `elicitation/create`: a form (`message` and a flat
/// `requestedSchema`) or, from 2025-11-25, a URL to open (`mode: "url"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitParams {
    /// `"form"` (the default when absent) or `"url"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// What to tell the user.
    pub message: String,
    /// Form mode: the restricted JSON Schema of the answer (an object of
    /// primitive properties).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_schema: Option<JsonObject>,
    /// URL mode: the URL to open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// URL mode: the id that the completion notification names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ElicitParams {
    /// A form: `message` and the schema of the answer.
    pub fn form(message: impl Into<String>, requested_schema: JsonObject) -> Self {
        ElicitParams {
            mode: None,
            message: message.into(),
            requested_schema: Some(requested_schema),
            url: None,
            elicitation_id: None,
            meta: None,
        }
    }
}

/// What the user did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// Submitted the form.
    Accept,
    /// Declined explicitly.
    Decline,
    /// Dismissed it without a choice.
    Cancel,
}

/// Result of `elicitation/create`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The answer (when accepted): primitive values by property name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<JsonObject>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn forms_and_answers_use_the_spec_shapes() {
        let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
        let p = ElicitParams::form("What is your name?", schema.as_object().unwrap().clone());
        assert_eq!(
            serde_json::to_value(&p).unwrap(),
            json!({"message": "What is your name?", "requestedSchema": schema})
        );
        let r: ElicitResult =
            serde_json::from_value(json!({"action": "accept", "content": {"name": "Ada"}}))
                .unwrap();
        assert_eq!(r.action, ElicitAction::Accept);
        let r: ElicitResult = serde_json::from_value(json!({"action": "decline"})).unwrap();
        assert!(r.content.is_none());
    }
}
