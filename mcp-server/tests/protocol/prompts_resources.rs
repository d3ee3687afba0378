//! Prompts, resources, templates, completion and resource subscriptions,
//! through the real dispatch over in-memory pipes, in both eras, with the
//! bad inputs the spec names.

use mcp_test_support::server as support;

use std::time::Duration;

use oxmcp_server::types::{ContentBlock, PromptMessage, ResourceContents};
use oxmcp_server::{
    complete::completion, complete::Completing, prompt::PromptEntry, resource::ResourceEntry,
    resource::TemplateEntry, tool, RequestError, Server,
};
use serde_json::{json, Value};
use support::{modern_meta, Client};

#[derive(Debug, Default)]
pub struct Notes;

#[tool(description = "Notes as prompts and resources")]
impl Notes {
    #[prompt(title = "Summary")]
    #[describe("Summarise a note")]
    #[param(id, "The note's number")]
    #[param(style, "How to write it", default = "short")]
    #[param(language, "The language")]
    pub fn summarise(&self, id: u32, style: String, language: Option<String>) -> String {
        format!(
            "Summarise note {id} ({style}, {})",
            language.unwrap_or_else(|| "en".into())
        )
    }

    /// Reads the arguments already filled in: a lyrical summary is only
    /// offered in the languages of poets.
    #[complete(summarise, language)]
    pub fn languages(&self, request: &Completing) -> Vec<String> {
        let poetic = request.arguments.get("style").map(String::as_str) == Some("lyrical");
        let all: &[&str] = if poetic {
            &["fr", "it"]
        } else {
            &["de", "en", "fr", "it"]
        };
        all.iter()
            .filter(|l| l.starts_with(&request.value))
            .map(|l| {
                format!(
                    "{l} (id {})",
                    request.arguments.get("id").map_or("?", String::as_str)
                )
            })
            .collect()
    }

    #[complete(summarise, style)]
    pub fn styles(&self, typed: &str) -> Vec<&'static str> {
        ["short", "long", "lyrical"]
            .into_iter()
            .filter(|s| s.starts_with(typed))
            .collect()
    }

    #[prompt]
    #[describe("Greet")]
    pub fn greet(&self) -> &'static str {
        "Hello"
    }

    #[resource(uri = "notes://index", mime_type = "text/plain", title = "Index")]
    #[describe("Every note")]
    pub fn index(&self) -> &'static str {
        "1\n2"
    }

    #[resource(uri = "notes://logo", mime_type = "image/png")]
    #[describe("The logo")]
    pub fn logo(&self) -> Vec<u8> {
        b"hi".to_vec()
    }

    #[resource(template = "notes://{id}/{+rest}", mime_type = "text/markdown")]
    #[describe("One note, by number")]
    pub fn note(&self, id: u32, rest: String) -> Result<Vec<ResourceContents>, RequestError> {
        if id > 2 {
            return Err(RequestError::not_found());
        }
        Ok(vec![
            ResourceContents::text(
                format!("notes://{id}/{rest}"),
                "text/markdown",
                format!("# Note {id}"),
            ),
            ResourceContents::text(
                format!("notes://{id}/{rest}#meta"),
                "application/json",
                "{}",
            ),
        ])
    }

    #[complete(note, id)]
    pub fn ids(&self, typed: String) -> Vec<String> {
        ["1", "2", "12"]
            .iter()
            .filter(|i| i.starts_with(&typed))
            .map(|s| (*s).to_owned())
            .collect()
    }
}

fn server() -> Server {
    Server::builder("notes", "1.0")
        .toolbox(Notes)
        .page_size(1)
        .build()
}

fn error_code(v: &Value) -> i64 {
    v["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {v}"))
}

