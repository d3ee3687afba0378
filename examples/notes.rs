//! A notes server: tools that change notes, the notes as resources (an
//! index, one resource per note through a template, a logo), a prompt that
//! summarises a note, completions for the prompt's arguments and the
//! template's variable, subscriptions that hear of every change, and an
//! elicitation before a note is deleted.
//!
//! Run with `cargo run -p mcp-examples --bin notes` (stdio), or
//! `cargo run -p mcp-examples --bin notes -- --http 127.0.0.1:3000`
//! (Streamable HTTP at `http://127.0.0.1:3000/mcp`, both protocol eras;
//! port 0 picks a free port, and the line it prints on stderr names it).
//!
//! `-- --http 127.0.0.1:3000 --redis redis://127.0.0.1:6379/0` runs it as
//! one of several instances of one service: sessions, `Last-Event-ID`
//! replay and notifications are shared through Redis (see `several.rs`;
//! set `MCP_REQUEST_STATE_KEYS` to the same keys on every instance), and so
//! is the notebook itself, so every instance sees the same notes.

use std::collections::BTreeMap;
use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::sync::Mutex;
use std::time::Duration;

use clap::Parser;
use oxmcp_server::http::HttpConfig;
use oxmcp_server::types::sampling::{CreateMessageParams, SamplingMessage};
use oxmcp_server::types::ResourceContents;
use oxmcp_server::{
    ask::Elicited, tool, types::ContentBlock, types::PromptMessage, Context, RequestError, Server,
    ToolError,
};
use redis::aio::{ConnectionManager, ConnectionManagerConfig};

/// A 1×1 PNG, the notes' logo.
const LOGO: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0xfc, 0xcf, 0xc0, 0xf0,
    0x1f, 0x00, 0x05, 0x05, 0x02, 0x00, 0x5f, 0xc8, 0xf1, 0xd2, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// The notes a new notebook starts with.
const FIRST_NOTES: [(&str, &str); 2] = [
    ("Groceries", "Milk, eggs, bread."),
    ("Ideas", "A notes server that speaks MCP."),
];

/// One note.
#[derive(Debug, Clone)]
struct Note {
    title: String,
    body: String,
}

/// What a compare-and-delete found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Deleted {
    /// The note had the title: it is gone now.
    Done,
    /// The note has another title now: it was kept. (No tool renames a
    /// note and numbers are never reused, so today only another client
    /// writing to the notebook's keys could cause this; the check is what
    /// makes the deletion safe without holding anything while asking.)
    Changed,
    /// There is no such note (any more).
    Gone,
}

/// The notebook could not be reached (Redis is down, stopped or slow).
#[derive(Debug)]
struct Unavailable(String);

impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the notebook is unavailable ({})", self.0)
    }
}

impl std::error::Error for Unavailable {}

impl From<redis::RedisError> for Unavailable {
    fn from(e: redis::RedisError) -> Self {
        Unavailable(e.to_string())
    }
}

type Kept<T> = Result<T, Unavailable>;

/// Where the notes live: in this process, or in Redis (shared by every
/// instance of the service). Every method is atomic on its own; nothing is
/// held between two calls (a tool that waits for the user holds nothing).
#[derive(Debug)]
enum Notebook {
    Memory(Mutex<Book>),
    Redis(RedisBook),
}

/// The notes in memory, by number.
#[derive(Debug, Default)]
struct Book {
    notes: BTreeMap<u32, Note>,
    next: u32,
}

impl Book {
    fn add(&mut self, title: String, body: String) -> u32 {
        self.next += 1;
        self.notes.insert(self.next, Note { title, body });
        self.next
    }
}

impl Notebook {
    /// A notebook in memory, with the first notes.
    fn memory() -> Notebook {
        let mut book = Book::default();
        for (title, body) in FIRST_NOTES {
            book.add(title.into(), body.into());
        }
        Notebook::Memory(Mutex::new(book))
    }

    /// A notebook in the Redis at `url`, given the first notes if it is new.
    async fn redis(url: &str) -> Kept<Notebook> {
        let book = RedisBook::connect(url).await?;
        book.seed().await?;
        Ok(Notebook::Redis(book))
    }

