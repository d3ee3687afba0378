//! What a server asks of its client (sampling, elicitation, roots), the same
//! tool code in both eras: server→client requests on a legacy session,
//! input rounds with a signed `requestState` in the 2026-07-28 era.

use mcp_test_support::server as support;

use oxmcp_server::types::elicitation::ElicitParams;
use oxmcp_server::types::sampling::{CreateMessageParams, SamplingMessage};
use oxmcp_server::{ask::AskError, ask::Elicited, tool, Context, Server, ToolError};
use serde_json::{json, Value};
use support::{first_input_key, modern_meta, modern_meta_with, Client};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Name {
    /// Your name
    name: String,
}

#[allow(dead_code)] // only its schema is used: it is refused before any answer
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Nested {
    inner: Name,
}

#[derive(Debug)]
pub struct Asking;

#[tool(description = "Tools that ask the client")]
impl Asking {
    // The request-state test retries a call with its members reordered,
    // which takes a second member: `x`, which the tool does not read.
    #[tool(allow_unknown_arguments)]
    #[describe("Asks the model")]
    pub async fn ask_model(
        &self,
        #[param("The question")] q: String,
        ctx: Context,
    ) -> Result<String, ToolError> {
        #[allow(deprecated)] // tested on purpose
        let answer = ctx
            .sample(CreateMessageParams::new(
                vec![SamplingMessage::user_text(q)],
                10,
            ))
            .await?;
        Ok(format!(
            "model: {}",
            answer.content.text().unwrap_or_default()
        ))
    }

    #[describe("Asks two names, one after the other")]
    pub async fn two_names(&self, ctx: Context) -> Result<String, ToolError> {
        let first = ctx.ask("first").elicit::<Name>("First?").await?;
        let second = ctx.elicit::<Name>("Second?").await?;
        match (first, second) {
            (Elicited::Accepted(a), Elicited::Accepted(b)) => Ok(format!(
                "{} and {} (resumed: {})",
                a.name,
                b.name,
                ctx.resumed()
            )),
            _ => Ok("stopped".into()),
        }
    }

    #[describe("Lists the client's roots")]
    pub async fn roots(&self, ctx: Context) -> Result<String, ToolError> {
        #[allow(deprecated)] // tested on purpose
        let roots = ctx.roots().await?;
        Ok(roots
            .iter()
            .map(|r| format!("{} ({})", r.uri, r.name.as_deref().unwrap_or("-")))
            .collect::<Vec<_>>()
            .join(", "))
    }

    #[describe("Sends the user to a page to connect their calendar (URL-mode elicitation)")]
    pub async fn connect_calendar(&self, ctx: Context) -> Result<String, ToolError> {
        // No dedicated API yet: the parameters are written by hand.
        let params = ElicitParams {
            mode: Some("url".into()),
            message: "Connect your calendar".into(),
            requested_schema: None,
            url: Some("https://calendar.example.com/connect?session=42".into()),
            elicitation_id: Some("connect-42".into()),
            meta: None,
        };
        let answer = ctx.elicit_with(params).await?;
        Ok(format!("{:?}", answer.action))
    }

    #[describe("Asks with a form the spec cannot express")]
    pub async fn bad_form(&self, ctx: Context) -> String {
        match ctx.elicit::<Nested>("?").await {
            Err(AskError::Unaskable(why)) => format!("unaskable: {why}"),
            Err(other) => format!("unexpected: {other}"),
            Ok(_) => "unexpected: an answer".into(),
        }
    }
}

fn server() -> Server {
    Server::builder("asking", "1.0").toolbox(Asking).build()
}

