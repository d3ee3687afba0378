use oxmcp_server::tool;

pub struct Files;

#[tool(description = "Edit files")]
impl Files {
    #[describe("Edit a file")]
    pub fn edit(
        &self,
        #[param("The file")] path: String,
        #[param("Preview only", rename = "")] dry_run: bool,
    ) -> String {
        format!("{path} {dry_run}")
    }
}

fn main() {}
