//! `#[tool(scopes(...))]` on a toolbox, on its methods and on a tool
//! function: each tool, prompt, resource and template needs the block's
//! scopes and its own, each once.
#![deny(warnings, missing_docs)]

use oxmcp_server::{tool, ToolBox};

/// Notes behind OAuth.
#[derive(Debug, Default)]
pub struct Notes;

#[tool(
    description = "Notes behind OAuth",
    scopes("notes:read"),
    client = false
)]
#[allow(missing_docs)]
impl Notes {
    #[describe("Read a note")]
    pub fn read(&self) -> String {
        String::new()
    }

    #[describe("Delete a note")]
    #[tool(destructive, scopes("notes:write", "notes:read", "audit"))]
    pub fn delete(&self) {}

    #[prompt]
    #[describe("Summarize the notes")]
    #[tool(scopes("notes:summary"))]
    pub fn summarize(&self, #[param("How long")] length: String) -> String {
        length
    }

    #[complete(summarize, length)]
    fn lengths(&self, _typed: &str) -> Vec<String> {
        Vec::new()
    }

    #[prompt]
    #[describe("Greet")]
    pub fn greet(&self) -> String {
        String::new()
    }

    #[resource(uri = "notes://index")]
    #[describe("The index")]
    pub fn index(&self) -> String {
        String::new()
    }

    #[resource(template = "notes://{id}")]
    #[describe("One note")]
    #[tool(scopes("notes:read", "notes:archive"))]
    pub fn note(&self, id: String) -> String {
        id
    }
}

/// A tool function declares its own.
#[tool(scopes("admin"))]
#[describe("Reset everything")]
pub fn reset() {}

fn scopes(entry: &oxmcp_server::ToolEntry) -> Vec<&str> {
    entry.scopes().collect()
}

/// Runs the case.
pub fn main() {
    let items = Notes.into_items();
    let tools = &items.tools;
    assert_eq!(scopes(&tools[0]), ["notes:read"]);
    assert_eq!(scopes(&tools[1]), ["notes:read", "notes:write", "audit"]);
    let prompts: Vec<Vec<&str>> = items.prompts.iter().map(|p| p.scopes().collect()).collect();
    assert_eq!(
        prompts,
        [vec!["notes:read", "notes:summary"], vec!["notes:read"]]
    );
    let index: Vec<&str> = items.resources[0].scopes().collect();
    assert_eq!(index, ["notes:read"]);
    let note: Vec<&str> = items.templates[0].scopes().collect();
    assert_eq!(note, ["notes:read", "notes:archive"]);
    let reset = ResetTool.into_tools();
    assert_eq!(scopes(&reset[0]), ["admin"]);
    let plain = reset[0].clone().with_scopes(["admin", "more"]);
    assert_eq!(scopes(&plain), ["admin", "more"]);
}
