use oxmcp_server::tool;

pub struct Files;

#[tool(description = "Edit files")]
impl Files {
    #[describe("Edit a file")]
    pub fn edit(
        &self,
        #[param("Preview only", rename = "dryRun")] dry_run: bool,
        #[param("Show the diff", rename = "dryRun")] preview: bool,
    ) -> String {
        format!("{dry_run} {preview}")
    }

    #[describe("Move a file")]
    #[param(from, "The file to move", rename = "destination")]
    #[param(destination, "Where to move it")]
    pub fn r#move(&self, from: String, destination: String) -> String {
        format!("{from} {destination}")
    }
}

fn main() {}
