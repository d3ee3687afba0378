//! Asking the client from a tool, a prompt or a resource: sampling,
//! elicitation and roots, through [`Context`](crate::Context) (`ctx.sample`,
//! `ctx.elicit::<T>`, `ctx.roots`, keyed with `ctx.ask(key)`), the typed
//! forms ([`Elicited`], [`form_schema`]) and what can go wrong ([`AskError`]).
//!
//! Inside: `asker` (one request to the client in a legacy session, an input
//! round in 2026-07-28), `elicit` (the `Context` side and the forms),
//! `request_state` (the signed state of 2026-07-28 input rounds).

pub(crate) mod asker;
pub(crate) mod elicit;
pub(crate) mod request_state;

pub(crate) use asker::*;

pub use asker::AskError;
pub use elicit::{form_schema, Ask, Elicited};
