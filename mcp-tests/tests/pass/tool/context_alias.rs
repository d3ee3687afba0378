//! The context under other names: it is recognised by its type (an argument
//! without a description is injected), not by the word `Context`.
#![deny(warnings)]

use oxmcp_server::{tool, ToolBox};

mod renamed {
    use oxmcp_server::tool;
    use oxmcp_server::Context as Ctx;

    pub struct Jobs;

    #[tool(description = "Long-running jobs")]
    impl Jobs {
        #[describe("Count to n")]
        pub async fn count(&self, #[param("How far to count")] n: u32, ctx: Ctx) -> String {
            #[allow(deprecated)] // logging, deprecated: any use of the context
            ctx.info("counting");
            n.to_string()
        }

        #[describe("Count to n, by reference")]
        pub fn peek(&self, ctx: &Ctx, #[param("How far to count")] n: u32) -> u32 {
            let _ = ctx.is_cancelled();
            n
        }
    }
}

/// An alias of the context.
pub type Ctx = oxmcp_server::Context;

pub struct Aliased;

#[tool(description = "Jobs, with an aliased context")]
impl Aliased {
    #[describe("Count to n")]
    pub async fn count(&self, #[param("How far to count")] n: u32, ctx: Ctx) -> String {
        #[allow(deprecated)] // logging, deprecated: any use of the context
        ctx.info("counting");
        n.to_string()
    }
}

#[tool]
#[describe("Echo, with the context")]
pub fn echo(ctx: &Ctx, #[param("The text")] text: String) -> String {
    let _ = ctx;
    text
}

pub fn main() {
    let tools = renamed::Jobs.into_tools();
    // The context is not a parameter: only `n` is in the schema.
    for tool in &tools {
        let properties = tool.tool().input_schema["properties"].as_object().unwrap();
        assert_eq!(properties.keys().collect::<Vec<_>>(), ["n"]);
    }
    assert_eq!(Aliased.into_tools().len(), 1);
    assert_eq!(EchoTool.into_tools().len(), 1);
}

/// Nor is it an argument of the typed client.
pub async fn count<C: oxmcp_server::types::call::ToolCaller>(
    client: renamed::JobsClient<C>,
) -> Result<String, oxmcp_server::types::call::CallError> {
    client.count(3).await
}
