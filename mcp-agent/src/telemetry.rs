//! The spans of a run (the `otel` feature): the crate's documentation lists
//! them, their attributes and their `error.type`s. The loop calls these
//! functions, each of which runs a part of it inside its span and records
//! how it ended. `tracing-opentelemetry` maps the `otel.name`, `otel.kind`
//! and `otel.status_*` fields to the span's name, kind and status.
//!
//! What the model sends (a tool's name, a call's id, its own name and the
//! answer's id, why it stopped) is recorded at most 256 bytes long
//! ([`oxmcp_otel::instrumentation::cap`]), span names too: a model can be led to write
//! anything, at any length, and spans reach every backend.

use std::borrow::Cow;
use std::future::Future;

use oxmcp_otel::conventions as cv;
use oxmcp_otel::instrumentation::{cap, span_name};
use oxmcp_otel::reexport::opentelemetry::{Array, StringValue, Value};
use oxmcp_otel::reexport::tracing_opentelemetry::OpenTelemetrySpanExt as _;
use oxmcp_types::error::Chain;
use tracing::field::Empty;
use tracing::instrument::Instrumented;
use tracing::{Instrument as _, Span};

use crate::agent::Agent;
use crate::catalog::SetTool;
use crate::chat::{ChatResponse, ModelError, ToolCall, Usage};
use crate::outcome::{CallRecord, Outcome, RunError, Stop};
use crate::view::ToolView;

/// Not yet in `oxmcp_otel::conventions`: input tokens read from the
/// provider's prompt cache.
const GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS: &str = "gen_ai.usage.cache_read.input_tokens";

/// Runs a whole run in its `invoke_agent` span, then records how it ended.
pub(crate) async fn run(
    agent: &Agent,
    run: impl Future<Output = Result<Outcome, RunError>>,
) -> Result<Outcome, RunError> {
    let name = agent.name();
    let span = tracing::info_span!(
        target: "oxmcp_agent",
        "invoke_agent",
        otel.name = span_name("invoke_agent", name).as_str(),
        otel.kind = "internal",
        otel.status_code = Empty,
        otel.status_description = Empty,
        gen_ai.operation.name = "invoke_agent",
        gen_ai.provider.name = agent.model.provider(),
        gen_ai.agent.name = name,
        gen_ai.request.model = agent.model.model(),
        gen_ai.request.max_tokens = agent.config.max_tokens.map(i64::from),
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
        gen_ai.usage.cache_read.input_tokens = Empty,
        error.type = Empty,
    );
    let result = run.instrument(span.clone()).await;
    if span.is_disabled() {
        return result;
    }
    match &result {
        Ok(outcome) => record_usage(&span, outcome.usage),
        Err(error) => {
            if let Some(outcome) = error.outcome() {
                record_usage(&span, outcome.usage);
            }
            let kind = match error {
                RunError::Model { error, .. } => model_error_type(error),
                RunError::MaxTurns { .. } => Cow::Borrowed("max_turns"),
                RunError::ToolFailed { .. } => Cow::Borrowed(cv::TOOL_ERROR),
                RunError::ToolSet(_) => Cow::Borrowed("tool_set"),
                RunError::Cancelled { .. } => Cow::Borrowed("cancelled"),
                RunError::Resume { .. } => Cow::Borrowed("resume"),
                RunError::Output { .. } => Cow::Borrowed("output_invalid"),
            };
            record_failure(&span, &kind, &Chain(error).to_string());
        }
    }
    result
}

/// Runs one turn in its `turn` span.
pub(crate) fn turn<F: Future>(turn: usize, step: F) -> Instrumented<F> {
    step.instrument(tracing::info_span!(
        target: "oxmcp_agent",
        "turn",
        oxmcp_agent.turn = int(turn),
    ))
}

