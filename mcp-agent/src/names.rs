//! Tool names the providers accept.
//!
//! MCP allows `[A-Za-z0-9_.-]{1,128}`; OpenAI and Anthropic accept
//! `^[a-zA-Z0-9_-]{1,64}$`. [`NameMap`] maps one to the other, reversibly
//! and deterministically.

// TODO(helper): implement.

/// A two-way map between MCP tool names and provider-safe names, built for one
/// set of names.
#[derive(Debug, Clone, Default)]
pub struct NameMap {
    _private: (),
}

impl NameMap {
    /// Builds the map for these MCP names.
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> NameMap {
        let _ = names.into_iter().count();
        todo!()
    }

    /// The provider-safe name of an MCP name of this map.
    pub fn to_provider(&self, mcp_name: &str) -> Option<&str> {
        let _ = mcp_name;
        todo!()
    }

    /// The MCP name behind a provider-safe name of this map.
    pub fn to_mcp(&self, provider_name: &str) -> Option<&str> {
        let _ = provider_name;
        todo!()
    }
}
