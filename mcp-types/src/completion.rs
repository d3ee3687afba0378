//! Argument completion: `completion/complete`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::base::ResultType;
use crate::Meta;

/// What is being completed: a prompt's argument or a resource template's variable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type")]
#[non_exhaustive]
pub enum CompletionRef {
    /// `ref/prompt`: an argument of this prompt.
    #[serde(rename = "ref/prompt")]
    Prompt {
        /// The prompt's name.
        name: String,
        /// Its display name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
    },
    /// `ref/resource`: a variable of this resource template.
    #[serde(rename = "ref/resource")]
    Resource {
        /// The template (`uriTemplate`), or a URI.
        uri: String,
    },
}

/// The argument being completed and what has been typed so far.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompletionArgument {
    /// The argument's (or template variable's) name.
    pub name: String,
    /// The value typed so far.
    pub value: String,
}

/// Arguments already filled in (2025-06-18+).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompletionContext {
    /// Values of the other arguments, by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
}

/// Parameters of `completion/complete`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompleteParams {
    /// What is completed.
    #[serde(rename = "ref")]
    pub reference: CompletionRef,
    /// Which argument, and its value so far.
    pub argument: CompletionArgument,
    /// Arguments already resolved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<CompletionContext>,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Suggested values.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// At most 100 values.
    pub values: Vec<String>,
    /// How many values there are in all, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether there are more values than these.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}

/// The most values one `completion/complete` result may carry.
pub const MAX_COMPLETION_VALUES: usize = 100;

impl Completion {
    /// The first 100 of `values`, with `total` and `hasMore` set from all of them.
    pub fn from_values(mut values: Vec<String>) -> Self {
        let total = values.len();
        values.truncate(MAX_COMPLETION_VALUES);
        Completion {
            has_more: Some(total > values.len()),
            total: Some(total as u64),
            values,
        }
    }
}

/// Result of `completion/complete`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompleteResult {
    /// The suggestions.
    pub completion: Completion,
    /// 2026-07-28: `complete`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn params_read_both_kinds_of_reference() {
        let p: CompleteParams = serde_json::from_value(json!({
            "ref": {"type": "ref/prompt", "name": "greet"},
            "argument": {"name": "style", "value": "fo"},
            "context": {"arguments": {"name": "Ada"}}
        }))
        .unwrap();
        assert_eq!(
            p.reference,
            CompletionRef::Prompt {
                name: "greet".into(),
                title: None
            }
        );
        let p: CompleteParams = serde_json::from_value(json!({
            "ref": {"type": "ref/resource", "uri": "notes://{id}"},
            "argument": {"name": "id", "value": "1"}
        }))
        .unwrap();
        assert_eq!(
            p.reference,
            CompletionRef::Resource {
                uri: "notes://{id}".into()
            }
        );
    }

    #[test]
    fn at_most_a_hundred_values() {
        let c = Completion::from_values((0..150).map(|i| i.to_string()).collect());
        assert_eq!(c.values.len(), 100);
        assert_eq!((c.total, c.has_more), (Some(150), Some(true)));
        assert_eq!(
            serde_json::to_value(Completion::from_values(vec![])).unwrap(),
            json!({"values": [], "total": 0, "hasMore": false})
        );
    }
}
