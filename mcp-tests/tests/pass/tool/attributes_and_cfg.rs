//! Other attributes pass through untouched; a `#[cfg]`'d-out method is
//! simply not a tool; `#[describe]` may come before or after other attributes.
#![deny(warnings)]

use oxmcp_server::{tool, ToolBox};

#[derive(Debug, Default)]
pub struct Notes {
    notes: Vec<String>,
}

/// The impl block's own doc comment.
#[tool(description = "A notebook")]
#[allow(clippy::unused_self)]
impl Notes {
    /// Appends a note. (Doc comments stay doc comments; the tool's
    /// description is its #[describe].)
    #[describe("Append a note")]
    #[inline]
    #[must_use = "the new count"]
    pub fn append(&mut self, #[param("The note")] note: String) -> usize {
        self.notes.push(note);
        self.notes.len()
    }

    #[allow(clippy::unused_self)]
    #[describe("Say hello")]
    #[doc = "A doc attribute after #[describe]."]
    pub fn hello(&self) -> &'static str {
        "hello"
    }

    #[describe("Only on Windows")]
    #[cfg(windows)]
    pub fn windows_only(&self) -> String {
        String::from("windows")
    }

    #[cfg(not(windows))]
    #[describe("Everywhere else")]
    pub fn elsewhere(&self) -> String {
        String::from("elsewhere")
    }

    #[cfg(any())]
    #[describe("Never compiled")]
    pub fn never(&self, #[param("Not even type-checked")] value: NotAType) -> Nothing {
        value
    }

    #[deprecated = "old"]
    #[describe("An old tool")]
    pub fn old(&self) -> String {
        String::new()
    }

    /// A private helper: not a tool.
    #[allow(dead_code)]
    fn helper(&self) {}
}

pub fn main() {
    let tools = Notes::default().into_tools();
    let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    #[cfg(not(windows))]
    assert_eq!(names, ["append", "hello", "elsewhere", "old"]);
    #[cfg(windows)]
    assert_eq!(names, ["append", "hello", "windows_only", "old"]);
}
