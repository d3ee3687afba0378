//! A large, realistic tool catalog for the tool-search tests: one domain's
//! tools (`github`, `calendar`, `billing`, ...), each a verb on an object
//! of that domain, with two or three described parameters, as a real
//! server's tools are. [`catalog`] makes `count` of them; three servers of
//! 100 make the 300-tool set of issue 37.
//!
//! Every tool answers `"<name> done: <arguments as JSON>"`, so a test sees
//! which tool ran with what.

use oxmcp_server::{ToolEntry, ToolError};
use serde_json::{json, Value};

/// The verbs a tool does, with the words its description uses.
const VERBS: &[(&str, &str)] = &[
    ("list", "List every"),
    ("get", "Fetch one"),
    ("create", "Create a new"),
    ("update", "Change the fields of a"),
    ("delete", "Delete a"),
    ("archive", "Archive a"),
    ("search", "Search by keyword for a"),
    ("export", "Export as CSV each"),
    ("share", "Share with a teammate a"),
    ("refund", "Refund the money of a"),
];

/// The objects of each domain.
fn objects(domain: &str) -> &'static [&'static str] {
    match domain {
        "github" => &[
            "issue",
            "pull_request",
            "repository",
            "branch",
            "release",
            "workflow",
            "commit",
            "label",
            "milestone",
            "gist",
        ],
        "calendar" => &[
            "event",
            "meeting_room",
            "reminder",
            "attendee",
            "agenda",
            "time_zone",
            "holiday",
            "availability",
            "recurrence",
            "invitation",
        ],
        "billing" => &[
            "invoice",
            "subscription",
            "customer",
            "payment",
            "coupon",
            "tax_rate",
            "credit_note",
            "payout",
            "price",
            "dispute",
        ],
        _ => &[
            "record", "document", "report", "folder", "user", "team", "note", "task", "tag",
            "setting",
        ],
    }
}

/// `count` tools of `domain` (at most 100 distinct ones: ten verbs on ten
/// objects), named `<domain>_<verb>_<object>`.
///
/// # Panics
///
/// When `count` is over 100, or a generated tool is refused (a bug here).
pub fn catalog(domain: &str, count: usize) -> Vec<ToolEntry> {
    assert!(count <= VERBS.len() * 10, "at most 100 tools per domain");
    let objects = objects(domain);
    let mut tools = Vec::with_capacity(count);
    'all: for object in objects {
        for (verb, says) in VERBS {
            if tools.len() == count {
                break 'all;
            }
            tools.push(tool(domain, verb, says, object));
        }
    }
    tools
}

fn tool(domain: &str, verb: &str, says: &str, object: &str) -> ToolEntry {
    let name = format!("{domain}_{verb}_{object}");
    let spoken = object.replace('_', " ");
    let description = format!(
        "{says} {spoken} in the {domain} account. Use it when the user asks to {verb} \
         a {spoken}; the answer is the {spoken} as {domain} stores it."
    );
    let mut properties = serde_json::Map::new();
    properties.insert(
        format!("{object}_id"),
        json!({"type": "string", "description": format!("The identifier of the {spoken}")}),
    );
    properties.insert(
        "workspace".to_owned(),
        json!({"type": "string", "description": format!("Which {domain} workspace holds it")}),
    );
    if matches!(verb, "create" | "update" | "search" | "refund") {
        properties.insert(
            "details".to_owned(),
            json!({"type": "string", "description": format!("What to {verb}: free text about the {spoken}")}),
        );
    }
    let schema = json!({
        "type": "object",
        "properties": Value::Object(properties),
        "required": [format!("{object}_id")]
    });
    let answer = name.clone();
    ToolEntry::dynamic(name, description, schema, move |args, _ctx| {
        let text = format!("{answer} done: {}", Value::Object(args));
        async move { Ok::<_, ToolError>(text) }
    })
    .expect("the generated tool is valid")
}