    fn book(book: &Mutex<Book>) -> std::sync::MutexGuard<'_, Book> {
        // A panic elsewhere leaves the map as it was: keep using it.
        book.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Writes a new note; its number.
    async fn add(&self, title: String, body: String) -> Kept<u32> {
        match self {
            Notebook::Memory(book) => Ok(Self::book(book).add(title, body)),
            Notebook::Redis(r) => r.add(&title, &body).await,
        }
    }

    /// Note `id`, if there is one.
    async fn get(&self, id: u32) -> Kept<Option<Note>> {
        match self {
            Notebook::Memory(book) => Ok(Self::book(book).notes.get(&id).cloned()),
            Notebook::Redis(r) => r.get(id).await,
        }
    }

    /// Replaces note `id`'s text; `false` when there is no such note.
    async fn edit(&self, id: u32, body: String) -> Kept<bool> {
        match self {
            Notebook::Memory(book) => Ok(match Self::book(book).notes.get_mut(&id) {
                Some(note) => {
                    note.body = body;
                    true
                }
                None => false,
            }),
            Notebook::Redis(r) => r.edit(id, &body).await,
        }
    }

    /// Every note's number and title, by number.
    async fn titles(&self) -> Kept<Vec<(u32, String)>> {
        match self {
            Notebook::Memory(book) => Ok(Self::book(book)
                .notes
                .iter()
                .map(|(id, n)| (*id, n.title.clone()))
                .collect()),
            Notebook::Redis(r) => r.titles().await,
        }
    }

    /// Deletes note `id` if it is still titled `title`.
    async fn delete_titled(&self, id: u32, title: &str) -> Kept<Deleted> {
        match self {
            Notebook::Memory(book) => {
                let mut book = Self::book(book);
                Ok(match book.notes.get(&id) {
                    None => Deleted::Gone,
                    Some(note) if note.title != title => Deleted::Changed,
                    Some(_) => {
                        book.notes.remove(&id);
                        Deleted::Done
                    }
                })
            }
            Notebook::Redis(r) => r.delete_titled(id, title).await,
        }
    }
}

/// The notebook in Redis: a hash of titles and a hash of bodies (both by
/// note number) and the counter that numbers new notes, under `notes:`
/// (the session store's keys are under `mcp:`).
///
/// Every key in Redis has an expiry: the notebook's keys live
/// [`NOTES_TTL`] (7 days) after the last write, each write refreshing it;
/// a notebook nobody writes to for that long is gone, and the next instance
/// to start gives it the first notes again.
#[derive(Debug)]
struct RedisBook {
    conn: ConnectionManager,
    titles: String,
    bodies: String,
    counter: String,
}

/// How long the notebook's keys live after the last write.
const NOTES_TTL: Duration = Duration::from_secs(7 * 24 * 3600);

/// How long one command may take before the notebook is unavailable
/// (a stopped Redis must not hang a call).
const REDIS_TIMEOUT: Duration = Duration::from_secs(1);

/// KEYS: titles, bodies, counter. ARGV: TTL in seconds, then title and body
/// pairs. Writes the notes only when the notebook is new.
const SEED: &str = r"
if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
for i = 2, #ARGV - 1, 2 do
  local id = redis.call('INCR', KEYS[3])
  redis.call('HSET', KEYS[1], id, ARGV[i])
  redis.call('HSET', KEYS[2], id, ARGV[i + 1])
end
for i = 1, 3 do redis.call('EXPIRE', KEYS[i], ARGV[1]) end
return 1
";

/// KEYS: titles, bodies, counter. ARGV: TTL, title, body. The new number.
const ADD: &str = r"
local id = redis.call('INCR', KEYS[3])
redis.call('HSET', KEYS[1], id, ARGV[2])
redis.call('HSET', KEYS[2], id, ARGV[3])
for i = 1, 3 do redis.call('EXPIRE', KEYS[i], ARGV[1]) end
return id
";