#[tokio::test]
async fn legacy_sessions_get_a_request_and_the_answer_reaches_the_tool() {
    let mut c = Client::start(server());
    c.initialize_with("2025-11-25", &json!({"sampling": {}}))
        .await;
    c.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "ask_model", "arguments": {"q": "Capital of France?"}}}))
        .await;
    let asked = c.recv().await;
    assert_eq!(asked["method"], "sampling/createMessage");
    assert_eq!(
        asked["params"]["messages"][0]["content"]["text"],
        "Capital of France?"
    );
    assert_eq!(asked["params"]["maxTokens"], 10);
    // The client answers; the tool finishes with it.
    c.send(json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m"}}))
        .await;
    let (done, _) = c.recv_response(json!(1)).await;
    assert_eq!(done["result"]["content"][0]["text"], "model: Paris");

    // The client refuses: the tool sees the refusal (an isError result here).
    c.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ask_model", "arguments": {"q": "?"}}}))
        .await;
    let asked = c.recv().await;
    c.send(json!({"jsonrpc": "2.0", "id": asked["id"], "error": {"code": -1, "message": "user rejected sampling"}}))
        .await;
    let (done, _) = c.recv_response(json!(2)).await;
    assert_eq!(done["result"]["isError"], true);
    assert!(
        done["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("user rejected sampling"),
        "{done}"
    );
    c.close().await.unwrap();
}

#[tokio::test]
async fn without_the_capability_nothing_is_sent_and_unexpressible_forms_are_refused() {
    let mut c = Client::start(server());
    c.initialize_with("2025-11-25", &json!({})).await;
    let (done, notes) = {
        c.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "ask_model", "arguments": {"q": "?"}}}))
            .await;
        c.recv_response(json!(1)).await
    };
    assert!(notes.is_empty(), "nothing is asked: {notes:?}");
    assert_eq!(done["result"]["isError"], true);
    assert!(done["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("does not support sampling"));
    let r = c
        .request(2, "tools/call", json!({"name": "bad_form"}))
        .await;
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("unaskable: field `inner`"), "{text}");
    c.close().await.unwrap();
}

#[tokio::test]
async fn modern_requests_take_input_rounds_with_a_signed_state_used_once() {
    let mut c = Client::start(server());
    let meta = modern_meta_with(&json!({"elicitation": {}}));
    let call = |id: i64, extra: Value| {
        let mut params = json!({"name": "two_names", "_meta": meta.clone()});
        for (k, v) in extra.as_object().unwrap() {
            params[k] = v.clone();
        }
        (id, params)
    };
    // Round 1: the first name is asked.
    let (id, p) = call(1, json!({}));
    let r1 = c.request(id, "tools/call", p).await;
    assert_eq!(r1["result"]["resultType"], "input_required", "{r1}");
    let asked = &r1["result"]["inputRequests"]["first"];
    assert_eq!(asked["method"], "elicitation/create");
    assert_eq!(
        asked["params"]["requestedSchema"]["properties"]["name"],
        json!({"type": "string", "description": "Your name"})
    );
    let state1 = r1["result"]["requestState"].as_str().unwrap().to_owned();

    // Round 2: the first answer comes back with the state; the second name is asked.
    let accept = |name: &str| json!({"action": "accept", "content": {"name": name}});
    let (id, p) = call(
        2,
        json!({"inputResponses": {"first": accept("Ada")}, "requestState": state1}),
    );
    let r2 = c.request(id, "tools/call", p).await;
    assert_eq!(r2["result"]["resultType"], "input_required", "{r2}");
    assert!(
        r2["result"]["inputRequests"].get("input-0").is_some(),
        "{r2}"
    );
    let state2 = r2["result"]["requestState"].as_str().unwrap().to_owned();

    // Round 3: only the second answer is sent; the first comes from the state.
    let (id, p) = call(
        3,
        json!({"inputResponses": {"input-0": accept("Grace")}, "requestState": state2.clone()}),
    );
    let r3 = c.request(id, "tools/call", p).await;
    assert_eq!(
        r3["result"]["content"][0]["text"], "Ada and Grace (resumed: true)",
        "{r3}"
    );
    assert_eq!(r3["result"]["resultType"], "complete");

    // The same state again: refused. An altered one, and one bound to another tool: refused.
    let (id, p) = call(
        4,
        json!({"inputResponses": {"input-0": accept("Eve")}, "requestState": state2.clone()}),
    );
    let replayed = c.request(id, "tools/call", p).await;
    assert_eq!(replayed["error"]["code"], -32602, "{replayed}");
    let mut altered = state2.clone().into_bytes();
    altered[5] = if altered[5] == b'A' { b'B' } else { b'A' };
    let (id, p) = call(
        5,
        json!({"requestState": String::from_utf8(altered).unwrap()}),
    );
    assert_eq!(
        c.request(id, "tools/call", p).await["error"]["code"],
        -32602
    );
    let (id, p) = call(6, json!({}));
    let fresh = c.request(id, "tools/call", p).await;
    let state = fresh["result"]["requestState"].as_str().unwrap().to_owned();
    let other = c
        .request(7, "tools/call", json!({"name": "ask_model", "arguments": {"q": "?"}, "requestState": state, "_meta": meta.clone()}))
        .await;
    assert_eq!(other["error"]["code"], -32602, "{other}");
    // inputResponses that are not results: refused.
    let (id, p) = call(8, json!({"inputResponses": ["not", "an", "object"]}));
    assert_eq!(
        c.request(id, "tools/call", p).await["error"]["code"],
        -32602
    );
    c.close().await.unwrap();
}

