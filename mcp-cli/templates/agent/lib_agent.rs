
/// An agent: `model` with these tools, called in-process (no server in
/// between; `server()` still serves them to hosts).
pub async fn agent(
    model: impl oxmcp_agent::chat::ChatModel + 'static,
) -> Result<oxmcp_agent::Agent, oxmcp_agent::ToolSetError> {
    let tools = oxmcp_agent::ToolSet::builder().toolbox(Tools).build().await?;
    Ok(oxmcp_agent::Agent::builder(model, tools).max_turns(8).build())
}
