//! Cross-crate tests live in `tests/`, the macros' trybuild cases in `ui/`.
//! The library holds only the macros' documentation, for its examples to
//! run as doc tests here: they use `oxmcp_server`, which depends on the
//! macros, and as the macros' own dev-dependency it would be built a second
//! time (a proc-macro crate's tests build for the host, with features
//! resolved apart), its whole tree with it.

/// The documentation of `#[tool]` (`mcp-macros/doc/tool.md`).
#[cfg(doctest)]
#[doc = include_str!("../mcp-macros/doc/tool.md")]
pub struct ToolMacro;