/// KEYS: titles, bodies, counter. ARGV: TTL, id, body. 1 if edited, 0 if
/// there is no such note.
const EDIT: &str = r"
if redis.call('HEXISTS', KEYS[1], ARGV[2]) == 0 then return 0 end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
for i = 1, 3 do redis.call('EXPIRE', KEYS[i], ARGV[1]) end
return 1
";

/// KEYS: titles, bodies, counter. ARGV: TTL, id, title. Deletes the note
/// only if it still has that title: 1 deleted, 0 another title, -1 gone.
const DELETE_TITLED: &str = r"
local title = redis.call('HGET', KEYS[1], ARGV[2])
if not title then return -1 end
if title ~= ARGV[3] then return 0 end
redis.call('HDEL', KEYS[1], ARGV[2])
redis.call('HDEL', KEYS[2], ARGV[2])
for i = 1, 3 do redis.call('EXPIRE', KEYS[i], ARGV[1]) end
return 1
";

impl RedisBook {
    async fn connect(url: &str) -> Kept<RedisBook> {
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(REDIS_TIMEOUT))
            .set_response_timeout(Some(REDIS_TIMEOUT))
            .set_number_of_retries(2)
            .set_max_delay(Duration::from_secs(1));
        let conn = redis::Client::open(url)?
            .get_connection_manager_with_config(config)
            .await?;
        Ok(RedisBook {
            conn,
            titles: "notes:titles".into(),
            bodies: "notes:bodies".into(),
            counter: "notes:next".into(),
        })
    }

    /// Runs `script` on the notebook's keys with the TTL and `args`.
    async fn eval<T: redis::FromRedisValue>(&self, script: &str, args: &[&str]) -> Kept<T> {
        let mut cmd = redis::cmd("EVAL");
        cmd.arg(script)
            .arg(3)
            .arg(&self.titles)
            .arg(&self.bodies)
            .arg(&self.counter)
            .arg(NOTES_TTL.as_secs());
        for a in args {
            cmd.arg(*a);
        }
        self.query(&cmd).await
    }

    /// Runs one command.
    async fn query<T: redis::FromRedisValue>(&self, cmd: &redis::Cmd) -> Kept<T> {
        let mut conn = self.conn.clone();
        self.run(cmd.query_async(&mut conn)).await
    }

    /// Waits for a command at most a little longer than its own timeout.
    /// (A write that timed out may still be done: Redis runs what it was
    /// sent when it comes back.)
    async fn run<T>(&self, op: impl Future<Output = redis::RedisResult<T>>) -> Kept<T> {
        match tokio::time::timeout(REDIS_TIMEOUT * 2, op).await {
            Ok(r) => Ok(r?),
            Err(_) => Err(Unavailable("redis: no answer in time".into())),
        }
    }

    async fn seed(&self) -> Kept<()> {
        let args: Vec<&str> = FIRST_NOTES.iter().flat_map(|(t, b)| [*t, *b]).collect();
        self.eval::<i64>(SEED, &args).await.map(drop)
    }

    async fn add(&self, title: &str, body: &str) -> Kept<u32> {
        self.eval(ADD, &[title, body]).await
    }

    async fn get(&self, id: u32) -> Kept<Option<Note>> {
        let mut read = redis::pipe();
        read.atomic().hget(&self.titles, id).hget(&self.bodies, id);
        let mut conn = self.conn.clone();
        let found = self.run(read.query_async::<(Option<String>, Option<String>)>(&mut conn));
        Ok(match found.await? {
            (Some(title), body) => Some(Note {
                title,
                body: body.unwrap_or_default(),
            }),
            (None, _) => None,
        })
    }

    async fn edit(&self, id: u32, body: &str) -> Kept<bool> {
        let edited: i64 = self.eval(EDIT, &[&id.to_string(), body]).await?;
        Ok(edited == 1)
    }

    async fn titles(&self) -> Kept<Vec<(u32, String)>> {
        let all: HashMap<String, String> =
            self.query(redis::cmd("HGETALL").arg(&self.titles)).await?;
        let mut titles: Vec<(u32, String)> = all
            .into_iter()
            .filter_map(|(id, title)| Some((id.parse().ok()?, title)))
            .collect();
        titles.sort_unstable_by_key(|(id, _)| *id);
        Ok(titles)
    }

    async fn delete_titled(&self, id: u32, title: &str) -> Kept<Deleted> {
        let found: i64 = self.eval(DELETE_TITLED, &[&id.to_string(), title]).await?;
        Ok(match found {
            1 => Deleted::Done,
            0 => Deleted::Changed,
            _ => Deleted::Gone,
        })
    }
}

