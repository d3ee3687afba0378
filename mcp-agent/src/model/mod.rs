//! Chat models over HTTP(S): OpenAI-compatible Chat Completions
//! ([`OpenAiChat`]), the OpenAI Responses API ([`OpenAiResponses`]) and
//! Anthropic Messages ([`Anthropic`]), JSON and streaming (SSE), and the
//! providers' tool formats.
//!
//! All share one HTTP stack (hyper with rustls, the MCP client's), the same
//! retry rule and the same limits:
//!
//! - a rate limit (429) or an overload (503, Anthropic's 529) is retried up
//!   to [`max_retries`](OpenAiChat::max_retries) times (default 3), after
//!   the wait the provider asked for (`retry-after-ms`, `Retry-After` in
//!   seconds or as an HTTP date) or else an exponential backoff from 500 ms;
//!   a wait beyond [`max_retry_wait`](OpenAiChat::max_retry_wait) (default
//!   60 s) gives up at once. Other failures are not retried.
//! - a request may take [`timeout`](OpenAiChat::timeout) (default 10
//!   minutes) from sending to the last byte, retries included, and its
//!   answer may go [`idle_timeout`](OpenAiChat::idle_timeout) (default 5
//!   minutes) without data;
//! - an answer (a JSON body, or a whole event stream) may be 32 MiB.
//!
//! Errors are [`ModelError`](crate::chat::ModelError)s: `Status` with the
//! provider's `error.message` for an HTTP error (or an error object sent
//! instead of an answer, or the error of a `failed` response: its `code` or
//! `type` gives the status, e.g. 529 for Anthropic's `overloaded_error`
//! mid-stream, 429 for `rate_limit_exceeded`), `Transport` for a failed
//! connection or read, `Malformed` for an answer without its documented
//! shape (including a stream cut before its end), `Config` for a missing
//! setting.

mod anthropic_stream;
mod exchange;
mod http;
mod openai_responses;
mod openai_responses_stream;
mod openai_stream;
mod retry;

pub mod anthropic;
pub mod openai;

pub use anthropic::Anthropic;
pub use openai::{MaxTokensField, OpenAiChat};
pub use openai_responses::OpenAiResponses;
