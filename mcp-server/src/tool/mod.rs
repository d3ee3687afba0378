//! Tools: what a `#[tool]` method becomes at run time ([`crate::ToolEntry`],
//! built by the macro, or at run time with [`crate::ToolEntry::dynamic`]),
//! what a toolbox hands the server ([`Items`]), and whether a call may run
//! as a task ([`TaskSupport`]); and a call as a tower service
//! ([`ToolService`], [`ToolRequest`]) for the layers around it.
//!
//! Inside: `entry` (the tool and the traits that turn return values into
//! results), `args` (decoding a call's arguments), `schema` (the JSON
//! Schemas of arguments and results), `dynamic` (tools made at run time), `rules` (the `#[param]` rules: what
//! a parameter accepts, checked before the call, and the words a refusal uses),
//! `bounds` (what a bound may apply to, checked when the code compiles);
//! [`search`] (tool search: the pinned tools and a search tool listed, the
//! rest found by a ranked search).

pub(crate) mod args;
pub(crate) mod bounds;
pub(crate) mod cap;
pub(crate) mod dynamic;
pub(crate) mod entry;
pub(crate) mod rules;
pub(crate) mod schema;
pub mod search;
pub(crate) mod service;

pub(crate) use args::*;
pub(crate) use entry::*;
pub(crate) use schema::*;

pub use cap::{fit_to_cap, ANTHROPIC_MAX_RESULT_SIZE, DEFAULT_MAX_RESULT_CHARS, MAX_RESULT_CHARS};
pub use entry::Items;
pub use service::{ToolRequest, ToolService};

/// Whether a tool may run as a task (SEP-2663).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskSupport {
    /// Never: the call is answered in the request (the default).
    #[default]
    Never,
    /// When the client declared the tasks extension: a call that has to
    /// wait is answered with a task handle.
    Optional,
    /// Always: a client without the tasks extension is refused with -32021.
    Required,
}
