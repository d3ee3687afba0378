//! Typed output: a run whose answer must be a value of a Rust type. The
//! type's JSON Schema (schemars) goes to the model through the provider's
//! structured-output mode; the answer is validated against it and
//! deserialized; an answer that does not fit gets one retry, with the
//! problem, before the run fails.

use std::fmt;
use std::future::{Future, IntoFuture};
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;

use mcp_wire::schema::Validator;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::agent::Run;
use crate::chat::OutputFormat;
use crate::outcome::{Outcome, RunError};

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

/// A typed run's answer: the value, and the run that produced it.
#[derive(Debug, Clone)]
pub struct Typed<T> {
    /// The answer, validated against `T`'s schema and deserialized.
    pub value: T,
    /// The run (its transcript holds the answer as JSON text).
    pub outcome: Outcome,
}

/// A run whose answer is a `T` ([`Run::output`]); `.await` it.
#[must_use = "a run does nothing until it is awaited"]
pub struct TypedRun<'a, T> {
    run: Run<'a>,
    _type: PhantomData<fn() -> T>,
}

impl<T> fmt::Debug for TypedRun<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TypedRun")
            .field("run", &self.run)
            .field("type", &std::any::type_name::<T>())
            .finish()
    }
}

impl<'a> Run<'a> {
    /// Makes the run's answer a value of `T`: `T`'s JSON Schema goes to the
    /// model as the provider's structured-output format (OpenAI's
    /// `response_format` / `text.format`, strict when the schema allows;
    /// Anthropic's `output_config.format`), the final answer is validated
    /// against it and deserialized. An answer that does not fit is sent
    /// back once with the problem; a second one ends the run with
    /// [`RunError::Output`]. A run that pauses on pending calls ends with
    /// [`RunError::Paused`]: resume it with `.output::<T>()` again.
    ///
    /// ```no_run
    /// # async fn example(agent: &mcp_agent::Agent) -> Result<(), Box<dyn std::error::Error>> {
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Forecast {
    ///     city: String,
    ///     celsius: f64,
    /// }
    ///
    /// let forecast = agent.run("Tomorrow in Lyon?").output::<Forecast>().await?.value;
    /// println!("{}: {} °C", forecast.city, forecast.celsius);
    /// # Ok(())
    /// # }
    /// ```
    pub fn output<T: DeserializeOwned + schemars::JsonSchema>(mut self) -> TypedRun<'a, T> {
        self.output = Some(OutputSpec::of::<T>());
        TypedRun {
            run: self,
            _type: PhantomData,
        }
    }
}

impl<'a, T: DeserializeOwned + Send + 'a> IntoFuture for TypedRun<'a, T> {
    type Output = Result<Typed<T>, RunError>;
    type IntoFuture = Pin<Box<dyn Future<Output = Self::Output> + Send + 'a>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move {
            let outcome = self.run.await?;
            if outcome.is_paused() {
                return Err(RunError::Paused {
                    outcome: Box::new(outcome),
                });
            }
            let value = outcome.output.clone().unwrap_or(Value::Null);
            match serde_json::from_value(value) {
                Ok(value) => Ok(Typed { value, outcome }),
                // The loop checked it; kept for a run that somehow skipped the check.
                Err(e) => Err(RunError::Output {
                    problem: e.to_string(),
                    outcome: Box::new(outcome),
                }),
            }
        })
    }
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
