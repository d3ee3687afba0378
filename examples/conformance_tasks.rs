//! The conformance fixture's tools for the tasks extension (SEP-2663), as
//! the official scenarios name them: a sync tool, tools that may run as
//! tasks, one that only runs as one, and tools that ask for input.

use std::time::Duration;

use oxmcp_server::policy::{CallOutcome, Middleware, Next};
use oxmcp_server::tool::ToolRequest;
use oxmcp_server::types::ErrorObject;
use oxmcp_server::{ask::Elicited, policy::BoxFuture, tool, Context, ToolError};

/// What the user types: a name, or a yes/no.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct UserName {
    /// Your name
    pub name: String,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct Confirmation {
    /// Delete it?
    pub confirm: bool,
}

/// Sleeps, unless the call is cancelled first; `false` when it was.
async fn work(ctx: &Context, seconds: f64) -> bool {
    let wait = Duration::from_secs_f64(seconds.clamp(0.0, 3600.0));
    tokio::select! {
        () = tokio::time::sleep(wait) => true,
        () = ctx.cancelled() => false,
    }
}

#[derive(Debug)]
pub struct TaskFixture;

#[tool(description = "The tasks extension's conformance tools")]
impl TaskFixture {
    #[describe("Greets someone, at once (never a task)")]
    pub fn greet(&self, #[param("Who to greet")] name: String) -> String {
        format!("Hello, {name}!")
    }

    #[describe("Computes for `seconds` seconds; may run as a task")]
    #[tool(task = optional)]
    pub async fn slow_compute(
        &self,
        #[param("How long to compute, in seconds (0: at once)")] seconds: f64,
        #[param("A label for the result")] label: String,
        ctx: Context,
    ) -> Result<String, ToolError> {
        if !work(&ctx, seconds).await {
            return Err(ToolError::new("cancelled"));
        }
        Ok(format!("computed {label} in {seconds} s"))
    }

    #[describe("Fails after a second with a tool error; only runs as a task")]
    #[tool(task = required)]
    pub async fn failing_job(&self, ctx: Context) -> Result<String, ToolError> {
        work(&ctx, 1.0).await;
        Err(ToolError::new("the job failed"))
    }

    #[describe(
        "Fails with a JSON-RPC error (a layer refuses it after a moment); may run as a task"
    )]
    #[tool(task = optional)]
    pub fn protocol_error_job(&self) -> String {
        "never reached: the ProtocolErrors layer answers first".into()
    }

    #[describe("Asks the user's name in an input round, then works as a task and greets them")]
    #[tool(task = required)]
    pub async fn test_tool_with_task(&self, ctx: Context) -> Result<String, ToolError> {
        let name = match ctx
            .ask("user_name")
            .elicit::<UserName>("What is your name?")
            .await?
        {
            Elicited::Accepted(n) => n.name,
            _ => return Ok("no name was given".into()),
        };
        work(&ctx, 1.0).await;
        Ok(format!("Hello, {name}, from a task"))
    }

    #[describe("Works a moment as a task, then asks for confirmation before deleting")]
    #[tool(task = optional)]
    pub async fn confirm_delete(
        &self,
        #[param("The file to delete")] filename: String,
        ctx: Context,
    ) -> Result<String, ToolError> {
        work(&ctx, 0.2).await;
        match ctx
            .ask("confirm")
            .elicit::<Confirmation>(&format!("Delete {filename}?"))
            .await?
        {
            Elicited::Accepted(c) if c.confirm => Ok(format!("deleted {filename}")),
            _ => Ok(format!("kept {filename}")),
        }
    }

    #[describe("Works a moment as a task, then asks two questions at once")]
    #[tool(task = optional)]
    pub async fn multi_input(&self, ctx: Context) -> Result<String, ToolError> {
        work(&ctx, 0.2).await;
        let (first, second) = tokio::join!(
            ctx.ask("first_name").elicit::<UserName>("First name?"),
            ctx.ask("last_name").elicit::<UserName>("Last name?"),
        );
        match (first?, second?) {
            (Elicited::Accepted(a), Elicited::Accepted(b)) => Ok(format!("{} {}", a.name, b.name)),
            _ => Ok("incomplete".into()),
        }
    }
}

/// Fails `protocol_error_job` with a JSON-RPC error after a moment (so
/// that, called by a client with the tasks extension, it has become a task).
#[derive(Debug)]
pub struct ProtocolErrors;

impl Middleware for ProtocolErrors {
    fn call(&self, call: ToolRequest, next: Next) -> BoxFuture<'static, CallOutcome> {
        if call.name != "protocol_error_job" {
            return next.run(call);
        }
        Box::pin(async {
            tokio::time::sleep(Duration::from_millis(200)).await;
            Err(ErrorObject::internal(
                "protocol_error_job failed on purpose",
            ))
        })
    }
}
