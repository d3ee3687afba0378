//! Prompts: what a `#[prompt]` method becomes at run time ([`PromptEntry`],
//! or built at run time with [`PromptEntry::dynamic`]), what it may return
//! ([`IntoPromptResult`]), and the string arguments prompts and resource
//! templates take ([`StringArgs`], parsed with [`FromArgument`]).
//!
//! Inside: `entry` (the prompt and its result conversion), `args` (string
//! arguments).

pub(crate) mod args;
pub(crate) mod entry;

pub use args::{FromArgument, StringArgs};
pub use entry::{IntoPromptResult, PromptEntry};
