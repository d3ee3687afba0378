use oxmcp_server::tool;

pub struct Files;

#[tool(description = "Edit files")]
impl Files {
    #[describe("Edit a file")]
    #[param(path, "The file", rename = "filePath", rename = "path")]
    pub fn edit(
        &self,
        path: String,
        #[param("Preview only", rename = "dryRun", rename = "preview")] dry_run: bool,
    ) -> String {
        format!("{path} {dry_run}")
    }
}

fn main() {}
