//! Procedural macros of the MCP framework: [`macro@tool`], [`macro@describe`]
//! and [`macro@param`].
//!
//! Use them through `oxmcp_server`, which re-exports them and provides the
//! runtime the generated code calls (`oxmcp_server::__private`).
//!
//! The pipeline: `ast` parses the item into a model and strips the helper
//! attributes, `check` validates the model, then `expand` emits the item with
//! the generated `ToolBox` impl and typed client (`client`), or `fallback`
//! emits the item with a stub impl (and a client with `unreachable!()`
//! bodies) beside every error collected by `ctxt`. A `#[tool]` trait goes
//! the same way, but only its client is emitted.
#![warn(missing_docs)]
// Token-stream code passes `TokenStream`s and syn nodes by value and builds
// long `quote!` blocks; these pedantic lints fight that style.
#![allow(clippy::needless_pass_by_value)]

mod ast;
mod attr;
mod check;
mod client;
mod ctxt;
mod expand;
mod fallback;
mod glue;
mod items;
mod param_rules;
mod standalone;
mod symbol;
mod tokens;

use proc_macro::TokenStream;

/// Turns the `pub fn`s of an impl block into MCP tools, or one function into a tool.
///
/// # On an impl block: a toolbox
///
/// ```
/// use oxmcp_server::{tool, Context, Json, ToolError};
///
/// #[derive(Debug, serde::Serialize, schemars::JsonSchema)]
/// pub struct Hit {
///     pub title: String,
/// }
///
/// #[derive(Default)]
/// pub struct Calculator {
///     memory: f64,
/// }
///
/// #[tool(description = "Arithmetic on two numbers, with one memory register")]
/// impl Calculator {
///     #[describe("Add two numbers")]
///     #[param(a, "The first number")] // above the method: #[param(name, "text")]
///     #[param(b, "The second number")]
///     pub fn add(&self, a: f64, b: f64) -> f64 {
///         a + b
///     }
///
///     #[describe("Store a value and return the previous one")]
///     pub async fn store(&mut self, #[param("Value to store")] value: f64) -> f64 {
///         std::mem::replace(&mut self.memory, value) // inline: #[param("text")]
///     }
///
///     #[describe("Search the archive")]
///     #[tool(read_only, open_world = false, title = "Archive search")]
///     pub async fn search(
///         &self,
///         #[param("Query text")] query: String,
///         #[param("Maximum results", default = 5)] max_results: u32, // optional, "default": 5
///         #[param("Only after this date")] since: Option<String>,    // optional
///         ctx: Context,                                              // injected, not in the schema
///     ) -> Result<Json<Vec<Hit>>, ToolError> {
///         ctx.progress(0.0, None); // progress, cancellation, asking the client
///         let _ = (max_results, since);
///         Ok(Json(vec![Hit { title: query }]))
///     }
///
///     fn helper(&self) {} // not `pub`: not a tool
/// }
/// ```
///
/// - `#[tool(description = "...")]` on the block is required: it is the
///   toolbox's description. The block must be an inherent impl (`impl T`).
/// - Every `pub fn` of the block is a tool. It takes `&self` (it then runs
///   concurrently with other calls) or `&mut self` (it runs alone); a
///   `pub fn` without a receiver (a constructor, say) belongs in another
///   impl block. Other fns are helpers and stay as they are.
/// - The block's generics pass through; the generated impl also requires
///   `T: Send + Sync + 'static`.
/// - It generates `impl ToolBox for T` (`NAME` is the type's name,
///   `DESCRIPTION` the block's); register a value with `.toolbox(value)`.
///
/// # A tool
///
/// - `#[describe("...")]`: what the tool does, for the model. Required.
/// - `#[tool(...)]` on the method, optional: `name = "..."` (the wire name;
///   the fn's name by default; 1 to 128 characters of `[A-Za-z0-9_.-]`),
///   `title = "..."` (a display name), and the annotations `read_only`,
///   `destructive`, `idempotent`, `open_world` (a bare flag is `true`;
///   write `destructive = false` for `false`).
/// - `#[tool(timeout = "30s")]`: how long one call may run (a whole number
///   and `ms`, `s`, `m` or `h`; above zero, at most a day), beside the
///   server's `call_timeout`, which it overrides. A call past it is cancelled
///   and answered with an `isError` result that says so.
/// - `#[tool(requires_client(sampling, elicitation, roots))]`: the client
///   capabilities the tool cannot work without, any of `sampling`,
///   `elicitation` and `roots`, each once. A call from a client that did not
///   declare all of them is answered -32021 `MissingRequiredClientCapability`
///   (`data.requiredCapabilities`: `{"sampling": {}}`, what is missing)
///   before the tool runs, in both eras (the capabilities of `initialize` in
///   a legacy session, those of the request's `_meta` in 2026-07-28). A tool
///   that can do without one checks `ctx.client_capabilities()` instead.
///   The typed client is unchanged: its method is a plain call.
///
///   ```
///   use oxmcp_server::{tool, Context, ToolError};
///   use oxmcp_server::types::sampling::{CreateMessageParams, SamplingMessage};
///
///   pub struct Writer;
///
///   #[tool(description = "Writing with the client's model")]
///   impl Writer {
///       #[describe("Summarize a text")]
///       #[tool(requires_client(sampling))]
///       pub async fn summarize(&self, #[param("The text")] text: String, ctx: Context) -> Result<String, ToolError> {
///           let ask = SamplingMessage::user_text(format!("Summarize:\n{text}"));
///           #[allow(deprecated)] // sampling: deprecated since MCP 2026-07-28
///           let answer = ctx.sample(CreateMessageParams::new(vec![ask], 200)).await?;
///           Ok(answer.content.text().unwrap_or_default().to_owned())
///       }
///   }
///   ```
/// - `#[tool(scopes("notes:write"))]`: the OAuth scopes a caller's token
///   needs, each a string once (on an HTTP server with authorization,
///   `oxmcp_server::auth`). A caller whose token lacks one does not see the
///   tool in `tools/list`, and calling it is answered with the step-up
///   challenge (HTTP 403, `error="insufficient_scope"`, the scopes named)
///   before the tool runs. `scopes(...)` in the impl block's `#[tool(...)]`
///   applies to every tool, prompt, resource and template of the block,
///   added to each one's own. Without authorization (stdio, or no token
///   verified) scopes change nothing.
/// - `sync` or `async`; an `async` tool's future must be `Send`.
/// - `#[cfg(...)]` on a method applies to the tool: a method compiled out is
///   not a tool. Other attributes (doc comments, `#[allow]`, `#[inline]`,
///   `#[deprecated]`, ...) stay on the method untouched; doc comments are not
///   descriptions.
///
/// # Parameters
///
/// - Each argument is a parameter of the tool, named after the argument
///   (`r#type` is `type`); its pattern must be a plain name.
/// - Each needs a description, in either form: `#[param(name, "text")]`
///   above the method, or `#[param("text")]` on the argument.
/// - `default = <expr>` makes it optional with that value (and `"default"` in
///   the schema): `#[param("text", default = 5)]`, `#[param(name, "text", default = 5)]`.
///   An `Option<T>` parameter is optional too.
/// - `rename = "..."` gives it another name on the wire, where JSON wants
///   camelCase: `#[param("Preview only", rename = "dryRun")] dry_run: bool`,
///   or `#[param(dry_run, "Preview only", rename = "dryRun")]` above the
///   method. `dryRun` is then the schema's property, its `required` entry
///   and the key read from the call's arguments (and sent by the typed
///   client); the Rust argument, the typed client's argument and the name
///   in `#[param(name, ...)]` stay `dry_run`. It combines with `default` in
///   any order. A name on the wire is 1 to 64 characters of
///   `[A-Za-z0-9_.-]`, and one tool's are distinct.
/// - Its type must be owned and implement `serde::de::DeserializeOwned` and
///   `schemars::JsonSchema` (and `serde::Serialize` with a default).
///   `String` is a string, integers are integers, floats numbers, `bool` a
///   boolean, `Vec<T>` an array, `HashMap<String, T>` an object.
/// - An argument without a description is not a parameter: the server
///   injects it. `Context` and `&Context` (under any name: `use ... as`, a
///   type alias) receive the call's context (progress, logging,
///   cancellation); any other undescribed argument is a compile error, on
///   its type, that says to describe it.
/// - A `default` is written into the schema, so its type must implement
///   `Serialize` (a compile error on the default says so); a string literal
///   default suits a `String` parameter (or an `Option<String>`, as `Some`):
///   `#[param("Separator", default = ", ")]`.
/// - Rules, after the description in either form, go into the schema and
///   are checked before the tool runs (a call that breaks one is an
///   `isError` result naming the parameter and the rule):
///   `min = 1, max = 16` (`minimum`/`maximum`; `exclusive_min`/`exclusive_max`
///   for strict bounds) on a number; `min_length = 1, max_length = 64` on a
///   string (characters: `minLength`/`maxLength`) or a `Vec` (items:
///   `minItems`/`maxItems`); `pattern = "^[a-z]+$"` on a string (a Rust
///   `regex`, matched anywhere; needs the `validation` feature of
///   oxmcp-server); `one_of("short", "long")` (`enum`) on any type that
///   serializes, the values written as values of the parameter (of `T`, for
///   an `Option<T>`). Integers also carry their natural bounds (`u8` is 0 to
///   255).
/// - Arguments the tool does not declare are refused (an `isError` result
///   naming them and the accepted ones); `#[tool(allow_unknown_arguments)]`
///   on the method ignores them instead.
///
/// # Return types
///
/// Anything that implements `IntoToolResult`: `()`, `String`, `&str`,
/// numbers and `bool` (as text), `Json<T>` (structured content, with an
/// `outputSchema` from `T`), `Content`, `Vec<Content>`, `CallToolResult`, and
/// `Result<T, E>` of one of these where `E: Into<ToolError>` (an `Err`
/// becomes a result with `isError: true`).
///
/// # On a function: one tool
///
/// ```
/// use oxmcp_server::{tool, ToolBox};
///
/// #[tool(read_only, idempotent)] // optional: name, title, annotations
/// #[describe("Add two numbers")]
/// pub fn add_numbers(#[param("The first number")] a: f64, #[param("The second number")] b: f64) -> f64 {
///     a + b
/// }
///
/// // The function stays as written; `AddNumbersTool` is a unit struct that
/// // implements `ToolBox`: register it with `.toolbox(AddNumbersTool)`.
/// assert_eq!(AddNumbersTool::NAME, "add_numbers");
/// assert_eq!(add_numbers(1.0, 2.0), 3.0);
/// ```
///
/// The struct is named after the function in upper camel case plus `Tool`,
/// with the function's visibility and `#[cfg]`s.
///
/// # The typed client of a toolbox
///
/// Beside `impl ToolBox for T`, an impl block gets a client, `TClient<C>`:
/// one `async` method per tool, with the tool's arguments and a typed
/// result, over any `C: ToolCaller` (`oxmcp_server::types::call::ToolCaller`:
/// a connected network client, or a server in the same process).
///
/// ```
/// use oxmcp_server::types::call::{CallError, ToolCaller};
/// use oxmcp_server::{tool, Json, ToolError};
///
/// #[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
/// pub struct Stats {
///     pub mean: f64,
/// }
///
/// pub struct Calculator;
///
/// #[tool(description = "Arithmetic")]
/// impl Calculator {
///     #[describe("Add two numbers")]
///     pub fn add(&self, #[param("The first")] a: f64, #[param("The second")] b: f64) -> f64 {
///         a + b
///     }
///
///     #[describe("The mean of some values")]
///     pub fn stats(
///         &self,
///         #[param("The values")] values: Vec<f64>,
///         #[param("Scale", default = 1.0)] scale: f64,
///     ) -> Result<Json<Stats>, ToolError> {
///         let mean = values.iter().sum::<f64>() / values.len() as f64 * scale;
///         Ok(Json(Stats { mean }))
///     }
/// }
///
/// // Generated:
/// // pub struct CalculatorClient<C> { .. }
/// // impl<C: ToolCaller> CalculatorClient<C> {
/// //     pub fn new(caller: C) -> Self;
/// //     pub fn caller(&self) -> &C;
/// //     pub async fn add(&self, a: f64, b: f64) -> Result<f64, CallError>;
/// //     pub async fn stats(&self, values: Vec<f64>, scale: Option<f64>)
/// //         -> Result<Stats, CallError>;
/// //     (the types written through `ToolOutput<C>`, with bounds on `C`)
/// // }
/// async fn mean_of_sum<C: ToolCaller>(caller: C) -> Result<f64, CallError> {
///     let calculator = CalculatorClient::new(caller);
///     let sum = calculator.add(1.0, 2.0).await?;
///     Ok(calculator.stats(vec![sum, 5.0], None).await?.mean)
/// }
/// ```
///
/// - Arguments: the tool's parameters, by value, same names (no injected
///   `Context`).
///   An `Option<T>` stays `Option<T>`; a defaulted `T` becomes `Option<T>`.
///   `None` leaves the argument out, so the server applies its default.
/// - Results, by the tool's return type, through the trait
///   `oxmcp_types::call::ToolOutput` (so an alias such as `type Res<T> =
///   Result<T, MyError>` or a renamed `Json` works): `String`/`&str`/`Cow<str>`
///   → `String` (the text); numbers, `bool`, `char` → parsed from the text;
///   `()` → `()`; `Json<T>` → `T`, decoded from `structuredContent`
///   (unwrapped from `{"result": ...}` when the server wrapped it: when `T`'s
///   schema is not an object, the server's own rule); `Content`/`Vec<Content>`
///   → `Vec<ContentBlock>`; `CallToolResult` → `CallToolResult`;
///   `Result<T, E>` → as `T`. A return type of the server's own (implementing
///   `IntoToolResult` only) leaves the method uncallable: the compiler says so
///   where it is called.
/// - Errors (`CallError`): an `isError` result is `CallError::Tool`, for every
///   tool; a result of the wrong shape `CallError::Decode`; and whatever the
///   caller reports (transport, protocol, timeout).
/// - A server needs only `Serialize` for its `Json<T>` results and only
///   `Deserialize` for its arguments; the client needs the other halves.
///   Those bounds are on the methods (`where fn(&()) -> Json<Stats>: Returns<C>`), so an
///   unused client compiles and a method that cannot work is refused where it
///   is called, with the missing trait named.
/// - The client is `pub` (an attribute on an impl block cannot see the
///   type's visibility), documented, `Debug` and `Clone` when `C` is.
///   `#[tool(description = "...", client = "pub(crate)")]` sets another
///   visibility; `client = false` generates none. A generic impl gives a
///   generic client (`RegisterClient<T, C>`). A tool method may not be
///   named `new` or `caller` while the client exists.
///
/// # Prompts, resources and completion in a toolbox
///
/// Other methods of the block become other things when marked:
///
/// - `#[prompt]` (or `#[prompt(name = "...", title = "...")]`): a prompt, with
///   the vocabulary of tools (`#[describe]` required, every argument
///   described, `Option` and `default` optional, `Context` injected).
///   Arguments are strings on the wire, parsed with `FromStr`; a type that
///   cannot parse from a string is a compile error on the type. It returns a
///   `String`, `PromptMessage`s, a `GetPromptResult`, or a `Result<_,
///   RequestError>` of one of these.
/// - `#[resource(uri = "...")]`: a static resource; `#[resource(template =
///   "...")]`: an RFC 6570 template whose variables bind the parameters of the
///   same names (checked at compile time: a variable without a parameter, a
///   parameter without a variable, an invalid template). Also `mime_type`,
///   `name`, `title`. It returns text, bytes (`Vec<u8>`), `ResourceContents`,
///   or a `Result` of these.
/// - `#[complete(target, argument)]`: suggests values for an argument of the
///   prompt (or a variable of the template) defined by method `target`; it may
///   be private and takes `&str`/`String` (what was typed), `&Completing`,
///   `Context`.
/// - `#[tool(scopes("..."))]` on a prompt, a resource or a template, as on
///   a tool (and the block's `scopes`): a caller whose token lacks one does
///   not see it in `prompts/list`, `resources/list` or
///   `resources/templates/list`, and `prompts/get`, `resources/read` (a
///   template's scopes guard every URI it matches), `resources/subscribe`,
///   `subscriptions/listen` for its updates and `completion/complete` of its
///   arguments are answered with the step-up challenge (403). A `#[complete]`
///   function takes no `scopes`: it needs those of what it completes.
///
/// ```
/// use oxmcp_server::{tool, RequestError};
///
/// pub struct Books;
///
/// #[tool(description = "A small library")]
/// impl Books {
///     #[prompt]
///     #[describe("Ask for a book recommendation")]
///     #[param(genre, "The genre")]
///     pub fn recommend(&self, genre: String) -> String {
///         format!("Recommend a {genre} book.")
///     }
///
///     #[complete(recommend, genre)]
///     fn genres(&self, typed: &str) -> Vec<&'static str> {
///         ["crime", "poetry"].into_iter().filter(|g| g.starts_with(typed)).collect()
///     }
///
///     #[resource(template = "books://{isbn}", mime_type = "text/plain")]
///     #[describe("One book, by ISBN")]
///     #[tool(scopes("books:read"))] // with authorization, only for such tokens
///     pub fn book(&self, isbn: u64) -> Result<String, RequestError> {
///         if isbn == 0 {
///             return Err(RequestError::not_found());
///         }
///         Ok(format!("book {isbn}"))
///     }
/// }
///
/// let server = oxmcp_server::Server::builder("books", "1.0").toolbox(Books).build();
/// assert_eq!(server.handle().prompt_names(), ["recommend"]);
/// ```
///
/// # On a trait: the tools of a server written elsewhere
///
/// A trait with the same vocabulary declares a foreign server's tools; the
/// macro generates `TraitClient<C>` with the same methods, plus `connect`,
/// which checks the server first. Use it through `oxmcp_client::tool`.
///
/// ```
/// use oxmcp_client::{tool, Json};
/// use oxmcp_client::types::call::{CallError, ToolCaller};
///
/// #[derive(Debug, serde::Deserialize)]
/// pub struct Day {
///     pub summary: String,
/// }
///
/// /// The weather service, written in Python.
/// #[tool(description = "Forecasts")]
/// pub trait Weather {
///     #[describe("The forecast for a city")]
///     async fn forecast(
///         &self,
///         #[param("The city")] city: String,
///         #[param("How many days", default = 3)] days: u32,
///     ) -> Json<Vec<Day>>;
///
///     #[describe("The temperature")]
///     #[tool(name = "get-temperature")]
///     async fn temperature(&self, #[param("The city")] city: String) -> f64;
/// }
///
/// async fn tomorrow<C: ToolCaller>(caller: C) -> Result<String, CallError> {
///     // Lists the server's tools and checks them against the declaration.
///     let weather = WeatherClient::connect(caller).await?;
///     let days = weather.forecast("Paris".to_owned(), Some(2)).await?;
///     Ok(days.into_iter().nth(1).map(|d| d.summary).unwrap_or_default())
/// }
/// ```
///
/// - Every method is a declared tool: `async fn name(&self, args...) -> Out;`,
///   no body, `#[describe]` required, each argument described (both
///   `#[param]` forms, `default = ...`), `#[tool(name = "...")]` for the
///   wire name. `#[cfg]`, doc comments, lint levels and `#[deprecated]`
///   carry over to the client.
/// - `Out` is in the server's vocabulary, and the client returns what a
///   toolbox's client would (`ToolOutput`): `String` (the text), a number or
///   `bool` (parsed), `()`, `Vec<ContentBlock>`, `CallToolResult`, or
///   `Json<T>` for any `T: DeserializeOwned`: the method returns `T`, decoded
///   from `structuredContent` (from `{"result": ...}` when the object itself
///   is not a `T`, as servers wrap non-object results). A bare `T` is refused
///   by the compiler, which says to write `Json<T>`. Arguments need
///   `Serialize + JsonSchema`. These are the client's own types, so the
///   bounds are checked at once.
/// - `TraitClient::connect(caller)` lists the server's tools and checks each
///   declared tool: offered; every property the server requires declared,
///   and not as optional; every declared non-optional argument a property of
///   the server's schema; JSON types compatible (the declared type's schema
///   is generated with schemars as the server does; an integer is a number;
///   a complex schema is accepted). A mismatch is `CallError::Incompatible`
///   listing every difference. `TraitClient::new(caller)` does not check.
/// - The client has the trait's visibility. The trait itself is not emitted:
///   it is a declaration that nothing implements (the client's methods return
///   `Result<_, CallError>`), so it cannot leak "unused trait" warnings or be
///   mistaken for a server interface. A method may not be named `new`,
///   `caller` or `connect`.
///
/// # Compile errors
///
/// Every mistake is reported at once, at the token at fault, with the fix;
/// the item is still emitted (with a stub `ToolBox` impl), so one mistake
/// gives one message:
///
/// - a tool without `#[describe]`, a duplicate `#[describe]`, an empty description;
/// - the block's `#[tool(description = ...)]` missing or empty;
/// - a parameter without a description (an argument that is not the context:
///   the compiler's `Inject` error, on its type), an empty one, or one
///   described twice;
/// - `#[param(x, ...)]` naming no parameter (the actual ones are listed);
/// - an empty `rename`, or one outside `[A-Za-z0-9_.-]{1,64}`; two
///   parameters of one tool with one name on the wire (after renames);
///   `rename` or `default` given twice in one `#[param]`;
/// - a rule the parameter's type cannot take (`min` on a string,
///   `max_length` on a number, `pattern` on a number, a `one_of` value of
///   another type: the compiler's trait error, at the rule); a range or a
///   length that leaves no value; both `min` and `exclusive_min`; a literal
///   `default` the rules refuse; a rule
///   given twice or with a value of the wrong kind; a rule on a prompt's or a
///   declared tool's argument; `allow_unknown_arguments` on the block or a
///   declared tool;
/// - a tool name outside `[A-Za-z0-9_.-]{1,128}`; two tools with one name;
/// - an unknown key in `#[tool(...)]` or `#[param(...)]` (with a suggestion);
/// - in `requires_client(...)`: an unknown capability (the valid ones are
///   listed), one listed twice, an empty list, or `requires_client` on the
///   block, on a prompt, resource or completion function;
/// - a `pub fn` without `&self`/`&mut self`; a generic tool; an argument that
///   is not a plain name, a reference, or `impl Trait`; `#[tool]` on a trait
///   impl, on a method, or on another item; a `#[tool]` block with no tools;
/// - `#[describe]`/`#[param]` on a private fn of the block;
/// - an argument type without `Deserialize`/`JsonSchema`, a default whose
///   type lacks `Serialize`, or a return type without `IntoToolResult`: the
///   compiler's trait error, on that type or default;
/// - a tool method named like a client method (`new`, `caller`); a bad
///   `client = ...`;
/// - calling a client method whose argument type lacks `Serialize`, or whose
///   `Json<T>` result lacks `Deserialize`: the trait error, at the call.
///
/// On a trait, besides the tool and parameter errors above: a method with a
/// body, not `async`, without `&self`; a return type that is a reference or
/// `impl Trait`, or that is no tool result (`ToolOutput`'s error, naming
/// `Json<T>`), or a `Json<T>` whose `T` lacks `Deserialize` (the trait error,
/// on the type); an argument type without `Serialize`/`JsonSchema`; annotations,
/// a title or `requires_client` on a declared tool; generics, supertraits, items other than
/// methods, attributes that cannot move to the client.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::tool(args.into(), input.into()).into()
}