/// Runs one model request in its `chat` span, then records the answer: the
/// model that gave it, why it stopped, the tokens it took; or the failure.
pub(crate) async fn chat(
    agent: &Agent,
    ask: impl Future<Output = Result<ChatResponse, ModelError>>,
) -> Result<ChatResponse, ModelError> {
    let model = agent.model.model();
    let span = tracing::info_span!(
        target: "oxmcp_agent",
        "chat",
        otel.name = span_name("chat", model).as_str(),
        otel.kind = "client",
        otel.status_code = Empty,
        otel.status_description = Empty,
        gen_ai.operation.name = "chat",
        gen_ai.provider.name = agent.model.provider(),
        gen_ai.request.model = model,
        gen_ai.request.max_tokens = agent.config.max_tokens.map(i64::from),
        gen_ai.response.model = Empty,
        gen_ai.response.id = Empty,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
        gen_ai.usage.cache_read.input_tokens = Empty,
        error.type = Empty,
    );
    let result = ask.instrument(span.clone()).await;
    if span.is_disabled() {
        return result;
    }
    match &result {
        Ok(response) => {
            span.record(
                cv::GEN_AI_RESPONSE_MODEL,
                response.model.as_deref().map(cap),
            );
            span.record(cv::GEN_AI_RESPONSE_ID, response.id.as_deref().map(cap));
            record_usage(&span, response.usage);
            if let Some(reason) = &response.stop_reason {
                // A string array, which `tracing` fields cannot carry.
                let reasons = Array::String(vec![StringValue::from(cap(reason).to_owned())]);
                span.set_attribute(cv::GEN_AI_RESPONSE_FINISH_REASONS, Value::Array(reasons));
            }
        }
        Err(error) => record_failure(&span, &model_error_type(error), &error.to_string()),
    }
    result
}

/// Runs one tool call (all its attempts) in its `execute_tool` span, then
/// records whether the model was told it failed, and why.
pub(crate) async fn tool(
    view: &ToolView,
    call: &ToolCall,
    execute: impl Future<Output = Result<CallRecord, Stop>>,
) -> Result<CallRecord, Stop> {
    // The name in the set; the model's own for a tool the set does not have.
    let name = cap(view
        .resolve(&call.name)
        .map_or(call.name.as_str(), SetTool::name));
    let span = tracing::info_span!(
        target: "oxmcp_agent",
        "execute_tool",
        otel.name = span_name("execute_tool", Some(name)).as_str(),
        otel.kind = "internal",
        otel.status_code = Empty,
        otel.status_description = Empty,
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = name,
        gen_ai.tool.call.id = cap(&call.id),
        error.type = Empty,
    );
    let result = execute.instrument(span.clone()).await;
    match &result {
        Ok(record) if record.is_error => {
            let kind = if record.tool.is_none() {
                "unknown_tool"
            } else if record.attempts == 0 {
                "invalid_arguments"
            } else {
                cv::TOOL_ERROR
            };
            record_failure(&span, kind, &record.reply);
        }
        Err(Stop::ToolFailed { message, .. }) => record_failure(&span, cv::TOOL_ERROR, message),
        // A call stops the run only when its tool fails (above).
        Ok(_) | Err(_) => {}
    }
    result
}

/// The `error.type` of a failed model request.
fn model_error_type(error: &ModelError) -> Cow<'static, str> {
    match error {
        ModelError::Status { status, .. } => Cow::Owned(status.to_string()),
        ModelError::Transport { .. } => Cow::Borrowed("transport"),
        ModelError::Malformed { .. } => Cow::Borrowed("malformed_response"),
        ModelError::Config { .. } => Cow::Borrowed("config"),
    }
}

fn record_usage(span: &Span, usage: Usage) {
    span.record(cv::GEN_AI_USAGE_INPUT_TOKENS, int(usage.input_tokens));
    span.record(cv::GEN_AI_USAGE_OUTPUT_TOKENS, int(usage.output_tokens));
    if usage.cached_input_tokens > 0 {
        span.record(
            GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
            int(usage.cached_input_tokens),
        );
    }
}

/// A count as an `i64`, the integer `tracing-opentelemetry` makes an int
/// attribute of (it records unsigned values as strings).
fn int(n: impl TryInto<i64>) -> i64 {
    n.try_into().unwrap_or(i64::MAX)
}

fn record_failure(span: &Span, kind: &str, message: &str) {
    let (kind, message) = (cap(kind), cap(message));
    span.record(cv::ERROR_TYPE, kind);
    span.record("otel.status_code", "error");
    span.record("otel.status_description", message);
}
