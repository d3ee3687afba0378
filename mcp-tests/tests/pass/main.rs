//! What the macros must accept: each module is one case (a toolbox, a
//! declared client, a prompt...) whose `main` checks what the expansion
//! produced. The cases that must not compile are trybuild's (`tests/ui.rs`).
//!
//! One program, built as a user's is: without the test harness
//! (`harness = false`), because rustc checks `missing_docs` only outside
//! one, and several cases deny it to show that the generated items carry
//! their docs. Every module is `pub`, as each case's items were at the root
//! of a crate of its own, so the lints see the same reachable items.
#![deny(warnings)]
// The cases are a user's code: this workspace's own stricter lints
// (`[workspace.lints]`) are not what they check.
#![allow(missing_debug_implementations, unreachable_pub, rust_2018_idioms)]
#![allow(clippy::all, clippy::pedantic)]

pub mod client {
    pub mod declared;
    pub mod toolbox;
    pub mod toolbox_generics;
}
pub mod param {
    pub mod rename;
    pub mod string_defaults;
}
pub mod prompt;
pub mod requires {
    pub mod client;
    pub mod extensions;
}
pub mod scopes;
pub mod task;
pub mod tool {
    pub mod attributes_and_cfg;
    pub mod calculator;
    pub mod context_alias;
    pub mod free_functions;
    pub mod generics;
    pub mod result_alias;
    pub mod results;
    pub mod search;
}

fn main() {
    client::declared::main();
    client::toolbox::main();
    client::toolbox_generics::main();
    param::rename::main();
    param::string_defaults::main();
    prompt::main();
    requires::client::main();
    requires::extensions::main();
    scopes::main();
    task::main();
    tool::attributes_and_cfg::main();
    tool::calculator::main();
    tool::context_alias::main();
    tool::free_functions::main();
    tool::generics::main();
    tool::result_alias::main();
    tool::results::main();
    tool::search::main();
    println!("18 cases passed");
}
