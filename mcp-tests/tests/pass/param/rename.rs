//! `rename = "..."` in both `#[param]` forms: the wire name changes, the
//! Rust name (and the typed client's argument) does not; with `default`,
//! `Option`, a raw identifier, a prompt argument and a declared tool.
#![deny(warnings)]

use oxmcp_server::{tool, ToolBox};

#[derive(Default)]
pub struct Files;

#[tool(description = "Edit files")]
impl Files {
    #[describe("Edit a file")]
    #[param(old_text, "The text to replace", rename = "oldText")]
    #[param(new_text, "The replacement", rename = "newText")]
    pub fn edit(
        &self,
        old_text: String,
        new_text: String,
        #[param("Preview only", rename = "dryRun", default = false)] dry_run: bool,
        #[param("Patterns to skip", rename = "excludePatterns")] exclude_patterns: Option<
            Vec<String>,
        >,
    ) -> String {
        format!("{old_text} {new_text} {dry_run} {exclude_patterns:?}")
    }

    #[describe("List a directory")]
    #[param(sort_by, "name or size", default = "name", rename = "sortBy")]
    pub fn list(
        &self,
        sort_by: String,
        #[param("The entry type", rename = "kind")] r#type: String,
    ) -> String {
        format!("{sort_by} {type}", type = r#type)
    }

    #[prompt]
    #[describe("Review a change")]
    #[param(old_text, "The text before", rename = "oldText")]
    pub fn review(&self, old_text: String) -> String {
        format!("Review: {old_text}")
    }

    #[complete(review, old_text)]
    fn suggest(&self, typed: &str) -> Vec<String> {
        vec![typed.to_owned()]
    }
}

/// The same tool, declared by a client.
#[oxmcp_client::tool(description = "Edit files, declared")]
pub trait RemoteFiles {
    #[describe("Edit a file")]
    #[param(old_text, "The text to replace", rename = "oldText")]
    async fn edit(
        &self,
        old_text: String,
        #[param("The replacement", rename = "newText")] new_text: String,
        #[param("Preview only", default = false, rename = "dryRun")] dry_run: bool,
    ) -> String;
}

async fn call<C: oxmcp_server::types::call::ToolCaller>(
    files: &FilesClient<C>,
    remote: &RemoteFilesClient<C>,
) {
    let _ = files.edit("a".into(), "b".into(), Some(true), None).await;
    let _ = files.list(None, "file".into()).await;
    let _ = remote.edit("a".into(), "b".into(), None).await;
}

pub fn main() {
    let _ = call::<std::sync::Arc<oxmcp_client::Client>>;
    let tools = Files.into_tools();
    let edit = &tools[0].tool().input_schema;
    let mut keys: Vec<&str> = edit["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(keys, ["dryRun", "excludePatterns", "newText", "oldText"]);
    assert_eq!(edit["required"], serde_json::json!(["oldText", "newText"]));
    assert_eq!(edit["properties"]["dryRun"]["default"], false);
    let list = &tools[1].tool().input_schema;
    assert_eq!(list["properties"]["sortBy"]["default"], "name");
    assert_eq!(list["required"], serde_json::json!(["kind"]));
}
