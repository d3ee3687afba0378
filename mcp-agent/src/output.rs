//! What a typed run asks of the model and how its answer is checked: the
//! type's JSON Schema (schemars) as the provider's structured-output format,
//! the answer validated against it and deserialized, and the message that
//! asks again when it does not fit. The run itself is in `crate::typed`.

use std::fmt;
use std::sync::Arc;

use oxmcp_wire::schema::Validator;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::chat::OutputFormat;

/// Checks an answer's text: the JSON value it holds, valid under the schema
/// and deserializable into the run's type, or the problem for the model.
pub(crate) type Check = Arc<dyn Fn(&str) -> Result<Value, String> + Send + Sync>;

/// What a typed run asks of the model, and how its answer is checked.
#[derive(Clone)]
pub(crate) struct OutputSpec {
    pub(crate) format: OutputFormat,
    pub(crate) check: Check,
}

impl fmt::Debug for OutputSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OutputSpec")
            .field("name", &self.format.name)
            .finish_non_exhaustive()
    }
}

impl OutputSpec {
    pub(crate) fn of<T: DeserializeOwned + schemars::JsonSchema>() -> OutputSpec {
        let schema = serde_json::to_value(schemars::schema_for!(T)).unwrap_or(Value::Null);
        let strict_schema = crate::strict::to_strict(&schema).ok();
        let validator = Validator::new(&schema).ok().map(Arc::new);
        let name = format_name(&T::schema_name());
        let checked = schema.clone();
        let check: Check = Arc::new(move |text: &str| {
            let raw = unfenced(text);
            let value: Value =
                serde_json::from_str(raw).map_err(|e| format!("the answer is not JSON ({e})"))?;
            let value = crate::strict::from_strict(&checked, value);
            if let Some(problems) = validator.as_ref().and_then(|v| v.problems(&value)) {
                return Err(problems);
            }
            serde_json::from_value::<T>(value.clone()).map_err(|e| e.to_string())?;
            Ok(value)
        });
        OutputSpec {
            format: OutputFormat {
                name,
                schema,
                strict_schema,
            },
            check,
        }
    }
}

/// A name OpenAI takes (`^[a-zA-Z0-9_-]{1,64}$`) from a schema's name.
fn format_name(schema_name: &str) -> String {
    let name: String = schema_name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if name.is_empty() {
        "output".to_owned()
    } else {
        name
    }
}

/// The JSON inside a Markdown code fence, when a model wrapped it in one.
fn unfenced(text: &str) -> &str {
    let text = text.trim();
    let Some(inner) = text.strip_prefix("```") else {
        return text;
    };
    let inner = inner.strip_suffix("```").unwrap_or(inner);
    // Past the fence's language tag (`json`), if any.
    inner
        .split_once('\n')
        .map_or(inner, |(_, body)| body)
        .trim()
}

/// The message that asks for another answer, naming what was wrong.
pub(crate) fn retry_prompt(problem: &str) -> String {
    format!(
        "Your answer does not match the required JSON schema: {problem}. \
         Answer again with only the JSON value, matching the schema."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_fences() {
        assert_eq!(format_name("Forecast"), "Forecast");
        assert_eq!(format_name("Vec<my::Thing>"), "Vec_my__Thing_");
        assert_eq!(format_name(""), "output");
        assert_eq!(unfenced("```json\n{\"a\": 1}\n```"), "{\"a\": 1}");
        assert_eq!(unfenced("  {\"a\": 1} "), "{\"a\": 1}");
    }

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Forecast {
        city: String,
        celsius: f64,
        note: Option<String>,
    }

    #[test]
    fn the_check_validates_and_maps_the_strict_form_back() {
        let spec = OutputSpec::of::<Forecast>();
        assert_eq!(spec.format.name, "Forecast");
        assert!(spec.format.strict_schema.is_some());
        let ok = (spec.check)(r#"{"city": "Lyon", "celsius": 21.5, "note": null}"#).unwrap();
        assert_eq!(
            ok,
            serde_json::json!({"city": "Lyon", "celsius": 21.5, "note": null})
        );
        let problem = (spec.check)(r#"{"city": "Lyon"}"#).unwrap_err();
        assert!(problem.contains("celsius"), "{problem}");
        assert!((spec.check)("sunny").unwrap_err().contains("not JSON"));
    }
}