/// The notebook's tools, resources and prompt.
#[derive(Debug)]
pub struct Notes {
    book: Notebook,
}

/// What the user types to confirm a deletion.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    /// Type the note's title to delete it
    title: String,
}

/// Tells the clients that subscribed to `uri` (and to the index) that it
/// changed (with a shared store, on every instance).
fn changed(ctx: &Context, uri: &str) {
    if let Some(server) = ctx.server() {
        server.resource_updated(uri);
        server.resource_updated("notes://index");
    }
}

impl Notes {
    /// The notebook kept in memory, with the first notes: what the program
    /// serves without `--redis`, and what tests serve in-process.
    pub fn in_memory() -> Notes {
        Notes {
            book: Notebook::memory(),
        }
    }
}

fn no_note(id: u32) -> ToolError {
    ToolError::new(format!("there is no note {id}"))
}

#[tool(description = "A notebook: write, read, summarise and delete notes")]
impl Notes {
    #[describe("Write a new note; returns its number")]
    pub async fn add_note(
        &self,
        #[param("A short title")] title: String,
        #[param("The text of the note")] body: String,
        ctx: Context,
    ) -> Result<u32, ToolError> {
        let id = self.book.add(title, body).await?;
        changed(&ctx, &format!("notes://{id}"));
        Ok(id)
    }

    #[describe("Show the notebook: every note's number and title, one per line (a host with MCP Apps shows it as a board where the user adds notes)")]
    #[tool(read_only, ui = "ui://notes/board")]
    pub async fn board(&self) -> Result<String, ToolError> {
        let titles = self.book.titles().await?;
        Ok(titles
            .iter()
            .map(|(id, title)| format!("{id}. {title}"))
            .collect::<Vec<_>>()
            .join("\n"))
    }

