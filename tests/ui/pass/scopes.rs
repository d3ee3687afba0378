//! `#[tool(scopes(...))]` on a toolbox, on its methods and on a tool
//! function: each tool needs the block's scopes and its own, each once.
#![deny(warnings, missing_docs)]

use mcp_server::{tool, ToolBox};

/// Notes behind OAuth.
#[derive(Debug, Default)]
pub struct Notes;

#[tool(description = "Notes behind OAuth", scopes("notes:read"), client = false)]
#[allow(missing_docs)]
impl Notes {
    #[describe("Read a note")]
    pub fn read(&self) -> String {
        String::new()
    }

    #[describe("Delete a note")]
    #[tool(destructive, scopes("notes:write", "notes:read", "audit"))]
    pub fn delete(&self) {}
}

/// A tool function declares its own.
#[tool(scopes("admin"))]
#[describe("Reset everything")]
pub fn reset() {}

fn scopes(entry: &mcp_server::ToolEntry) -> Vec<&str> {
    entry.scopes().collect()
}

fn main() {
    let tools = Notes.into_tools();
    assert_eq!(scopes(&tools[0]), ["notes:read"]);
    assert_eq!(scopes(&tools[1]), ["notes:read", "notes:write", "audit"]);
    let reset = ResetTool.into_tools();
    assert_eq!(scopes(&reset[0]), ["admin"]);
    let plain = reset[0].clone().with_scopes(["admin", "more"]);
    assert_eq!(scopes(&plain), ["admin", "more"]);
}
