//! A notes server: tools that change notes, the notes as resources (an
//! index, one resource per note through a template, a logo), a prompt that
//! summarises a note, completions for the prompt's arguments and the
//! template's variable, subscriptions that hear of every change, and an
//! elicitation before a note is deleted.
//!
//! Run with `cargo run -p mcp-examples --bin notes` (stdio), or
//! `cargo run -p mcp-examples --bin notes -- --http 127.0.0.1:3000`
//! (Streamable HTTP at `http://127.0.0.1:3000/mcp`, both protocol eras).

use std::collections::BTreeMap;

use mcp_server::http::HttpConfig;
use mcp_server::types::sampling::{CreateMessageParams, SamplingMessage};
use mcp_server::types::ResourceContents;
use mcp_server::{
    tool, Content, Context, Elicited, PromptMessage, RequestError, Server, ToolError,
};

/// A 1×1 PNG, the notes' logo.
const LOGO: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0xfc, 0xcf, 0xc0, 0xf0,
    0x1f, 0x00, 0x05, 0x05, 0x02, 0x00, 0x5f, 0xc8, 0xf1, 0xd2, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// One note.
#[derive(Debug, Clone)]
struct Note {
    title: String,
    body: String,
}

/// The notes, by number.
#[derive(Debug, Default)]
pub struct Notes {
    notes: BTreeMap<u32, Note>,
    next: u32,
}

/// What the user types to confirm a deletion.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    /// Type the note's title to delete it
    title: String,
}

/// Tells the clients that subscribed to `uri` (and to the index) that it changed.
fn changed(ctx: &Context, uri: &str) {
    if let Some(server) = ctx.server() {
        server.resource_updated(uri);
        server.resource_updated("notes://index");
    }
}

#[tool(description = "A notebook: write, read, summarise and delete notes")]
impl Notes {
    #[describe("Write a new note; returns its number")]
    pub fn add_note(
        &mut self,
        #[param("A short title")] title: String,
        #[param("The text of the note")] body: String,
        ctx: Context,
    ) -> u32 {
        self.next += 1;
        self.notes.insert(self.next, Note { title, body });
        changed(&ctx, &format!("notes://{}", self.next));
        self.next
    }

    #[describe("Replace the text of a note")]
    pub fn edit_note(
        &mut self,
        #[param("The note's number")] id: u32,
        #[param("The new text")] body: String,
        ctx: Context,
    ) -> Result<String, ToolError> {
        let note = self
            .notes
            .get_mut(&id)
            .ok_or_else(|| ToolError::new(format!("there is no note {id}")))?;
        note.body = body;
        changed(&ctx, &format!("notes://{id}"));
        Ok(format!("note {id} updated"))
    }

    #[describe("Delete a note, once the user confirms by typing its title")]
    #[tool(destructive)]
    pub async fn delete_note(
        &mut self,
        #[param("The note's number")] id: u32,
        ctx: Context,
    ) -> Result<String, ToolError> {
        let title = match self.notes.get(&id) {
            Some(note) => note.title.clone(),
            None => return Err(ToolError::new(format!("there is no note {id}"))),
        };
        let answer = ctx
            .ask("confirm_delete")
            .elicit::<Confirm>(format!(
                "Delete note {id} (\"{title}\")? Type its title to confirm."
            ))
            .await?;
        match answer {
            Elicited::Accepted(c) if c.title == title => {
                self.notes.remove(&id);
                changed(&ctx, &format!("notes://{id}"));
                Ok(format!("note {id} deleted"))
            }
            Elicited::Accepted(_) => Ok(format!("the title did not match: note {id} kept")),
            Elicited::Declined | Elicited::Cancelled => Ok(format!("note {id} kept")),
        }
    }

    #[describe("Ask the client's model for a better title for a note")]
    pub async fn suggest_title(
        &self,
        #[param("The note's number")] id: u32,
        ctx: Context,
    ) -> Result<String, ToolError> {
        let note = self
            .notes
            .get(&id)
            .ok_or_else(|| ToolError::new(format!("there is no note {id}")))?;
        let question = format!("Suggest a short title for this note:\n{}", note.body);
        let answer = ctx
            .ask("title")
            .sample(CreateMessageParams::new(
                vec![SamplingMessage::user_text(question)],
                30,
            ))
            .await?;
        Ok(answer.content.text().unwrap_or_default().trim().to_owned())
    }

    #[prompt(title = "Summarise a note")]
    #[describe("Ask the model to summarise one note")]
    #[param(id, "The note's number")]
    #[param(
        style,
        "How to summarise: short, detailed or bullets",
        default = "short"
    )]
    pub fn summarise(&self, id: u32, style: String) -> Result<Vec<PromptMessage>, RequestError> {
        let note = self
            .notes
            .get(&id)
            .ok_or_else(|| RequestError::invalid_params(format!("there is no note {id}")))?;
        Ok(vec![
            PromptMessage::user(Content::resource(ResourceContents::text(
                format!("notes://{id}"),
                "text/markdown",
                format!("# {}\n\n{}", note.title, note.body),
            ))),
            PromptMessage::user(format!("Summarise the note above ({style}).")),
        ])
    }

    #[complete(summarise, style)]
    pub fn styles(&self, typed: &str) -> Vec<&'static str> {
        ["short", "detailed", "bullets"]
            .into_iter()
            .filter(|s| s.starts_with(typed))
            .collect()
    }

    #[resource(uri = "notes://index", mime_type = "text/plain", title = "All notes")]
    #[describe("Every note's number and title, one per line")]
    pub fn index(&self) -> String {
        self.notes
            .iter()
            .map(|(id, n)| format!("{id}: {}", n.title))
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[resource(uri = "notes://logo", mime_type = "image/png", title = "Logo")]
    #[describe("The notebook's logo")]
    pub fn logo(&self) -> Vec<u8> {
        LOGO.to_vec()
    }

    #[resource(
        template = "notes://{id}",
        mime_type = "text/markdown",
        title = "A note"
    )]
    #[describe("One note, as Markdown")]
    pub fn note(&self, id: u32) -> Result<String, RequestError> {
        let note = self.notes.get(&id).ok_or_else(RequestError::not_found)?;
        Ok(format!("# {}\n\n{}", note.title, note.body))
    }

    #[complete(note, id)]
    pub fn note_ids(&self, typed: &str) -> Vec<String> {
        self.notes
            .keys()
            .map(u32::to_string)
            .filter(|id| id.starts_with(typed))
            .collect()
    }
}

#[path = "stderr_logs.rs"]
mod stderr_logs;

#[tokio::main]
async fn main() -> Result<(), mcp_server::Error> {
    stderr_logs::init("warn");
    let mut notes = Notes::default();
    for (title, body) in [
        ("Groceries", "Milk, eggs, bread."),
        ("Ideas", "A notes server that speaks MCP."),
    ] {
        notes.next += 1;
        notes.notes.insert(
            notes.next,
            Note {
                title: title.into(),
                body: body.into(),
            },
        );
    }
    let server = Server::builder("notes", env!("CARGO_PKG_VERSION"))
        .instructions("A notebook. Read notes as resources (notes://index, notes://{id}); change them with the tools.")
        .toolbox(notes)
        .build();
    let mut args = std::env::args().skip(1);
    match (args.next().as_deref(), args.next()) {
        (None, _) => server.serve_stdio().await,
        (Some("--http"), Some(addr)) => server.serve_http(addr, HttpConfig::default()).await,
        _ => {
            eprintln!("usage: notes [--http ADDR]   (stdio without arguments)");
            std::process::exit(2);
        }
    }
}
