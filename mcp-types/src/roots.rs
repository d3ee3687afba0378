//! Roots: `roots/list`, which a server asks of the client to learn the
//! directories and files it may work on.

use serde::{Deserialize, Serialize};

use crate::Meta;

/// A directory or file the client lets the server work on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Root {
    /// Its URI (`file://` for now).
    pub uri: String,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Open metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Result of `roots/list`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListRootsResult {
    /// The roots.
    pub roots: Vec<Root>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn roots_use_the_spec_shape() {
        let r: ListRootsResult = serde_json::from_value(
            json!({"roots": [{"uri": "file:///test/root", "name": "Test Root"}]}),
        )
        .unwrap();
        assert_eq!(r.roots[0].name.as_deref(), Some("Test Root"));
    }
}