#[tokio::test]
async fn roots_are_asked_of_a_legacy_client_by_request() {
    let mut c = Client::start(server());
    c.initialize_with("2025-11-25", &json!({"roots": {"listChanged": true}}))
        .await;
    c.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "roots"}}))
        .await;
    let asked = c.recv().await;
    assert_eq!(asked["method"], "roots/list", "{asked}");
    assert!(asked["id"].is_string() || asked["id"].is_i64(), "{asked}");
    c.send(
        json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"roots": [
            {"uri": "file:///home/ada/project", "name": "project"},
            {"uri": "file:///tmp"}
        ]}}),
    )
    .await;
    let (done, notes) = c.recv_response(json!(1)).await;
    assert!(notes.is_empty(), "{notes:?}");
    assert_eq!(
        done["result"]["content"][0]["text"], "file:///home/ada/project (project), file:///tmp (-)",
        "{done}"
    );
    // An answer that is not a roots result: the tool sees an invalid answer.
    c.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "roots"}}))
        .await;
    let asked = c.recv().await;
    c.send(json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"roots": "none"}}))
        .await;
    let (done, _) = c.recv_response(json!(2)).await;
    assert_eq!(done["result"]["isError"], true, "{done}");
    c.close().await.unwrap();

    // A client without the capability is not asked.
    let mut c = Client::start(server());
    c.initialize_with("2025-11-25", &json!({})).await;
    c.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "roots"}}))
        .await;
    let (done, notes) = c.recv_response(json!(1)).await;
    assert!(notes.is_empty(), "nothing is asked: {notes:?}");
    assert_eq!(done["result"]["isError"], true);
    assert!(
        done["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("roots"),
        "{done}"
    );
    c.close().await.unwrap();
}

