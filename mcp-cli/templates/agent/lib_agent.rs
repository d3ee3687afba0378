
/// An agent: `model` with these tools, called in-process (no server in
/// between; `server()` still serves them to hosts).
pub async fn agent(
    model: impl mcp_agent::chat::ChatModel + 'static,
) -> Result<mcp_agent::Agent, mcp_agent::ToolSetError> {
    let tools = mcp_agent::ToolSet::builder().toolbox(Tools).build().await?;
    Ok(mcp_agent::Agent::builder(model, tools).max_turns(8).build())
}
