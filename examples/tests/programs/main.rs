//! The examples run as users run them: one test binary, a module per
//! program (or concern), each starting the example binaries it drives as
//! child processes. Nothing here changes process-wide state, so the modules
//! share a binary (one to build and link instead of nine).
//!
//! The modules are `pub`, as each file's items were at the root of a binary
//! of its own: the lints see the same reachable items as before.

pub mod agent_example;
pub mod examples_run;
pub mod features;
pub mod fetch;
pub mod files;
pub mod in_process;
pub mod killed;
pub mod readme;
pub mod several_notes;
pub mod shell;
pub mod stdio_burst;
pub mod stdout_guard;
#[cfg(unix)] // signals
pub mod stopping;
