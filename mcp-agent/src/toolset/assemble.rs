//! Turning the sources' listings into one snapshot of a set's tools: each
//! source's allow and block lists and prefix applied, names checked valid
//! and unique, each tool prepared to offer and to call.

use std::collections::BTreeMap;
use std::sync::Arc;

use oxmcp_types::tool::is_valid_tool_name;
use oxmcp_types::Tool;

use super::source::{SourceKind, SourceState};
use crate::catalog::{Diagnostic, SetTool, Target, ToolSetError, Tools};

/// Builds a snapshot from each source's tools, refusing collisions.
pub(super) fn assemble(
    states: &[SourceState],
    listings: &[Option<Vec<Tool>>],
) -> Result<Tools, ToolSetError> {
    let mut tools = Tools::default();
    let mut origin: BTreeMap<String, String> = BTreeMap::new();
    for (state, listing) in states.iter().zip(listings) {
        let source = &state.source;
        let offered: Vec<(Tool, Target)> = match (&source.kind, listing) {
            (SourceKind::Local { entries, .. }, _) => entries
                .iter()
                .map(|e| (e.tool().clone(), Target::Local(e.clone())))
                .collect(),
            (SourceKind::Remote(client), Some(listing)) => listing
                .iter()
                .map(|t| {
                    (
                        t.clone(),
                        Target::Remote {
                            client: client.clone(),
                            name: t.name.clone(),
                            called: Arc::clone(&state.called),
                        },
                    )
                })
                .collect(),
            (SourceKind::Remote(_), None) => Vec::new(),
            (SourceKind::Caller(tools), _) => {
                tools.iter().map(|t| (t.clone(), Target::Caller)).collect()
            }
        };
        let described = format!("{} `{}`", state.kind_name, state.label);
        if let Some(allow) = &source.allow {
            for name in allow {
                if !offered.iter().any(|(t, _)| &t.name == name) {
                    tools.diagnostics.push(Diagnostic {
                        tool: name.clone(),
                        source: state.label.to_string(),
                        message: "is on the allow list but the source does not offer it".to_owned(),
                    });
                }
            }
        }
        for (mut def, target) in offered {
            if !source.admits(&def.name) {
                continue;
            }
            def.name = format!("{}{}", source.prefix, def.name);
            if !is_valid_tool_name(&def.name) {
                return Err(ToolSetError::InvalidName {
                    name: def.name,
                    origin: described,
                });
            }
            if let Some(first) = origin.get(&def.name) {
                return Err(ToolSetError::Collision {
                    name: def.name,
                    first: first.clone(),
                    second: described,
                });
            }
            origin.insert(def.name.clone(), described.clone());
            let mut tool = SetTool::new(
                def,
                Arc::clone(&state.label),
                target,
                &mut tools.diagnostics,
            );
            tool.lifecycle.clone_from(&state.lifecycle);
            tool.annotations_trusted = source.trusts_annotations();
            tools.by_name.insert(tool.name().to_owned(), tool);
        }
    }
    Ok(tools)
}
