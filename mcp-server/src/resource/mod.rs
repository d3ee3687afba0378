//! Resources and resource templates: what a `#[resource(...)]` method
//! becomes at run time ([`ResourceEntry`], [`TemplateEntry`], or built at
//! run time with their `dynamic`), what a read receives ([`Reading`]) and
//! what it may return ([`IntoReadResult`]).

pub(crate) mod entry;

pub(crate) use entry::*;

pub use entry::{IntoReadResult, Reading, ResourceEntry, TemplateEntry};
