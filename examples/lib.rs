//! What the example programs share, as a library each of them uses
//! (`use mcp_examples::stderr_logs;`): the logging setup, reading the
//! command line, serving over HTTP until Ctrl-C, the calculator's toolbox,
//! running as several instances on Redis, and the conformance fixture's
//! task tools.
//!
//! The programs themselves are the `[[bin]]` targets beside this file.

// The programs name these modules `mcp_examples::...`, as any user of a
// library would; the two programs compiled into this library too
// (`middleware`, `tower_layers`) do the same from inside it.
extern crate self as mcp_examples;

pub mod calculator_tools;
pub mod command_line;
pub mod conformance_tasks;
pub mod serve;
pub mod several;
pub mod stderr_logs;

/// The `middleware` program, also a module here: the README's middleware
/// fragment names its `no_secrets` (`examples/tests/programs/readme.rs`
/// compiles it).
#[doc(hidden)]
#[allow(dead_code)] // its `main` runs only as the program
pub mod middleware;

/// The `tower_layers` program, also a module here: the README's tower
/// fragment names its `BearerAuth`.
#[doc(hidden)]
#[allow(dead_code)] // its `main` runs only as the program
pub mod tower_layers;

/// The `notes` program, also a module here: its toolbox is tested
/// in-process with oxmcp-testing (`examples/tests/programs/in_process.rs`).
#[doc(hidden)]
#[allow(dead_code)] // its `main` runs only as the program
pub mod notes;