/// Describes a tool, for the model: `#[describe("Add two numbers")]`.
///
/// Only valid on a method of a `#[tool]` impl block or trait, or on a
/// `#[tool]` function, which consumes it (see [`macro@tool`]); it may come
/// before or after `#[tool]` on a function. Used anywhere else it is a
/// compile error that names the fix.
#[proc_macro_attribute]
pub fn describe(args: TokenStream, input: TokenStream) -> TokenStream {
    standalone::describe(args.into(), input.into()).into()
}

/// Describes a tool's parameter: `#[param(a, "The first number")]` above the
/// method, or `#[param("The first number")]` on the argument; both take an
/// optional `default = <expr>`, an optional `rename = "wireName"` (its
/// name in the schema and on the wire: `#[param("Preview only", rename =
/// "dryRun")] dry_run: bool`), and rules checked before the tool runs
/// (`min = 1, max = 16`, `min_length`, `max_length`, `pattern = "..."`,
/// `one_of(...)`; see [`macro@tool`]).
///
/// Only valid inside a `#[tool]` item (see [`macro@tool`]); used anywhere
/// else it is a compile error that names the fix.
#[proc_macro_attribute]
pub fn param(args: TokenStream, input: TokenStream) -> TokenStream {
    standalone::param(args.into(), input.into()).into()
}

/// Makes a method of a `#[tool]` impl block a prompt (see [`macro@tool`]);
/// anywhere else it is a compile error that names the fix.
#[proc_macro_attribute]
pub fn prompt(args: TokenStream, input: TokenStream) -> TokenStream {
    standalone::kind_outside("prompt", args.into(), input.into()).into()
}

/// Makes a method of a `#[tool]` impl block a resource or a resource
/// template (see [`macro@tool`]); anywhere else it is a compile error.
#[proc_macro_attribute]
pub fn resource(args: TokenStream, input: TokenStream) -> TokenStream {
    standalone::kind_outside("resource", args.into(), input.into()).into()
}

/// Makes a method of a `#[tool]` impl block the completion function of a
/// prompt's argument or a template's variable (see [`macro@tool`]);
/// anywhere else it is a compile error.
#[proc_macro_attribute]
pub fn complete(args: TokenStream, input: TokenStream) -> TokenStream {
    standalone::kind_outside("complete", args.into(), input.into()).into()
}