    #[resource(uri = "ui://notes/board", title = "Notebook board")]
    #[describe("The notebook as a board (MCP Apps): its notes, and a form that adds one")]
    pub fn board_page(&self) -> &'static str {
        include_str!("apps/notes-board.html")
    }

    #[describe("Replace the text of a note")]
    pub async fn edit_note(
        &self,
        #[param("The note's number")] id: u32,
        #[param("The new text")] body: String,
        ctx: Context,
    ) -> Result<String, ToolError> {
        if !self.book.edit(id, body).await? {
            return Err(no_note(id));
        }
        changed(&ctx, &format!("notes://{id}"));
        Ok(format!("note {id} updated"))
    }

    #[describe("Delete a note, once the user confirms by typing its title")]
    #[tool(destructive)]
    pub async fn delete_note(
        &self,
        #[param("The note's number")] id: u32,
        ctx: Context,
    ) -> Result<String, ToolError> {
        // Nothing is held while the user answers (it may take minutes, and
        // in 2026-07-28 the answer may come to another instance): the title
        // read now is checked again when the note is deleted.
        let title = match self.book.get(id).await? {
            Some(note) => note.title,
            None => return Err(no_note(id)),
        };
        let answer = ctx
            .ask("confirm_delete")
            .elicit::<Confirm>(format!(
                "Delete note {id} (\"{title}\")? Type its title to confirm."
            ))
            .await?;
        match answer {
            Elicited::Accepted(c) if c.title == title => {
                match self.book.delete_titled(id, &title).await? {
                    Deleted::Done => {
                        changed(&ctx, &format!("notes://{id}"));
                        Ok(format!("note {id} deleted"))
                    }
                    Deleted::Changed => Ok(format!(
                        "note {id} changed while you were confirming (it is no longer \"{title}\"): kept"
                    )),
                    Deleted::Gone => Ok(format!(
                        "note {id} was deleted while you were confirming"
                    )),
                }
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
        let note = self.book.get(id).await?.ok_or_else(|| no_note(id))?;
        let question = format!("Suggest a short title for this note:\n{}", note.body);
        #[allow(deprecated)] // sampling, shown on purpose (deprecated since 2026-07-28)
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
    pub async fn summarise(
        &self,
        id: u32,
        style: String,
    ) -> Result<Vec<PromptMessage>, RequestError> {
        let note = self
            .book
            .get(id)
            .await?
            .ok_or_else(|| RequestError::invalid_params(format!("there is no note {id}")))?;
        Ok(vec![
            PromptMessage::user(ContentBlock::resource(ResourceContents::text(
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
    pub async fn index(&self) -> Result<String, RequestError> {
        Ok(self
            .book
            .titles()
            .await?
            .iter()
            .map(|(id, title)| format!("{id}: {title}"))
            .collect::<Vec<_>>()
            .join("\n"))
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
    pub async fn note(&self, id: u32) -> Result<String, RequestError> {
        let note = self
            .book
            .get(id)
            .await?
            .ok_or_else(RequestError::not_found)?;
        Ok(format!("# {}\n\n{}", note.title, note.body))
    }

    #[complete(note, id)]
    pub async fn note_ids(&self, typed: &str) -> Result<Vec<String>, RequestError> {
        Ok(self
            .book
            .titles()
            .await?
            .into_iter()
            .map(|(id, _)| id.to_string())
            .filter(|id| id.starts_with(typed))
            .collect())
    }
}

use mcp_examples::command_line;
use mcp_examples::stderr_logs;

use mcp_examples::several;

/// The notes MCP server: stdio without arguments.
#[derive(Debug, Parser)]
#[command(
    name = "notes",
    version,
    after_help = "Examples:\n  \
        notes                                       # MCP over stdio\n  \
        notes --http 127.0.0.1:3000\n  \
        notes --http 127.0.0.1:0 --redis redis://127.0.0.1:6379/0"
)]
struct Args {
    /// Serve Streamable HTTP (both eras) at `http://ADDR/mcp` instead of
    /// stdio (port 0 picks a free port; stderr names it).
    #[arg(long, value_name = "ADDR")]
    http: Option<String>,
    /// With --http: run as one of several instances of one service, the
    /// sessions and the notes themselves kept in this Redis.
    #[arg(long, value_name = "URL", requires = "http")]
    redis: Option<String>,
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let args = command_line::parse::<Args>();
    let result = run(&args).await;
    stderr_logs::report("notes", result)
}

async fn run(args: &Args) -> Result<(), oxmcp_server::Error> {
    stderr_logs::init("warn");
    let builder = Server::builder("notes", env!("CARGO_PKG_VERSION"))
        .instructions("A notebook. Read notes as resources (notes://index, notes://{id}); change them with the tools.");
    let memory = Notes::in_memory;
    let Some(addr) = &args.http else {
        return builder.toolbox(memory()).build().serve_stdio().await;
    };
    stderr_logs::http_addr("notes", addr);
    let Some(url) = &args.redis else {
        let server = builder.toolbox(memory()).build();
        return mcp_examples::serve::http_until_stopped(
            server,
            addr.as_str(),
            HttpConfig::default(),
        )
        .await;
    };
    // Several instances, one service: the framework's state in the
    // store, the notes in the same Redis.
    let (store, keys) = several::connect("notes", url).await;
    let book = match Notebook::redis(url).await {
        Ok(book) => book,
        Err(e) => {
            eprintln!("notes: cannot keep the notes in Redis at {url}: {e}");
            std::process::exit(1);
        }
    };
    let server = builder
        .toolbox(Notes { book })
        .request_state_keys(keys)
        .build();
    mcp_examples::serve::http_until_stopped(
        server,
        addr.as_str(),
        HttpConfig::default().store(store),
    )
    .await
}
