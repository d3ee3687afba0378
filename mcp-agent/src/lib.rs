//! The agent side of MCP: tool sets that merge local toolboxes and MCP
//! servers, the providers' tool formats, and the model ↔ tool loop.
//!
//! ```no_run
//! use oxmcp_agent::model::OpenAiChat;
//! use oxmcp_agent::{Agent, Event, Source, ToolSet};
//! use oxmcp_server::tool;
//!
//! pub struct Clock;
//!
//! #[tool(description = "Time keeping")]
//! impl Clock {
//!     #[describe("The current Unix time in seconds")]
//!     pub fn now(&self) -> u64 {
//!         std::time::SystemTime::now()
//!             .duration_since(std::time::UNIX_EPOCH)
//!             .map_or(0, |d| d.as_secs())
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // A server over stdio: its tools join the set next to the local ones.
//! let weather = oxmcp_client::Client::builder()
//!     .connect_stdio(tokio::process::Command::new("./weather-server"))
//!     .await?;
//! let tools = ToolSet::builder()
//!     .toolbox(Clock)
//!     .attach(Source::server(weather).prefix("wx_").block(["admin_reset"]))
//!     .build()
//!     .await?;
//!
//! // OPENAI_API_KEY, OPENAI_MODEL, and OPENAI_BASE_URL for a local server.
//! let model = OpenAiChat::from_env()?;
//! let agent = Agent::builder(model, tools).max_turns(8).build();
//! let finish = agent
//!     .run("Will it rain in Lyon tomorrow?")
//!     .on_event(|event| {
//!         if let Event::Text(text) = event {
//!             print!("{text}");
//!         }
//!     })
//!     .await?;
//! let outcome = finish.outcome();
//! println!("\n{} turns, {} tool calls", outcome.turns, outcome.tool_calls.len());
//! # Ok(())
//! # }
//! ```
//!
//! # Tool sets
//!
//! A [`ToolSet`] holds tools from [`Source`]s: local toolboxes (a `#[tool]`
//! impl block or free function, or [`ToolEntry::dynamic`](oxmcp_server::ToolEntry::dynamic)
//! tools), called in-process, and connected MCP servers (any
//! [`oxmcp_client::Client`]: stdio, Streamable HTTP, HTTP+SSE, either era).
//! Every source takes the same options: a name [`prefix`](Source::prefix),
//! an [`allow`](Source::allow) list and a [`block`](Source::block) list.
//! Names are unique: two sources offering one name is
//! [`ToolSetError::Collision`], naming both, unless a prefix separates them.
//! A server's `notifications/tools/list_changed` (or, in the 2026-07-28 era,
//! a change on its `subscriptions/listen` stream) makes the next turn offer
//! its new tools.
//!
//! A run sees a [`ToolView`] of the set: [`Run::with_tools`] adds tools for
//! that run (replacing set tools of the same name), [`Run::without_tools`]
//! offers none, [`Run::allowed_tools`] restricts it; none of them changes the
//! set.
//!
//! # Provider formats
//!
//! [`ToolView::openai_chat_tools`], [`ToolView::openai_responses_tools`] and
//! [`ToolView::anthropic_tools`] export the tools as each API takes them.
//! Names are mapped to the providers' `^[a-zA-Z0-9_-]{1,64}$` reversibly
//! ([`names::NameMap`]): a name that already fits is kept. OpenAI's strict
//! mode gets each tool's [`strict`] form (every property required, optional
//! ones nullable, `additionalProperties: false`, local `$ref`s inlined); a
//! schema that cannot be made strict is sent non-strict and listed in
//! [`ToolSet::diagnostics`].
//!
//! # The loop
//!
//! [`Agent::run`] sends the conversation and the run's tools to the
//! [`ChatModel`](chat::ChatModel) each turn. The model's tool calls of one turn run
//! concurrently; their results go back in call order, each with its call id.
//! Arguments are parsed, mapped back from the strict form, and validated
//! against the tool's input schema before the tool runs: an unknown tool,
//! unparsable JSON or invalid arguments go back to the model as an error
//! result naming the problem. A tool's own failure follows its
//! [`ErrorPolicy`]: report it to the model (the default), retry, or fail the
//! run. [`ToolChoice`](chat::ToolChoice) applies to the first turn and then falls back to auto
//! ([`AgentBuilder::keep_tool_choice`] keeps it). Past
//! [`max_turns`](AgentBuilder::max_turns) (default 10) the run ends with
//! [`RunError::MaxTurns`], carrying the transcript. Dropping the run, or
//! cancelling its [`CancellationToken`], cancels the calls in flight, on
//! their servers too. A run ends in a [`Finish`]: done, with its answer
//! (the final text, or a [`typed`] run's value) and the [`Outcome`]
//! (the transcript, every call with its result and duration, and the token
//! usage), or paused on calls the caller runs or approves ([`pause`],
//! [`approval`]), to resume later. [`Event`]s report progress as the run goes.
//!
//! # Models
//!
//! [`model::OpenAiChat`] speaks OpenAI-compatible Chat Completions (OpenAI,
//! llama.cpp's server, vLLM, Ollama's `/v1`), [`model::OpenAiResponses`]
//! OpenAI's Responses API (optionally continuing each conversation from its
//! previous response, [`previous_response_id`](model::OpenAiResponses::previous_response_id),
//! instead of sending the whole transcript every turn), [`model::Anthropic`]
//! the Messages API; all stream (SSE) or not, retry rate limits within a
//! bound and report errors naming the provider, the status and its message.
//!
//! # Telemetry
//!
//! With the `otel` feature, runs are traced by the OpenTelemetry [GenAI
//! semantic conventions]. The spans are `tracing` spans of target
//! `oxmcp_agent` at INFO, which the layer of
//! [`oxmcp_otel::Telemetry`](https://docs.rs/oxmcp-otel) carries to
//! OpenTelemetry; without the feature none of this is compiled.
//!
//! | span | kind | attributes |
//! |---|---|---|
//! | `invoke_agent {gen_ai.agent.name}` ([`AgentBuilder::name`]; `invoke_agent` without one): the run | INTERNAL | `gen_ai.operation.name`, `gen_ai.provider.name`, `gen_ai.agent.name`, `gen_ai.request.model`, `gen_ai.request.max_tokens`, `gen_ai.usage.input_tokens`, `gen_ai.usage.output_tokens`, `gen_ai.usage.cache_read.input_tokens` (the run's totals) |
//! | `turn`: one model request and the tool calls it makes | INTERNAL | `oxmcp_agent.turn` (1-based) |
//! | `chat {gen_ai.request.model}` ([`ChatModel::model`](chat::ChatModel::model); `chat` without one) | CLIENT | `gen_ai.operation.name`, `gen_ai.provider.name`, `gen_ai.request.model`, `gen_ai.request.max_tokens`, `gen_ai.response.model`, `gen_ai.response.id`, `gen_ai.response.finish_reasons`, `gen_ai.usage.input_tokens`, `gen_ai.usage.output_tokens`, `gen_ai.usage.cache_read.input_tokens` |
//! | `execute_tool {gen_ai.tool.name}` | INTERNAL | `gen_ai.operation.name`, `gen_ai.tool.name`, `gen_ai.tool.call.id` |
//!
//! Each span is the child of the one above it; the run's span is the child
//! of the span current where the run is awaited. A `chat` span covers the
//! whole answer (every retry, all of a stream), and the HTTP request to the
//! provider carries its context (`traceparent`). An `execute_tool` span
//! covers every attempt of the call, which runs inside it: an MCP server's
//! span of the call continues the same trace.
//!
//! A failure sets the span's status to ERROR, with the error's message as
//! its description, and `error.type` to one of:
//!
//! | span | `error.type` |
//! |---|---|
//! | `chat` | the HTTP status of a [`ModelError::Status`](chat::ModelError::Status) (`429`), `transport`, `malformed_response`, `config` |
//! | `execute_tool` | `tool_error` (the tool failed), `unknown_tool`, `invalid_arguments` (the model's mistakes) |
//! | `invoke_agent` | the `chat`'s when the model failed, `tool_error` (a tool whose policy is [`ErrorPolicy::Fail`]), `max_turns`, `tool_set`, `cancelled` |
//!
//! [GenAI semantic conventions]: https://opentelemetry.io/docs/specs/semconv/gen-ai/
#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod agent;
pub mod approval;
mod call;
mod catalog;
pub mod chat;
mod lifecycle;
pub mod model;
pub mod names;
mod outcome;
mod output;
pub mod pause;
mod run;
pub mod strict;
#[cfg(feature = "otel")]
mod telemetry;
mod toolset;
pub mod typed;
mod view;

pub use agent::{Agent, AgentBuilder, ErrorPolicy, Run};
pub use call::ToolCallError;
pub use catalog::{Diagnostic, ToolSetError};
pub use outcome::{CallRecord, Event, Finish, Outcome, RunError};
pub use toolset::{Source, ToolSet, ToolSetBuilder};
pub use view::ToolView;

/// Cancels a run from outside (see [`Run::cancel_on`]).
pub use tokio_util::sync::CancellationToken;
