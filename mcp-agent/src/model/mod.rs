//! Chat models over HTTPS: OpenAI-compatible Chat Completions and Anthropic
//! Messages, JSON and streaming (SSE).

pub mod anthropic;
pub mod openai;

pub use anthropic::Anthropic;
pub use openai::OpenAiChat;
