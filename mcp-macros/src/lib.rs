//! Procedural macros of the MCP framework: [`macro@tool`], [`macro@describe`]
//! and [`macro@param`].
//!
//! Use them through `oxmcp_server`, which re-exports them and provides the
//! runtime the generated code calls (`oxmcp_server::__private`).
//!
//! The pipeline: `ast` parses the item into a model and strips the helper
//! attributes, `check` validates the model, then `expand` emits the item with
//! the generated `ToolBox` impl and typed client (`client`), or `fallback`
//! emits the item with a stub impl (and a client with `unreachable!()`
//! bodies) beside every error collected by `ctxt`. A `#[tool]` trait goes
//! the same way, but only its client is emitted.
#![warn(missing_docs)]
// Token-stream code passes `TokenStream`s and syn nodes by value and builds
// long `quote!` blocks; these pedantic lints fight that style.
#![allow(clippy::needless_pass_by_value)]

mod ast;
mod attr;
mod check;
mod client;
mod ctxt;
mod expand;
mod fallback;
mod glue;
mod items;
mod param_rules;
mod standalone;
mod symbol;
mod tokens;

use proc_macro::TokenStream;

// The documentation is a file of its own: the `mcp-tests` crate compiles
// and runs its examples as doc tests (they use oxmcp-server, which depends
// on this crate; as dev-dependencies here they would build it and its
// whole tree a second time, for the host, just for these examples). Left
// out when rustdoc collects this crate's doc tests, which `cargo test
// --doc` does even with `doctest = false`.
#[cfg_attr(not(doctest), doc = include_str!("../doc/tool.md"))]
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::tool(args.into(), input.into()).into()
}

/// Describes a tool, for the model: `#[describe("Add two numbers")]`.
///
/// Only valid on a method of a `#[tool]` impl block or trait, or on a
/// `#[tool]` function, which consumes it (see [`macro@tool`]); it may come
/// before or after `#[tool]` on a function. Used anywhere else it is a
/// compile error that names the fix.
#[proc_macro_attribute]
pub fn describe(args: TokenStream, input: TokenStream) -> TokenStream {
    standalone::describe(args.into(), input.into()).into()
}

/// Describes a tool's parameter: `#[param(a, "The first number")]` above the
/// method, or `#[param("The first number")]` on the argument; both take an
/// optional `default = <expr>`, an optional `rename = "wireName"` (its
/// name in the schema and on the wire: `#[param("Preview only", rename =
/// "dryRun")] dry_run: bool`), and rules checked before the tool runs
/// (`min = 1, max = 16`, `min_length`, `max_length`, `pattern = "..."`,
/// `one_of(...)`; see [`macro@tool`]).
///
/// Only valid inside a `#[tool]` item (see [`macro@tool`]); used anywhere
/// else it is a compile error that names the fix.
#[proc_macro_attribute]
pub fn param(args: TokenStream, input: TokenStream) -> TokenStream {
    standalone::param(args.into(), input.into()).into()
}

/// Makes a method of a `#[tool]` impl block a prompt (see [`macro@tool`]);
/// anywhere else it is a compile error that names the fix.
#[proc_macro_attribute]
pub fn prompt(args: TokenStream, input: TokenStream) -> TokenStream {
    standalone::kind_outside("prompt", args.into(), input.into()).into()
}

/// Makes a method of a `#[tool]` impl block a resource or a resource
/// template (see [`macro@tool`]); anywhere else it is a compile error.
#[proc_macro_attribute]
pub fn resource(args: TokenStream, input: TokenStream) -> TokenStream {
    standalone::kind_outside("resource", args.into(), input.into()).into()
}

/// Makes a method of a `#[tool]` impl block the completion function of a
/// prompt's argument or a template's variable (see [`macro@tool`]);
/// anywhere else it is a compile error.
#[proc_macro_attribute]
pub fn complete(args: TokenStream, input: TokenStream) -> TokenStream {
    standalone::kind_outside("complete", args.into(), input.into()).into()
}
