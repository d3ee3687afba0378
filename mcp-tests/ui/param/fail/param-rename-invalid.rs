use oxmcp_server::tool;

pub struct Files;

#[tool(description = "Edit files")]
impl Files {
    #[describe("Edit a file")]
    #[param(old_text, "The text to replace", rename = "old text")]
    pub fn edit(
        &self,
        old_text: String,
        #[param("Preview only", rename = "dry/run")] dry_run: bool,
    ) -> String {
        format!("{old_text} {dry_run}")
    }
}

fn main() {}
