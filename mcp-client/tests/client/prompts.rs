//! Prompts, resources, templates, completion, subscriptions and the
//! server's questions (sampling), from our client against our server in the
//! same process, in both eras.

use crate::support;

use std::time::Duration;

use oxmcp_client::types::completion::CompletionRef;
use oxmcp_client::types::modern::SubscriptionFilter;
use oxmcp_client::{Client, Era, Error};
use oxmcp_server::types::sampling::{CreateMessageParams, SamplingMessage};
use oxmcp_server::{tool, Context, Server, ToolError};
use serde_json::{json, Value};
use support::in_process;

#[derive(Debug)]
pub struct Library;

#[tool(description = "Prompts, resources and a question for the model")]
impl Library {
    #[prompt]
    #[describe("Greets someone")]
    #[param(name, "Who")]
    pub fn greet(&self, name: String) -> String {
        format!("Say hello to {name}")
    }

    #[complete(greet, name)]
    pub fn names(&self, typed: &str) -> Vec<&'static str> {
        ["Ada", "Alan", "Grace"]
            .into_iter()
            .filter(|n| n.starts_with(typed))
            .collect()
    }

    #[resource(uri = "lib://readme", mime_type = "text/plain")]
    #[describe("The readme")]
    pub fn readme(&self) -> &'static str {
        "read me"
    }

    #[resource(template = "lib://books/{id}", mime_type = "text/plain")]
    #[describe("A book")]
    pub fn book(&self, id: u32) -> String {
        format!("book {id}")
    }

    #[describe("Asks the client's model")]
    pub async fn ask(
        &self,
        #[param("The question")] q: String,
        ctx: Context,
    ) -> Result<String, ToolError> {
        #[allow(deprecated)] // sampling, tested on purpose
        let answer = ctx
            .ask("question")
            .sample(CreateMessageParams::new(
                vec![SamplingMessage::user_text(q)],
                10,
            ))
            .await?;
        Ok(format!(
            "model says {}",
            answer.content.text().unwrap_or_default()
        ))
    }
}

async fn connect(era: Era) -> Client {
    let server = Server::builder("library", "1.0").toolbox(Library).build();
    #[allow(deprecated)] // sampling, tested on purpose
    let builder = Client::builder().protocol(era).sampling_handler(|params: Value| async move {
        let question = params["messages"][0]["content"]["text"].as_str().unwrap_or_default().to_owned();
        Ok(json!({"role": "assistant", "content": {"type": "text", "text": format!("42 ({question})")}, "model": "test"}))
    });
    in_process(server, builder).await.0
}

#[tokio::test]
async fn prompts_resources_completion_and_questions_work_in_each_era() {
    for era in [Era::Legacy, Era::Modern] {
        let client = connect(era).await;
        let prompts = client.list_prompts().await.unwrap();
        assert_eq!(prompts.len(), 1, "{era:?}");
        assert_eq!(
            prompts[0].arguments.as_ref().unwrap()[0].required,
            Some(true)
        );
        let got = client.get_prompt("greet", [("name", "Ada")]).await.unwrap();
        assert_eq!(got.messages[0].content.as_text(), Some("Say hello to Ada"));
        let missing = client
            .get_prompt("greet", Vec::<(String, String)>::new())
            .await
            .unwrap_err();
        assert!(
            matches!(&missing, Error::Protocol(e) if e.code == -32602),
            "{missing:?}"
        );

        assert_eq!(
            client.list_resources().await.unwrap()[0].uri,
            "lib://readme"
        );
        assert_eq!(
            client.list_resource_templates().await.unwrap()[0].uri_template,
            "lib://books/{id}"
        );
        let read = client.read_resource("lib://books/7").await.unwrap();
        assert_eq!(
            serde_json::to_value(&read.contents[0]).unwrap()["text"],
            "book 7"
        );
        let unknown = client.read_resource("lib://nothing").await.unwrap_err();
        assert!(
            matches!(&unknown, Error::Protocol(e) if e.code == -32602 && e.data.as_ref().unwrap()["uri"] == "lib://nothing"),
            "{unknown:?}"
        );

        let names = client
            .complete(
                CompletionRef::Prompt {
                    name: "greet".into(),
                    title: None,
                },
                "name",
                "A",
                Vec::<(String, String)>::new(),
            )
            .await
            .unwrap();
        assert_eq!(names.values, ["Ada", "Alan"]);

        // The typed client renders the prompt with its Rust arguments.
        let typed = LibraryClient::new(&client)
            .greet("Grace".to_owned())
            .await
            .unwrap();
        assert_eq!(
            typed.messages[0].content.as_text(),
            Some("Say hello to Grace")
        );

        // The server's question reaches the sampling handler: a request in the
        // legacy era, an input round in the modern one.
        let r = client
            .call_tool("ask", json!({"q": "meaning?"}))
            .await
            .unwrap();
        assert_eq!(
            r.content[0].as_text(),
            Some("model says 42 (meaning?)"),
            "{era:?}"
        );
        client.close().await;
    }
}

