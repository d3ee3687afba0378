use oxmcp_server::tool;

pub struct Files;

#[tool(description = "Edit files")]
impl Files {
    #[describe("Edit a file")]
    pub fn edit(&self, #[param("Preview only", rename = dryRun)] dry_run: bool) -> String {
        format!("{dry_run}")
    }
}

fn main() {}