#[tokio::test]
async fn prompts_list_in_pages_and_get_with_parsed_arguments() {
    let mut c = Client::start(server());
    let init = c.initialize("2025-11-25").await;
    let caps = &init["result"]["capabilities"];
    assert_eq!(caps["prompts"], json!({"listChanged": true}));
    assert_eq!(
        caps["resources"],
        json!({"listChanged": true, "subscribe": true})
    );
    assert_eq!(caps["completions"], json!({}));

    let first = c.request(1, "prompts/list", json!({})).await;
    assert_eq!(first["result"]["prompts"][0]["name"], "greet");
    let cursor = first["result"]["nextCursor"].as_str().unwrap().to_owned();
    let second = c
        .request(2, "prompts/list", json!({"cursor": cursor}))
        .await;
    let summarise = &second["result"]["prompts"][0];
    assert_eq!(summarise["title"], "Summary");
    assert_eq!(
        summarise["arguments"],
        json!([
            {"name": "id", "description": "The note's number", "required": true},
            {"name": "style", "description": "How to write it (default: short)", "required": false},
            {"name": "language", "description": "The language", "required": false}
        ])
    );
    assert!(second["result"].get("nextCursor").is_none());
    assert_eq!(
        error_code(
            &c.request(3, "prompts/list", json!({"cursor": "bogus"}))
                .await
        ),
        -32602
    );

    let got = c
        .request(
            4,
            "prompts/get",
            json!({"name": "summarise", "arguments": {"id": "7", "language": "fr"}}),
        )
        .await;
    assert_eq!(
        got["result"]["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": "Summarise note 7 (short, fr)"}}])
    );

    // A required argument missing, an argument that does not parse, an unknown prompt.
    let missing = c
        .request(5, "prompts/get", json!({"name": "summarise"}))
        .await;
    assert_eq!(error_code(&missing), -32602);
    // In the words a tool's argument errors use, from the type's schema.
    assert_eq!(
        missing["error"]["message"],
        "missing required argument `id` (an integer from 0 to 4294967295)",
        "{missing}"
    );
    let bad = c
        .request(
            6,
            "prompts/get",
            json!({"name": "summarise", "arguments": {"id": "seven"}}),
        )
        .await;
    assert_eq!(error_code(&bad), -32602);
    assert_eq!(
        bad["error"]["message"], "`id` must be an integer from 0 to 4294967295 (got \"seven\")",
        "{bad}"
    );
    let unknown = c.request(7, "prompts/get", json!({"name": "nope"})).await;
    assert_eq!(error_code(&unknown), -32602);
    let not_strings = c
        .request(
            8,
            "prompts/get",
            json!({"name": "summarise", "arguments": {"id": 7}}),
        )
        .await;
    assert_eq!(error_code(&not_strings), -32602);
    c.close().await.unwrap();
}

#[tokio::test]
async fn resources_read_text_blobs_templates_and_refuse_unknown_uris_in_both_eras() {
    let mut c = Client::start(server());
    c.initialize("2025-11-25").await;
    let list = c.request(1, "resources/list", json!({})).await;
    assert_eq!(list["result"]["resources"][0]["uri"], "notes://index");
    let templates = c.request(2, "resources/templates/list", json!({})).await;
    assert_eq!(
        templates["result"]["resourceTemplates"],
        json!([{"uriTemplate": "notes://{id}/{+rest}", "name": "note", "description": "One note, by number", "mimeType": "text/markdown"}])
    );
    let text = c
        .request(3, "resources/read", json!({"uri": "notes://index"}))
        .await;
    assert_eq!(
        text["result"]["contents"],
        json!([{"uri": "notes://index", "mimeType": "text/plain", "text": "1\n2"}])
    );
    let blob = c
        .request(4, "resources/read", json!({"uri": "notes://logo"}))
        .await;
    assert_eq!(blob["result"]["contents"][0]["blob"], "aGk=");
    let note = c
        .request(5, "resources/read", json!({"uri": "notes://2/a/b.md"}))
        .await;
    assert_eq!(note["result"]["contents"].as_array().unwrap().len(), 2);
    assert_eq!(note["result"]["contents"][0]["uri"], "notes://2/a/b.md");

    // Unknown URIs: no match, a template variable that does not parse, the handler's not_found.
    for (id, uri) in [
        (6, "notes://nothing"),
        (7, "notes://x/y"),
        (8, "notes://9/z"),
        (9, "other://1/2"),
    ] {
        let r = c.request(id, "resources/read", json!({"uri": uri})).await;
        assert_eq!(error_code(&r), -32602, "{uri}: {r}");
        assert_eq!(r["error"]["data"]["uri"], uri, "{r}");
    }
    let missing = c.request(10, "resources/read", json!({})).await;
    assert_eq!(error_code(&missing), -32602);

    // The 2026-07-28 era: the same rule, and the caching fields on lists and reads.
    let modern = c
        .request(
            11,
            "resources/read",
            json!({"uri": "notes://index", "_meta": modern_meta()}),
        )
        .await;
    assert_eq!(modern["result"]["resultType"], "complete");
    assert!(
        modern["result"]["ttlMs"].is_u64() && modern["result"]["cacheScope"] == "public",
        "{modern}"
    );
    let unknown = c
        .request(
            12,
            "resources/read",
            json!({"uri": "notes://none", "_meta": modern_meta()}),
        )
        .await;
    assert_eq!(
        (error_code(&unknown), &unknown["error"]["data"]["uri"]),
        (-32602, &json!("notes://none"))
    );
    for (id, method) in [
        (13, "prompts/list"),
        (14, "resources/list"),
        (15, "resources/templates/list"),
    ] {
        let r = c.request(id, method, json!({"_meta": modern_meta()})).await;
        assert!(
            r["result"]["ttlMs"].is_u64() && r["result"]["cacheScope"].is_string(),
            "{method}: {r}"
        );
    }
    c.close().await.unwrap();
}

