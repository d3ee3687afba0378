use oxmcp_server::tool;

pub struct Echo;

#[tool(description = "Echoes")]
impl Echo {
    #[describe("Echo a value")]
    pub fn echo<T: serde::de::DeserializeOwned + schemars::JsonSchema + ToString>(
        &self,
        #[param("The value")] value: T,
    ) -> String {
        value.to_string()
    }
}

fn main() {}
