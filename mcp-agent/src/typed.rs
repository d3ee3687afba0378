//! Typed output: a run whose answer must be a value of a Rust type
//! ([`Run::output`](crate::Run::output)). It ends as a plain run does, in a
//! [`Finish`], whose answer is the value.

use std::fmt;
use std::future::{Future, IntoFuture};
use std::marker::PhantomData;
use std::pin::Pin;

// What the model is asked and how its answer is checked is in `crate::output`.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::agent::Run;
use crate::outcome::{Finish, RunError};
use crate::output::OutputSpec;
use crate::pause::PausedRun;

/// A run whose answer is a `T` ([`Run::output`]); `.await` it for a
/// [`Finish<T>`].
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
    /// [`RunError::Output`]. A run that pauses on pending calls ends in
    /// [`Finish::Paused`], as a plain run does: resume it with
    /// `.output::<T>()` again.
    ///
    /// ```no_run
    /// # async fn example(agent: &oxmcp_agent::Agent) -> Result<(), Box<dyn std::error::Error>> {
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Forecast {
    ///     city: String,
    ///     celsius: f64,
    /// }
    ///
    /// use oxmcp_agent::Finish;
    ///
    /// match agent.run("Tomorrow in Lyon?").output::<Forecast>().await? {
    ///     Finish::Done { output: forecast, .. } => {
    ///         println!("{}: {} °C", forecast.city, forecast.celsius);
    ///     }
    ///     Finish::Paused(paused) => println!("waiting for {:?}", paused.pending()),
    /// }
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
    type Output = Result<Finish<T>, RunError>;
    type IntoFuture = Pin<Box<dyn Future<Output = Self::Output> + Send + 'a>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move {
            let outcome = crate::run::outcome(self.run).await?;
            if outcome.paused.is_some() {
                return Ok(Finish::Paused(PausedRun(outcome)));
            }
            let value = outcome.output.clone().unwrap_or(Value::Null);
            match serde_json::from_value(value) {
                Ok(output) => Ok(Finish::Done { output, outcome }),
                // The loop checked it; kept for a run that somehow skipped the check.
                Err(e) => Err(RunError::Output {
                    problem: e.to_string(),
                    outcome: Box::new(outcome),
                }),
            }
        })
    }
}