#[tokio::test]
async fn roots_are_asked_of_a_modern_client_in_an_input_round() {
    let mut c = Client::start(server());
    let meta = modern_meta_with(&json!({"roots": {}}));
    let r1 = c
        .request(
            1,
            "tools/call",
            json!({"name": "roots", "_meta": meta.clone()}),
        )
        .await;
    assert_eq!(r1["result"]["resultType"], "input_required", "{r1}");
    let requests = r1["result"]["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1, "{r1}");
    let (key, asked) = requests.iter().next().unwrap();
    assert_eq!(asked["method"], "roots/list", "{r1}");
    let state = r1["result"]["requestState"].as_str().unwrap().to_owned();
    let r2 = c
        .request(
            2,
            "tools/call",
            json!({"name": "roots", "_meta": meta.clone(),
            "inputResponses": {key.clone(): {"roots": [{"uri": "file:///srv", "name": "srv"}]}},
            "requestState": state}),
        )
        .await;
    assert_eq!(r2["result"]["resultType"], "complete", "{r2}");
    assert_eq!(
        r2["result"]["content"][0]["text"], "file:///srv (srv)",
        "{r2}"
    );
    // Without the capability: no round, the tool hears the client cannot.
    let r = c
        .request(
            3,
            "tools/call",
            json!({"name": "roots", "_meta": modern_meta()}),
        )
        .await;
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
    assert_eq!(r["result"]["isError"], true, "{r}");
    assert!(r["result"].get("inputRequests").is_none(), "{r}");
    c.close().await.unwrap();
}

#[tokio::test]
async fn an_unexpressible_form_is_refused_before_anything_reaches_a_client_that_could_answer() {
    // Legacy: the client declares elicitation, and is sent nothing.
    let mut c = Client::start(server());
    c.initialize_with("2025-11-25", &json!({"elicitation": {"form": {}}}))
        .await;
    c.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "bad_form"}}),
    )
    .await;
    let (done, notes) = c.recv_response(json!(1)).await;
    assert!(notes.is_empty(), "nothing was asked: {notes:?}");
    let text = done["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("unaskable: field `inner`"), "{text}");
    // The connection is quiet afterwards: no request follows late.
    assert!(
        tokio::time::timeout(std::time::Duration::from_millis(100), c.lines.next_line())
            .await
            .is_err(),
        "a message followed"
    );
    // The same client is still asked what can be asked.
    c.send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "two_names"}}),
    )
    .await;
    for _ in 0..2 {
        let asked = c.recv().await;
        assert_eq!(asked["method"], "elicitation/create", "{asked}");
        c.send(json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "decline"}}))
            .await;
    }
    let (done, _) = c.recv_response(json!(2)).await;
    assert_eq!(done["result"]["content"][0]["text"], "stopped", "{done}");
    c.close().await.unwrap();

    // 2026-07-28: no input round, the tool's own answer at once.
    let mut c = Client::start(server());
    let r = c
        .request(
            1,
            "tools/call",
            json!({"name": "bad_form", "_meta": modern_meta_with(&json!({"elicitation": {}}))}),
        )
        .await;
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
    assert!(r["result"].get("inputRequests").is_none(), "{r}");
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("unaskable: field `inner`"), "{text}");
    c.close().await.unwrap();
}