#[tokio::test]
async fn completion_suggests_for_prompts_and_templates_and_refuses_what_does_not_exist() {
    let mut c = Client::start(server());
    c.initialize("2025-11-25").await;
    let r = c
        .request(1, "completion/complete", json!({"ref": {"type": "ref/prompt", "name": "summarise"}, "argument": {"name": "style", "value": "l"}}))
        .await;
    assert_eq!(
        r["result"]["completion"],
        json!({"values": ["long", "lyrical"], "total": 2, "hasMore": false})
    );
    let r = c
        .request(2, "completion/complete", json!({"ref": {"type": "ref/resource", "uri": "notes://{id}/{+rest}"}, "argument": {"name": "id", "value": "1"}}))
        .await;
    assert_eq!(r["result"]["completion"]["values"], json!(["1", "12"]));
    // An argument that exists but that nothing completes: no suggestions.
    let r = c
        .request(3, "completion/complete", json!({"ref": {"type": "ref/prompt", "name": "summarise"}, "argument": {"name": "id", "value": ""}}))
        .await;
    assert_eq!(r["result"]["completion"]["values"], json!([]));
    for (id, params) in [
        (
            4,
            json!({"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "x", "value": ""}}),
        ),
        (
            5,
            json!({"ref": {"type": "ref/prompt", "name": "summarise"}, "argument": {"name": "nope", "value": ""}}),
        ),
        (
            6,
            json!({"ref": {"type": "ref/resource", "uri": "notes://{id}/{+rest}"}, "argument": {"name": "nope", "value": ""}}),
        ),
        (
            7,
            json!({"ref": {"type": "ref/other"}, "argument": {"name": "x", "value": ""}}),
        ),
        (8, json!({"argument": {"name": "x", "value": ""}})),
    ] {
        let r = c.request(id, "completion/complete", params.clone()).await;
        assert_eq!(error_code(&r), -32602, "{params}: {r}");
    }
    c.close().await.unwrap();
}

/// Everything the server sends within `window`.
async fn drain(c: &mut Client, window: Duration) -> Vec<Value> {
    let mut got = Vec::new();
    while let Ok(Ok(Some(line))) = tokio::time::timeout(window, c.lines.next_line()).await {
        got.push(serde_json::from_str(&line).unwrap());
    }
    got
}

#[tokio::test]
async fn resource_updates_reach_exactly_the_subscribers() {
    let server = server();
    let handle = server.handle();
    let mut a = Client::start(server.clone());
    let mut b = Client::start(server);
    a.initialize("2025-11-25").await;
    b.initialize("2025-11-25").await;
    let unknown = a
        .request(1, "resources/subscribe", json!({"uri": "notes://none"}))
        .await;
    assert_eq!(
        (error_code(&unknown), &unknown["error"]["data"]["uri"]),
        (-32602, &json!("notes://none"))
    );
    let ok = a
        .request(2, "resources/subscribe", json!({"uri": "notes://1/x"}))
        .await;
    assert_eq!(ok["result"], json!({}));
    handle.resource_updated("notes://1/x");
    handle.resource_updated("notes://index");
    let got_a = drain(&mut a, Duration::from_millis(200)).await;
    let got_b = drain(&mut b, Duration::from_millis(100)).await;
    assert_eq!(
        got_a,
        vec![
            json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "notes://1/x"}})
        ]
    );
    assert!(got_b.is_empty(), "{got_b:?}");
    a.request(3, "resources/unsubscribe", json!({"uri": "notes://1/x"}))
        .await;
    handle.resource_updated("notes://1/x");
    assert!(drain(&mut a, Duration::from_millis(100)).await.is_empty());

    // 2026-07-28: subscriptions/listen resource filters; a URI that does not exist is not agreed.
    let mut meta = modern_meta();
    meta["io.modelcontextprotocol/clientCapabilities"] = json!({});
    b.send(json!({"jsonrpc": "2.0", "id": 9, "method": "subscriptions/listen", "params": {
        "notifications": {"resourceSubscriptions": ["notes://index", "notes://none"], "promptsListChanged": true},
        "_meta": meta}}))
        .await;
    let ack = b.recv().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["notifications"],
        json!({"promptsListChanged": true, "resourceSubscriptions": ["notes://index"]})
    );
    handle.resource_updated("notes://index");
    handle.resource_updated("notes://1/x");
    handle
        .add_prompt(
            PromptEntry::dynamic("later", "Added later", Vec::new(), |_a, _c| async { "x" })
                .unwrap(),
        )
        .unwrap();
    // The stream carries the update of the URI it named and the prompt list's
    // change, tagged with its id; the connection's legacy session (b also
    // initialized) hears the list change untagged, and no update.
    let tagged = |m: &Value| m["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == 9;
    let mut got = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while got.len() < 3 && tokio::time::Instant::now() < deadline {
        got.extend(drain(&mut b, Duration::from_millis(100)).await);
    }
    got.extend(drain(&mut b, Duration::from_millis(100)).await);
    let updates: Vec<&Value> = got
        .iter()
        .filter(|m| m["method"] == "notifications/resources/updated")
        .collect();
    assert_eq!(updates.len(), 1, "{got:?}");
    assert_eq!(updates[0]["params"]["uri"], "notes://index");
    assert!(tagged(updates[0]), "{got:?}");
    let changes: Vec<&Value> = got
        .iter()
        .filter(|m| m["method"] == "notifications/prompts/list_changed")
        .collect();
    assert_eq!(changes.len(), 2, "{got:?}");
    assert_eq!(changes.iter().filter(|m| tagged(m)).count(), 1, "{got:?}");
    let _ = a.close().await;
    let _ = b.close().await;
}