#[tokio::test]
async fn subscriptions_in_each_era() {
    let server = Server::builder("library", "1.0").toolbox(Library).build();
    let handle = server.handle();
    let (client, _, _) = in_process(server.clone(), Client::builder().protocol(Era::Legacy)).await;
    let mut notes = client.notifications();
    client.subscribe_resource("lib://readme").await.unwrap();
    assert!(client.subscribe_resource("lib://nothing").await.is_err());
    handle.resource_updated("lib://readme");
    let got = tokio::time::timeout(Duration::from_secs(5), notes.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(got.method, "notifications/resources/updated");
    client.unsubscribe_resource("lib://readme").await.unwrap();
    client.close().await;

    let (client, _, _) = in_process(server, Client::builder().protocol(Era::Modern)).await;
    assert!(
        client.subscribe_resource("lib://readme").await.is_err(),
        "modern clients listen instead"
    );
    let mut sub = client
        .listen(SubscriptionFilter {
            resource_subscriptions: Some(vec!["lib://readme".into()]),
            ..SubscriptionFilter::default()
        })
        .await
        .unwrap();
    handle.resource_updated("lib://readme");
    let got = tokio::time::timeout(Duration::from_secs(5), sub.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(got.method, "notifications/resources/updated");
    client.close().await;
}

/// The library as a client declares it, without its code.
#[oxmcp_client::tool(description = "The library, declared")]
trait LibraryDecl {
    #[prompt]
    #[describe("Greets someone")]
    async fn greet(&self, #[param("Who")] name: String) -> oxmcp_client::types::GetPromptResult;

    #[describe("Asks the client's model")]
    async fn ask(&self, #[param("The question")] q: String) -> String;
}

/// A declaration the server does not match: a prompt argument it does not take.
#[oxmcp_client::tool(description = "The library, declared wrongly")]
trait WrongDecl {
    #[prompt]
    #[describe("Greets someone")]
    async fn greet(
        &self,
        #[param("Who")] name: String,
        #[param("How")] tone: Option<String>,
    ) -> oxmcp_client::types::GetPromptResult;

    #[prompt]
    #[describe("Not there")]
    async fn missing(&self) -> oxmcp_client::types::GetPromptResult;
}

#[tokio::test]
async fn declared_prompts_are_checked_on_connect_and_called_typed() {
    let client = connect(Era::Modern).await;
    let declared = LibraryDeclClient::connect(&client).await.unwrap();
    let got = declared.greet("Alan".to_owned()).await.unwrap();
    assert_eq!(got.messages[0].content.as_text(), Some("Say hello to Alan"));
    let Err(Error::Incompatible(diffs)) = WrongDeclClient::connect(&client).await else {
        panic!("a wrong declaration connected");
    };
    assert_eq!(
        diffs,
        [
            "prompt `greet`: the server takes no argument `tone`",
            "prompt `missing` is not offered by the server"
        ]
    );
    client.close().await;
}

/// A declaration that leaves out an argument the server requires.
#[oxmcp_client::tool(description = "The library, an argument left out")]
trait UndeclaredArgDecl {
    #[prompt]
    #[describe("Greets someone")]
    async fn greet(&self) -> oxmcp_client::types::GetPromptResult;
}

/// A declaration that makes an argument the server requires optional.
#[oxmcp_client::tool(description = "The library, an argument made optional")]
trait OptionalArgDecl {
    #[prompt]
    #[describe("Greets someone")]
    async fn greet(
        &self,
        #[param("Who")] name: Option<String>,
    ) -> oxmcp_client::types::GetPromptResult;
}

#[tokio::test]
async fn declared_prompts_that_do_not_send_a_required_argument_are_refused_on_connect() {
    for era in [Era::Legacy, Era::Modern] {
        let client = connect(era).await;
        let Err(Error::Incompatible(diffs)) = UndeclaredArgDeclClient::connect(&client).await
        else {
            panic!("{era:?}: a declaration without the required argument connected");
        };
        assert_eq!(
            diffs,
            ["prompt `greet`: the server requires argument `name`, which is not declared"],
            "{era:?}"
        );
        let Err(Error::Incompatible(diffs)) = OptionalArgDeclClient::connect(&client).await else {
            panic!("{era:?}: a declaration with the required argument optional connected");
        };
        assert_eq!(
            diffs,
            ["prompt `greet`: argument `name` is declared optional, but the server requires it"],
            "{era:?}"
        );
        // The matching declaration still connects on the same client.
        assert!(LibraryDeclClient::connect(&client).await.is_ok(), "{era:?}");
        client.close().await;
    }
}

#[tokio::test]
async fn over_http_in_each_era_with_the_bad_inputs() {
    use oxmcp_server::http::HttpConfig;
    use support::HttpServer;

    let http = HttpServer::start(
        Server::builder("library", "1.0").toolbox(Library).build(),
        HttpConfig::default(),
    )
    .await;
    for era in [Era::Legacy, Era::Modern] {
        #[allow(deprecated)] // sampling, tested on purpose
        let client = Client::builder()
            .protocol(era)
            .sampling_handler(|_params: Value| async move {
                Ok(json!({"role": "assistant", "content": {"type": "text", "text": "over HTTP"}, "model": "test"}))
            })
            .connect_http(&http.url("/mcp"))
            .await
            .unwrap();
        let got = client.get_prompt("greet", [("name", "Ada")]).await.unwrap();
        assert_eq!(
            got.messages[0].content.as_text(),
            Some("Say hello to Ada"),
            "{era:?}"
        );
        let unknown = client
            .get_prompt("nope", Vec::<(String, String)>::new())
            .await
            .unwrap_err();
        assert!(
            matches!(&unknown, Error::Protocol(e) if e.code == -32602),
            "{era:?}: {unknown:?}"
        );
        let read = client.read_resource("lib://books/3").await.unwrap();
        assert_eq!(
            serde_json::to_value(&read.contents[0]).unwrap()["text"],
            "book 3"
        );
        let missing = client.read_resource("lib://books/x").await.unwrap_err();
        assert!(
            matches!(&missing, Error::Protocol(e) if e.code == -32602 && e.data.as_ref().unwrap()["uri"] == "lib://books/x"),
            "{era:?}: {missing:?}"
        );
        let names = client
            .complete(
                CompletionRef::Prompt {
                    name: "greet".into(),
                    title: None,
                },
                "name",
                "G",
                Vec::<(String, String)>::new(),
            )
            .await
            .unwrap();
        assert_eq!(names.values, ["Grace"]);
        // Legacy: a request on the POST's SSE stream; modern: an input round.
        let r = client.call_tool("ask", json!({"q": "?"})).await.unwrap();
        assert_eq!(
            r.content[0].as_text(),
            Some("model says over HTTP"),
            "{era:?}"
        );
        if era == Era::Modern {
            let forged = client
                .request(
                    "tools/call",
                    json!({"name": "ask", "arguments": {"q": "?"}, "requestState": "e30.AAAA"}),
                )
                .await
                .unwrap_err();
            assert!(
                matches!(&forged, Error::Protocol(e) if e.code == -32602),
                "{forged:?}"
            );
        }
        client.close().await;
    }
    http.stop().await;
}