#[tokio::test]
async fn a_request_state_is_bound_to_the_arguments_of_its_call() {
    let mut c = Client::start(server());
    let meta = modern_meta_with(&json!({"sampling": {}}));
    let ask = |id: i64, arguments: &str, extra: Value| {
        let mut params = json!({"name": "ask_model", "_meta": meta.clone()});
        params["arguments"] = serde_json::from_str(arguments).unwrap();
        for (k, v) in extra.as_object().unwrap() {
            params[k] = v.clone();
        }
        (id, params)
    };
    let answer =
        json!({"role": "assistant", "content": {"type": "text", "text": "42"}, "model": "m"});
    let state_of = |r: &Value| {
        assert_eq!(r["result"]["resultType"], "input_required", "{r}");
        let key = first_input_key(&r["result"]);
        (
            key,
            r["result"]["requestState"].as_str().unwrap().to_owned(),
        )
    };

    // Retried with other arguments: refused, the tool never sees the answer.
    let (id, p) = ask(1, r#"{"q": "first?"}"#, json!({}));
    let (key, state) = state_of(&c.request(id, "tools/call", p).await);
    let (id, p) = ask(
        2,
        r#"{"q": "second?"}"#,
        json!({"inputResponses": {key.clone(): answer.clone()}, "requestState": state}),
    );
    let other = c.request(id, "tools/call", p).await;
    assert_eq!(other["error"]["code"], -32602, "{other}");
    assert!(
        other["error"]["message"]
            .as_str()
            .unwrap()
            .contains("another request"),
        "{other}"
    );

    // Retried with the same arguments (their members in another order, with
    // other spacing): resumed.
    let (id, p) = ask(3, r#"{"q": "third?", "x": [1, 2]}"#, json!({}));
    let (key, state) = state_of(&c.request(id, "tools/call", p).await);
    let (id, p) = ask(
        4,
        r#"{ "x":[1,2],"q":"third?" }"#,
        json!({"inputResponses": {key: answer}, "requestState": state}),
    );
    let resumed = c.request(id, "tools/call", p).await;
    assert_eq!(
        resumed["result"]["content"][0]["text"], "model: 42",
        "{resumed}"
    );
    c.close().await.unwrap();
}

#[tokio::test]
async fn a_state_from_one_instance_is_taken_by_another_with_its_keys_until_the_key_retires() {
    use oxmcp_server::state::SigningKeys;
    let instance = |keys: SigningKeys| {
        Client::start(
            Server::builder("asking", "1.0")
                .toolbox(Asking)
                .request_state_keys(keys)
                .build(),
        )
    };
    let meta = modern_meta_with(&json!({"elicitation": {}}));
    let accept = |name: &str| json!({"action": "accept", "content": {"name": name}});
    let params = |extra: Value| {
        let mut p = json!({"name": "two_names", "_meta": meta.clone()});
        for (k, v) in extra.as_object().unwrap() {
            p[k] = v.clone();
        }
        p
    };
    // Round 1 on an instance signing with k1.
    let mut a = instance(SigningKeys::new("k1", [1; 32]));
    let r1 = a.request(1, "tools/call", params(json!({}))).await;
    let state1 = r1["result"]["requestState"].as_str().unwrap().to_owned();
    // Round 2 on another, rotated: k2 signs, k1 still verifies.
    let mut b = instance(SigningKeys::new("k2", [2; 32]).verifying("k1", [1; 32]));
    let r2 = b
        .request(
            2,
            "tools/call",
            params(json!({"inputResponses": {"first": accept("Ada")}, "requestState": state1})),
        )
        .await;
    assert_eq!(r2["result"]["resultType"], "input_required", "{r2}");
    let state2 = r2["result"]["requestState"].as_str().unwrap().to_owned();
    // Round 3 on a third, k1 retired: the state signed with k2 is taken...
    let mut c = instance(SigningKeys::new("k2", [2; 32]));
    let r3 = c
        .request(
            3,
            "tools/call",
            params(json!({"inputResponses": {"input-0": accept("Grace")}, "requestState": state2})),
        )
        .await;
    assert_eq!(
        r3["result"]["content"][0]["text"], "Ada and Grace (resumed: true)",
        "{r3}"
    );
    // ...and one signed with the retired k1 is refused.
    let mut a2 = instance(SigningKeys::new("k1", [1; 32]));
    let fresh = a2.request(4, "tools/call", params(json!({}))).await;
    let old = fresh["result"]["requestState"].as_str().unwrap().to_owned();
    let r4 = c
        .request(
            5,
            "tools/call",
            params(json!({"inputResponses": {"first": accept("Eve")}, "requestState": old})),
        )
        .await;
    assert_eq!(r4["error"]["code"], -32602, "{r4}");
    assert!(
        r4["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not one this server knows"),
        "{r4}"
    );
}

/// URL mode (2025-11-25): the request carries the page and its id, and no
/// form; the user's answer (here `accept`, with no content) reaches the tool.
#[tokio::test]
async fn a_url_mode_elicitation_sends_the_page_and_its_id_and_the_answer_reaches_the_tool() {
    let mut c = Client::start(server());
    c.initialize_with(
        "2025-11-25",
        &json!({"elicitation": {"form": {}, "url": {}}}),
    )
    .await;
    c.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "connect_calendar", "arguments": {}}}))
        .await;
    let asked = c.recv().await;
    assert_eq!(asked["method"], "elicitation/create", "{asked}");
    assert_eq!(asked["params"]["mode"], "url");
    assert_eq!(
        asked["params"]["url"],
        "https://calendar.example.com/connect?session=42"
    );
    assert_eq!(asked["params"]["elicitationId"], "connect-42");
    assert!(asked["params"].get("requestedSchema").is_none(), "{asked}");
    c.send(json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "accept"}}))
        .await;
    let (done, _) = c.recv_response(json!(1)).await;
    assert_eq!(done["result"]["content"][0]["text"], "Accept", "{done}");
    c.close().await.unwrap();
}