#[tokio::test]
async fn prompts_and_resources_change_at_run_time_with_their_toolbox() {
    let server = server();
    let handle = server.handle();
    let mut c = Client::start(server);
    c.initialize("2025-11-25").await;
    assert_eq!(handle.prompt_names(), ["greet", "summarise"]);
    // Two prompts, two resources, one template.
    assert_eq!(handle.disable_toolbox("Notes"), 5);
    let msgs = drain(&mut c, Duration::from_millis(200)).await;
    let methods: Vec<&str> = msgs.iter().filter_map(|m| m["method"].as_str()).collect();
    assert!(
        methods.contains(&"notifications/prompts/list_changed"),
        "{methods:?}"
    );
    assert!(
        methods.contains(&"notifications/resources/list_changed"),
        "{methods:?}"
    );
    assert_eq!(
        c.request(1, "prompts/list", json!({})).await["result"]["prompts"],
        json!([])
    );
    let gone = c.request(2, "prompts/get", json!({"name": "greet"})).await;
    assert_eq!(error_code(&gone), -32602);
    let gone = c
        .request(3, "resources/read", json!({"uri": "notes://index"}))
        .await;
    assert_eq!(error_code(&gone), -32602);
    handle.enable_toolbox("Notes");
    assert!(handle.disable_prompt("greet"));
    assert_eq!(handle.prompt_names(), ["summarise"]);
    assert!(handle.remove_resource("notes://logo"));
    assert_eq!(handle.resource_uris(), ["notes://index"]);
    c.close().await.unwrap();
}

