use oxmcp_server::types::ResourceContents;
use oxmcp_server::{
    complete::Completing, tool, types::PromptMessage, Context, RequestError, Server,
};

#[derive(Default)]
pub struct Notes {
    notes: Vec<String>,
}

#[tool(description = "Notes, as tools, prompts and resources")]
impl Notes {
    #[describe("Add a note")]
    pub fn add(&mut self, #[param("The note")] text: String) -> usize {
        self.notes.push(text);
        self.notes.len()
    }

    #[prompt(title = "Summary")]
    #[describe("Summarise a note")]
    #[param(id, "The note's number")]
    #[param(style, "How to write it", default = "short")]
    #[param(language, "The language, if not English")]
    pub fn summarise(
        &self,
        id: usize,
        style: String,
        language: Option<String>,
    ) -> Result<Vec<PromptMessage>, RequestError> {
        let note = self
            .notes
            .get(id)
            .ok_or_else(|| RequestError::invalid_params("no such note"))?;
        Ok(vec![PromptMessage::user(format!(
            "Summarise ({style}, {language:?}): {note}"
        ))])
    }

    #[complete(summarise, style)]
    fn styles(&self, typed: &str, _request: &Completing, _ctx: Context) -> Vec<&'static str> {
        ["short", "long"]
            .into_iter()
            .filter(|s| s.starts_with(typed))
            .collect()
    }

    #[resource(uri = "notes://index", mime_type = "text/plain")]
    #[describe("Every note, one per line")]
    pub fn index(&self) -> String {
        self.notes.join("\n")
    }

    #[resource(template = "notes://{id}/{+rest}", mime_type = "text/plain")]
    #[describe("One note")]
    pub async fn note(
        &self,
        id: usize,
        rest: String,
        ctx: &Context,
    ) -> Result<Vec<ResourceContents>, RequestError> {
        #[allow(deprecated)] // logging, deprecated: any use of the context
        ctx.info(format!("reading {id}"));
        let note = self.notes.get(id).ok_or_else(RequestError::not_found)?;
        Ok(vec![ResourceContents::text(
            format!("notes://{id}/{rest}"),
            "text/plain",
            note.clone(),
        )])
    }

    #[complete(note, id)]
    fn ids(&self, typed: String) -> Vec<String> {
        (0..self.notes.len())
            .map(|i| i.to_string())
            .filter(|i| i.starts_with(&typed))
            .collect()
    }
}

pub fn main() {
    let server = Server::builder("notes", "1.0")
        .toolbox(Notes::default())
        .build();
    let handle = server.handle();
    assert_eq!(handle.prompt_names(), ["summarise"]);
    assert_eq!(handle.resource_uris(), ["notes://index"]);
    assert_eq!(handle.resource_templates(), ["notes://{id}/{+rest}"]);
}
