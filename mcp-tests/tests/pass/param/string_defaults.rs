//! A string literal as a parameter's `default`, in every position: a tool
//! method (both `#[param]` forms, `fn` and `async fn`), a free function, a
//! prompt, an `Option<String>` (the default is `Some`), another
//! `From<&'static str>` type, and a declared tool; integer literals still
//! take the parameter's type.
#![deny(warnings)]

use std::borrow::Cow;

use oxmcp_server::{tool, ToolBox};

#[derive(Default)]
pub struct Greeter;

#[tool(description = "Greetings")]
impl Greeter {
    #[describe("Greet someone")]
    #[param(greeting, "The greeting", default = "Hello")]
    pub fn greet(
        &self,
        greeting: String,
        #[param("Who", default = "world")] who: String,
        #[param("Punctuation", default = "!")] mark: Option<String>,
        #[param("Separator", default = ", ")] separator: Cow<'static, str>,
        #[param("Repeats", default = 1)] times: u64,
        #[param("Offset", default = -3)] offset: i8,
    ) -> String {
        format!(
            "{greeting}{separator}{who}{} x{times} {offset}",
            mark.unwrap_or_default()
        )
    }

    #[describe("Greet later")]
    pub async fn later(
        &self,
        #[param("Who", default = "world")] who: String,
        #[param("Punctuation", default = "?")] mark: Option<String>,
    ) -> String {
        format!("{who}{mark:?}")
    }

    #[prompt]
    #[describe("Ask for a greeting")]
    #[param(tone, "The tone", default = "warm")]
    pub fn ask(
        &self,
        tone: String,
        #[param("Language", default = "en")] language: Option<String>,
        #[param("Lines", default = 2)] lines: u8,
    ) -> String {
        format!("{tone} {language:?} {lines}")
    }
}

/// One tool from a function.
#[tool]
#[describe("Say goodbye")]
#[param(who, "Who", default = "world")]
pub fn goodbye(who: String, #[param("Word", default = "Bye")] word: Option<String>) -> String {
    format!("{word:?} {who}")
}

/// The same tool, declared by a client.
#[oxmcp_client::tool(description = "Greetings, declared")]
pub trait RemoteGreeter {
    #[describe("Greet someone")]
    #[param(greeting, "The greeting", default = "Hello")]
    async fn greet(
        &self,
        greeting: String,
        #[param("Who", default = "world")] who: String,
        #[param("Punctuation", default = "!")] mark: Option<String>,
        #[param("Repeats", default = 1)] times: u64,
    ) -> String;
}

async fn call<C: oxmcp_server::types::call::ToolCaller>(
    local: &GreeterClient<C>,
    remote: &RemoteGreeterClient<C>,
) {
    let _ = local
        .greet(None, Some("you".into()), None, None, Some(2), None)
        .await;
    let _ = remote.greet(Some("Hi".into()), None, None, Some(2)).await;
}

pub fn main() {
    let _ = Greeter.into_tools();
    let _ = GoodbyeTool.into_tools();
    let _ = call::<std::sync::Arc<oxmcp_client::Client>>;
}