#[tokio::test]
async fn offers_hidden_from_a_caller_do_not_exist_for_it() {
    use oxmcp_server::policy::Offer;
    let server = Server::builder("notes", "1.0")
        .toolbox(Notes)
        .offer_visibility(|caller, item| {
            let guest = caller.client().is_some_and(|c| c.name == "guest");
            !guest
                || match item.offer {
                    Offer::Prompt(p) => p.name != "greet",
                    Offer::Resource(r) => r.uri != "notes://logo",
                    Offer::Template(_) => false,
                    _ => true,
                }
        })
        .build();
    let mut guest = Client::start(server.clone());
    guest
        .request(0, "initialize", json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "guest", "version": "1"}}))
        .await;
    guest
        .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    let prompts = guest.request(1, "prompts/list", json!({})).await;
    let names: Vec<&str> = prompts["result"]["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert_eq!(names, ["summarise"]);
    assert_eq!(
        error_code(
            &guest
                .request(2, "prompts/get", json!({"name": "greet"}))
                .await
        ),
        -32602
    );
    let logo = guest
        .request(3, "resources/read", json!({"uri": "notes://logo"}))
        .await;
    assert_eq!(
        (error_code(&logo), &logo["error"]["data"]["uri"]),
        (-32602, &json!("notes://logo"))
    );
    assert_eq!(
        error_code(
            &guest
                .request(4, "resources/read", json!({"uri": "notes://1/x"}))
                .await
        ),
        -32602
    );
    let templates = guest
        .request(5, "resources/templates/list", json!({}))
        .await;
    assert_eq!(templates["result"]["resourceTemplates"], json!([]));
    let complete = guest
        .request(6, "completion/complete", json!({"ref": {"type": "ref/resource", "uri": "notes://{id}/{+rest}"}, "argument": {"name": "id", "value": ""}}))
        .await;
    assert_eq!(error_code(&complete), -32602);
    let complete = guest
        .request(8, "completion/complete", json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "x", "value": ""}}))
        .await;
    assert!(
        complete["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unknown prompt"),
        "{complete}"
    );
    let modern = guest
        .request(
            7,
            "prompts/list",
            json!({"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "guest", "version": "1"}}}),
        )
        .await;
    assert_eq!(modern["result"]["cacheScope"], "private", "{modern}");
    assert_eq!(modern["result"]["prompts"].as_array().unwrap().len(), 1);

    // Another caller sees everything.
    let mut member = Client::start(server);
    member.initialize("2025-11-25").await;
    let all = member.request(1, "prompts/list", json!({})).await;
    assert_eq!(all["result"]["prompts"].as_array().unwrap().len(), 2);
    let logo = member
        .request(2, "resources/read", json!({"uri": "notes://logo"}))
        .await;
    assert_eq!(logo["result"]["contents"][0]["blob"], "aGk=");
    let _ = guest.close().await;
    let _ = member.close().await;
}

#[tokio::test]
async fn completion_reads_the_arguments_already_filled_in_in_both_eras() {
    let mut c = Client::start(server());
    c.initialize("2025-11-25").await;
    let ask = |value: &str, context: Option<Value>| {
        let mut p = json!({"ref": {"type": "ref/prompt", "name": "summarise"}, "argument": {"name": "language", "value": value}});
        if let Some(context) = context {
            p["context"] = context;
        }
        p
    };
    let values = |r: &Value| r["result"]["completion"]["values"].clone();
    // The style already chosen narrows the languages; the id shows up in each value.
    let r = c
        .request(
            1,
            "completion/complete",
            ask(
                "",
                Some(json!({"arguments": {"style": "lyrical", "id": "7"}})),
            ),
        )
        .await;
    assert_eq!(values(&r), json!(["fr (id 7)", "it (id 7)"]), "{r}");
    // No context: every language, and no id.
    let r = c.request(2, "completion/complete", ask("", None)).await;
    assert_eq!(
        values(&r),
        json!(["de (id ?)", "en (id ?)", "fr (id ?)", "it (id ?)"]),
        "{r}"
    );
    // Another style, and a prefix typed.
    let r = c
        .request(
            3,
            "completion/complete",
            ask("f", Some(json!({"arguments": {"style": "short"}}))),
        )
        .await;
    assert_eq!(values(&r), json!(["fr (id ?)"]), "{r}");
    // The 2026-07-28 era: the same context, the same suggestions.
    let mut p = ask(
        "i",
        Some(json!({"arguments": {"style": "lyrical", "id": "2"}})),
    );
    p["_meta"] = modern_meta();
    let r = c.request(4, "completion/complete", p).await;
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
    assert_eq!(values(&r), json!(["it (id 2)"]), "{r}");
    // A context whose arguments are not strings: refused.
    let r = c
        .request(
            5,
            "completion/complete",
            ask("", Some(json!({"arguments": {"style": 3}}))),
        )
        .await;
    assert_eq!(error_code(&r), -32602, "{r}");
    c.close().await.unwrap();
}

/// A prompt with a completion function, built at run time.
fn colour_prompt() -> PromptEntry {
    PromptEntry::dynamic(
        "paint",
        "Paint something",
        vec![oxmcp_server::types::PromptArgument {
            name: "colour".into(),
            title: None,
            description: Some("The colour".into()),
            required: Some(true),
        }],
        |_args, _ctx| async { "paint" },
    )
    .unwrap()
    .with_completion(
        "colour",
        completion(|c: Completing, _ctx| async move {
            ["red", "green", "grey"]
                .into_iter()
                .filter(|v| v.starts_with(&c.value))
                .collect::<Vec<_>>()
        }),
    )
}

fn paint(value: &str) -> Value {
    json!({"ref": {"type": "ref/prompt", "name": "paint"}, "argument": {"name": "colour", "value": value}})
}

#[tokio::test]
async fn the_completions_capability_follows_what_can_complete() {
    // Tools only, and prompts and templates that nothing completes: no
    // `completions`, and completion/complete is a method the server does not offer.
    let plain = PromptEntry::dynamic(
        "plain",
        "Nothing completes it",
        Vec::new(),
        |_a, _c| async { "x" },
    )
    .unwrap();
    let template = TemplateEntry::dynamic(
        oxmcp_server::types::ResourceTemplate::new("t://{x}", "t"),
        |_r, _c| async { "t" },
    )
    .unwrap();
    for (what, server) in [
        ("tools only", Server::builder("s", "1").build()),
        (
            "prompts and templates that nothing completes",
            Server::builder("s", "1")
                .prompt(plain)
                .resource_template(template)
                .build(),
        ),
    ] {
        let handle = server.handle();
        let mut c = Client::start(server);
        let init = c.initialize("2025-11-25").await;
        assert!(
            init["result"]["capabilities"].get("completions").is_none(),
            "{what}: {init}"
        );
        let mut meta = modern_meta();
        meta["io.modelcontextprotocol/clientCapabilities"] = json!({});
        let discover = c
            .request(1, "server/discover", json!({"_meta": meta}))
            .await;
        assert!(
            discover["result"]["capabilities"].is_object()
                && discover["result"]["capabilities"]
                    .get("completions")
                    .is_none(),
            "{what}: {discover}"
        );
        let r = c
            .request(2, "completion/complete", json!({"ref": {"type": "ref/prompt", "name": "plain"}, "argument": {"name": "x", "value": ""}}))
            .await;
        assert_eq!(error_code(&r), -32601, "{what}: {r}");
        // A completion added later cannot be served: the clients were told
        // there is none (the handle logs a warning), and the server lives on.
        handle.add_prompt(colour_prompt()).unwrap();
        let r = c.request(3, "completion/complete", paint("g")).await;
        assert_eq!(error_code(&r), -32601, "{what}: {r}");
        let listed = c.request(4, "prompts/list", json!({})).await;
        assert!(listed["result"]["prompts"].is_array(), "{what}: {listed}");
        c.close().await.unwrap();
    }

    // A server built for run-time offers declares `completions` from the
    // start: a prompt added later completes, one without a completion
    // function answers no suggestions.
    let server = Server::builder("s", "1")
        .offer_prompts_and_resources()
        .build();
    let handle = server.handle();
    let mut c = Client::start(server);
    let init = c.initialize("2025-11-25").await;
    assert_eq!(
        init["result"]["capabilities"]["completions"],
        json!({}),
        "{init}"
    );
    let r = c.request(1, "completion/complete", paint("g")).await;
    assert_eq!(error_code(&r), -32602, "no such prompt yet: {r}");
    handle.add_prompt(colour_prompt()).unwrap();
    let r = c.request(2, "completion/complete", paint("g")).await;
    assert_eq!(
        r["result"]["completion"]["values"],
        json!(["green", "grey"]),
        "{r}"
    );
    handle
        .add_prompt(
            PromptEntry::dynamic(
                "bare",
                "No completion",
                vec![oxmcp_server::types::PromptArgument {
                    name: "x".into(),
                    title: None,
                    description: Some("x".into()),
                    required: None,
                }],
                |_a, _c| async { "x" },
            )
            .unwrap(),
        )
        .unwrap();
    let r = c
        .request(3, "completion/complete", json!({"ref": {"type": "ref/prompt", "name": "bare"}, "argument": {"name": "x", "value": ""}}))
        .await;
    assert_eq!(r["result"]["completion"]["values"], json!([]), "{r}");
    let mut p = paint("r");
    p["_meta"] = modern_meta();
    let r = c.request(4, "completion/complete", p).await;
    assert_eq!(r["result"]["completion"]["values"], json!(["red"]), "{r}");
    c.close().await.unwrap();
}

/// Every page of a list, and how many pages it took.
async fn all_pages(
    c: &mut Client,
    method: &str,
    key: &str,
    meta: Option<&Value>,
) -> (Vec<String>, usize) {
    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let mut params = json!({});
        if let Some(cursor) = &cursor {
            params["cursor"] = json!(cursor);
        }
        if let Some(meta) = meta {
            params["_meta"] = meta.clone();
        }
        let r = c.request(100 + pages, method, params).await;
        let items = r["result"][key]
            .as_array()
            .unwrap_or_else(|| panic!("{method}: {r}"));
        assert!(items.len() <= 1, "page size 1: {r}");
        names.extend(items.iter().map(|i| {
            i.get("uri")
                .or_else(|| i.get("uriTemplate"))
                .or_else(|| i.get("name"))
                .and_then(Value::as_str)
                .unwrap()
                .to_owned()
        }));
        pages += 1;
        match r["result"].get("nextCursor").and_then(Value::as_str) {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
        assert!(pages < 20, "{method} never ends");
    }
    (names, usize::try_from(pages).unwrap())
}

#[tokio::test]
async fn resources_and_templates_list_in_pages_and_refuse_invented_cursors() {
    let server = server();
    server
        .handle()
        .add_resource_template(
            TemplateEntry::dynamic(
                oxmcp_server::types::ResourceTemplate::new("archive://{year}", "archive"),
                |_r, _c| async { "old" },
            )
            .unwrap(),
        )
        .unwrap();
    let mut c = Client::start(server);
    c.initialize("2025-11-25").await;
    let meta = modern_meta();
    for era_meta in [None, Some(&meta)] {
        let (resources, pages) = all_pages(&mut c, "resources/list", "resources", era_meta).await;
        assert_eq!(resources, ["notes://index", "notes://logo"], "{era_meta:?}");
        assert_eq!(pages, 2);
        let (templates, pages) = all_pages(
            &mut c,
            "resources/templates/list",
            "resourceTemplates",
            era_meta,
        )
        .await;
        assert_eq!(
            templates,
            ["archive://{year}", "notes://{id}/{+rest}"],
            "{era_meta:?}"
        );
        assert_eq!(pages, 2);
        for method in ["resources/list", "resources/templates/list", "prompts/list"] {
            for cursor in ["bogus", "n1.zz", "", "n1.6"] {
                let mut params = json!({"cursor": cursor});
                if let Some(meta) = era_meta {
                    params["_meta"] = meta.clone();
                }
                let r = c.request(9, method, params).await;
                assert_eq!(error_code(&r), -32602, "{method} {cursor:?}: {r}");
            }
        }
    }
    // Still serving.
    let r = c.request(10, "resources/list", json!({})).await;
    assert_eq!(r["result"]["resources"][0]["uri"], "notes://index");
    c.close().await.unwrap();
}

/// The list-changed notices among `msgs`, by method.
fn notices(msgs: &[Value]) -> Vec<&str> {
    let mut n: Vec<&str> = msgs
        .iter()
        .filter_map(|m| m["method"].as_str())
        .filter(|m| m.ends_with("/list_changed"))
        .collect();
    n.sort_unstable();
    n
}

#[tokio::test]
#[allow(clippy::too_many_lines)] // one story: two bursts, then what must not notify
async fn run_time_changes_of_prompts_resources_and_templates_one_notice_per_burst() {
    let server = Server::builder("notes", "1.0").toolbox(Notes).build();
    let handle = server.handle();
    let mut c = Client::start(server.clone());
    c.initialize("2025-11-25").await;
    // A modern listener on another connection, for the prompt and resource lists.
    let mut listener = Client::start(server);
    listener
        .send(
            json!({"jsonrpc": "2.0", "id": "l", "method": "subscriptions/listen", "params": {
            "notifications": {"promptsListChanged": true, "resourcesListChanged": true},
            "_meta": modern_meta()}}),
        )
        .await;
    assert_eq!(
        listener.recv().await["method"],
        "notifications/subscriptions/acknowledged"
    );
    assert!(drain(&mut c, Duration::from_millis(50)).await.is_empty());

    // One burst: prompts added and disabled, a resource added and another
    // disabled, a template added and another disabled.
    handle.add_prompt(colour_prompt()).unwrap();
    handle
        .add_prompt(
            PromptEntry::dynamic("echo", "Echo", Vec::new(), |_a, _c| async { "echo" }).unwrap(),
        )
        .unwrap();
    assert!(handle.disable_prompt("greet"));
    handle
        .add_resource(
            ResourceEntry::dynamic(
                oxmcp_server::types::Resource::new("notes://new", "new"),
                |_r, _c| async { "fresh" },
            )
            .unwrap(),
        )
        .unwrap();
    assert!(handle.disable_resource("notes://logo"));
    handle
        .add_resource_template(
            TemplateEntry::dynamic(
                oxmcp_server::types::ResourceTemplate::new("archive://{year}", "archive"),
                |r, _c| async move { format!("the year {}", r.variables.get("year").unwrap_or("?")) },
            )
            .unwrap(),
        )
        .unwrap();
    assert!(handle.disable_resource_template("notes://{id}/{+rest}"));
    let got = drain(&mut c, Duration::from_millis(300)).await;
    assert_eq!(
        notices(&got),
        [
            "notifications/prompts/list_changed",
            "notifications/resources/list_changed"
        ],
        "{got:?}"
    );
    let heard = drain(&mut listener, Duration::from_millis(100)).await;
    assert_eq!(
        notices(&heard),
        [
            "notifications/prompts/list_changed",
            "notifications/resources/list_changed"
        ],
        "{heard:?}"
    );
    assert!(
        heard
            .iter()
            .all(|m| m["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == "l"),
        "{heard:?}"
    );

    // The lists and the handle say the same.
    let names = |r: &Value, key: &str, field: &str| -> Vec<String> {
        r["result"][key]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i[field].as_str().unwrap().to_owned())
            .collect()
    };
    let prompts = c.request(1, "prompts/list", json!({})).await;
    assert_eq!(
        names(&prompts, "prompts", "name"),
        ["echo", "paint", "summarise"]
    );
    assert_eq!(handle.prompt_names(), ["echo", "paint", "summarise"]);
    let resources = c.request(2, "resources/list", json!({})).await;
    assert_eq!(
        names(&resources, "resources", "uri"),
        ["notes://index", "notes://new"]
    );
    assert_eq!(handle.resource_uris(), ["notes://index", "notes://new"]);
    let templates = c.request(3, "resources/templates/list", json!({})).await;
    assert_eq!(
        names(&templates, "resourceTemplates", "uriTemplate"),
        ["archive://{year}"]
    );
    assert_eq!(handle.resource_templates(), ["archive://{year}"]);
    // What was added serves; what was disabled does not exist.
    let read = c
        .request(4, "resources/read", json!({"uri": "archive://1999"}))
        .await;
    assert_eq!(
        read["result"]["contents"][0]["text"], "the year 1999",
        "{read}"
    );
    let read = c
        .request(5, "resources/read", json!({"uri": "notes://new"}))
        .await;
    assert_eq!(read["result"]["contents"][0]["text"], "fresh", "{read}");
    for (id, uri) in [(6, "notes://logo"), (7, "notes://1/x")] {
        let r = c.request(id, "resources/read", json!({"uri": uri})).await;
        assert_eq!(error_code(&r), -32602, "{uri}: {r}");
    }
    let r = c.request(8, "prompts/get", json!({"name": "greet"})).await;
    assert_eq!(error_code(&r), -32602, "{r}");
    let r = c.request(9, "prompts/get", json!({"name": "echo"})).await;
    assert_eq!(r["result"]["messages"][0]["content"]["text"], "echo", "{r}");

    // A second burst that only enables: again one notice per list.
    assert!(handle.enable_prompt("greet"));
    assert!(handle.enable_resource("notes://logo"));
    assert!(handle.enable_resource_template("notes://{id}/{+rest}"));
    let got = drain(&mut c, Duration::from_millis(300)).await;
    assert_eq!(
        notices(&got),
        [
            "notifications/prompts/list_changed",
            "notifications/resources/list_changed"
        ],
        "{got:?}"
    );
    assert_eq!(
        handle.prompt_names(),
        ["echo", "greet", "paint", "summarise"]
    );
    assert_eq!(
        handle.resource_templates(),
        ["archive://{year}", "notes://{id}/{+rest}"]
    );
    let r = c.request(10, "prompts/get", json!({"name": "greet"})).await;
    assert_eq!(
        r["result"]["messages"][0]["content"]["text"], "Hello",
        "{r}"
    );

    // Changes that change nothing visible (an unknown name, enabling what is
    // enabled) and a template-only change: only what changed is told.
    assert!(!handle.disable_prompt("nope"));
    assert!(handle.enable_prompt("greet"));
    assert!(!handle.enable_resource("notes://nope"));
    assert!(drain(&mut c, Duration::from_millis(150)).await.is_empty());
    assert!(handle.remove_resource_template("archive://{year}"));
    let got = drain(&mut c, Duration::from_millis(300)).await;
    assert_eq!(
        notices(&got),
        ["notifications/resources/list_changed"],
        "{got:?}"
    );
    // A name in use, even by a disabled entry, is refused.
    assert!(handle.disable_prompt("echo"));
    assert!(handle
        .add_prompt(
            PromptEntry::dynamic("echo", "Again", Vec::new(), |_a, _c| async { "x" }).unwrap()
        )
        .is_err());
    let _ = listener.close().await;
    c.close().await.unwrap();
}

#[derive(Debug)]
pub struct Media;

#[tool(description = "A prompt with audio, its arguments described inline")]
impl Media {
    #[prompt]
    #[describe("Transcribe a clip")]
    pub fn transcribe(
        &self,
        #[param("The clip's name")] clip: String,
        #[param("The language", default = "en")] language: String,
        #[param("Who speaks")] speaker: Option<String>,
    ) -> Vec<PromptMessage> {
        vec![
            PromptMessage::user(ContentBlock::audio("UklGRg==", "audio/wav")),
            PromptMessage::user(ContentBlock::text(format!(
                "Transcribe {clip} ({language}, {})",
                speaker.as_deref().unwrap_or("anyone")
            ))),
        ]
    }
}

#[tokio::test]
async fn inline_described_prompt_arguments_and_an_audio_message() {
    let mut c = Client::start(Server::builder("media", "1.0").toolbox(Media).build());
    c.initialize("2025-11-25").await;
    let list = c.request(1, "prompts/list", json!({})).await;
    assert_eq!(
        list["result"]["prompts"][0]["arguments"],
        json!([
            {"name": "clip", "description": "The clip's name", "required": true},
            {"name": "language", "description": "The language (default: en)", "required": false},
            {"name": "speaker", "description": "Who speaks", "required": false}
        ]),
        "{list}"
    );
    for (id, meta) in [(2, None), (3, Some(modern_meta()))] {
        let mut params = json!({"name": "transcribe", "arguments": {"clip": "intro"}});
        if let Some(meta) = meta {
            params["_meta"] = meta;
        }
        let got = c.request(id, "prompts/get", params).await;
        assert_eq!(
            got["result"]["messages"],
            json!([
                {"role": "user", "content": {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}},
                {"role": "user", "content": {"type": "text", "text": "Transcribe intro (en, anyone)"}}
            ]),
            "{got}"
        );
    }
    let missing = c
        .request(
            4,
            "prompts/get",
            json!({"name": "transcribe", "arguments": {"language": "fr"}}),
        )
        .await;
    assert_eq!(error_code(&missing), -32602, "{missing}");
    c.close().await.unwrap();
}
