//! The OpenAPI toolbox against a loopback API that records what it
//! receives: the tools a document makes, where each argument goes, the
//! credentials, the results of each kind of response, and the documents
//! refused with the position of what is wrong.

use mcp_test_support::http_site::{reply, Seen, Site};
use oxmcp_server::types::CallToolResult;
use oxmcp_server::{Context, ToolEntry};
use oxmcp_toolbox::http::Http;
use oxmcp_toolbox::openapi::{Credential, OpenApi, OpenApiTools};
use serde_json::{json, Value};

/// A pet store, OpenAPI 3.0, with what the toolbox must handle.
fn petstore() -> Value {
    json!({
        "openapi": "3.0.3",
        "info": {"title": "Pets", "version": "1"},
        "servers": [{"url": "http://pets.invalid/v1"}],
        "security": [{"ApiKey": []}],
        "components": {
            "securitySchemes": {"ApiKey": {"type": "apiKey", "in": "header", "name": "X-Api-Key"}},
            "parameters": {"PetId": {"name": "petId", "in": "path", "required": true, "description": "The pet", "schema": {"type": "integer", "minimum": 1}}},
            "schemas": {
                "Pet": {"type": "object", "required": ["id", "name"], "properties": {
                    "id": {"type": "integer"}, "name": {"type": "string"},
                    "tag": {"type": "string", "nullable": true},
                    "kind": {"$ref": "#/components/schemas/Kind"},
                    "owner": {"$ref": "#/components/schemas/Person"}
                }},
                "Kind": {"type": "string", "enum": ["dog", "cat"]},
                "Person": {"type": "object", "properties": {"name": {"type": "string"}, "friend": {"$ref": "#/components/schemas/Person"}}},
                "NewPet": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}, "kind": {"$ref": "#/components/schemas/Kind"}}}
            }
        },
        "paths": {
            "/pets": {
                "get": {
                    "operationId": "listPets", "summary": "List pets", "tags": ["pets"],
                    "parameters": [
                        {"name": "limit", "in": "query", "schema": {"type": "integer"}, "description": "How many"},
                        {"name": "tag", "in": "query", "schema": {"type": "array", "items": {"type": "string"}}}
                    ],
                    "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "array", "items": {"$ref": "#/components/schemas/Pet"}}}}}}
                },
                "post": {
                    "operationId": "createPet", "summary": "Add a pet", "tags": ["pets"],
                    "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/NewPet"}}}},
                    "responses": {"201": {"description": "made", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}}}}
                }
            },
            "/pets/{petId}": {
                "parameters": [{"$ref": "#/components/parameters/PetId"}],
                "get": {
                    "operationId": "showPet", "summary": "One pet", "description": "By its id.", "tags": ["pets"],
                    "parameters": [
                        {"name": "X-Request-Id", "in": "header", "schema": {"type": "string"}},
                        {"name": "session", "in": "cookie", "schema": {"type": "string"}}
                    ],
                    "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}}}}
                },
                "delete": {
                    "summary": "Delete a pet", "tags": ["admin"],
                    "responses": {"204": {"description": "gone"}}
                }
            },
            "/pets/{petId}/photo": {
                "get": {
                    "operationId": "petPhoto", "summary": "The pet's photo", "tags": ["pets"], "security": [],
                    "parameters": [{"$ref": "#/components/parameters/PetId"}],
                    "responses": {"200": {"description": "png", "content": {"image/png": {}}}}
                }
            },
            "/status": {"get": {"responses": {"200": {"description": "up"}}}}
        }
    })
}

/// The API: pets 1 and 2; `X-Api-Key: secret` needed to add one.
async fn api() -> Site {
    Site::start(|seen: &Seen| {
        let (path, query) = seen.path.split_once('?').unwrap_or((&seen.path, ""));
        let json = [("content-type", "application/json")];
        match (seen.method.as_str(), path) {
            ("GET", "/v1/pets") => {
                let body = json!([{"id": 1, "name": "Rex", "tag": "dog"}, {"id": 2, "name": "Tom", "tag": null}, {"query": query}]);
                reply("200 OK", &json, body.to_string().as_bytes())
            }
            ("POST", "/v1/pets") if seen.header("x-api-key") == Some("secret") => {
                let mut pet: Value = serde_json::from_slice(&seen.body).unwrap();
                pet["id"] = json!(3);
                reply("201 Created", &json, pet.to_string().as_bytes())
            }
            ("POST", "/v1/pets") => reply("401 Unauthorized", &json, br#"{"detail":"missing or wrong API key"}"#),
            ("GET", "/v1/pets/1") => reply("200 OK", &json, br#"{"id":1,"name":"Rex"}"#),
            ("DELETE", "/v1/pets/1") => reply("204 No Content", &[], b""),
            ("GET", "/v1/pets/1/photo") => reply("200 OK", &[("content-type", "image/png")], b"\x89PNG\r\n\x1a\nfake"),
            _ => reply("404 Not Found", &json, br#"{"detail":"no such pet"}"#),
        }
    })
    .await
}

fn tools_for(site: &Site, doc: &Value) -> OpenApiTools {
    OpenApi::parse(&doc.to_string())
        .unwrap()
        .base_url(site.url("/v1"))
        .http(Http::builder().allow(&site.allow()).unwrap())
        .credential("ApiKey", Credential::ApiKey("secret".into()))
        .build()
        .unwrap()
}

fn tool(tools: &[ToolEntry], name: &str) -> ToolEntry {
    tools
        .iter()
        .find(|t| t.name() == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
        .clone()
}

async fn call(tools: &[ToolEntry], name: &str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    tool(tools, name).invoke(args, Context::detached()).await
}

fn text(r: &CallToolResult) -> &str {
    r.content[0].as_text().unwrap_or_default()
}

#[tokio::test]
async fn each_operation_is_a_tool_with_its_schemas_and_hints() {
    let site = api().await;
    let built = tools_for(&site, &petstore());
    assert_eq!(
        built.names(),
        [
            "listPets",
            "createPet",
            "showPet",
            "delete_pets_petId",
            "petPhoto",
            "get_status"
        ]
    );
    // The operation without a summary or description is reported.
    assert_eq!(built.warnings().len(), 1, "{:?}", built.warnings());
    assert!(built.warnings()[0]
        .contains("at /paths/~1status/get: the operation GET /status has neither"));
    let tools: Vec<ToolEntry> = built.into_iter().collect();

    let list = serde_json::to_value(tool(&tools, "listPets").tool()).unwrap();
    assert_eq!(list["description"], "List pets");
    assert_eq!(list["annotations"]["readOnlyHint"], true);
    assert_eq!(
        list["inputSchema"]["properties"]["limit"],
        json!({"type": "integer", "description": "How many"})
    );
    // A non-object response is wrapped; refs resolved; 3.0's nullable as a null type.
    let pet = &list["outputSchema"]["properties"]["result"]["items"];
    assert_eq!(pet["properties"]["tag"]["type"], json!(["string", "null"]));
    assert_eq!(pet["properties"]["kind"]["enum"], json!(["dog", "cat"]));
    // A recursive schema, cut after three levels.
    let friend = &pet["properties"]["owner"]["properties"]["friend"]["properties"]["friend"]
        ["properties"]["friend"];
    assert!(
        friend["description"]
            .as_str()
            .unwrap()
            .contains("recursive"),
        "{friend}"
    );

    let show = serde_json::to_value(tool(&tools, "showPet").tool()).unwrap();
    assert_eq!(show["description"], "One pet\n\nBy its id.");
    assert_eq!(show["inputSchema"]["required"], json!(["petId"]));
    assert_eq!(show["inputSchema"]["properties"]["petId"]["minimum"], 1);
    assert!(show["inputSchema"]["properties"]
        .get("X-Request-Id")
        .is_some());
    // The API key is configured, never an argument.
    assert!(show["inputSchema"]["properties"].get("X-Api-Key").is_none());
    let delete = serde_json::to_value(tool(&tools, "delete_pets_petId").tool()).unwrap();
    assert_eq!(delete["annotations"]["destructiveHint"], true);
    let create = serde_json::to_value(tool(&tools, "createPet").tool()).unwrap();
    assert_eq!(create["inputSchema"]["required"], json!(["body"]));
    assert_eq!(create["annotations"]["readOnlyHint"], false);
}

#[tokio::test]
async fn arguments_go_where_the_document_says_and_results_come_back_by_kind() {
    let site = api().await;
    let tools: Vec<ToolEntry> = tools_for(&site, &petstore()).into_iter().collect();

    let listed = call(
        &tools,
        "listPets",
        json!({"limit": 2, "tag": ["dog", "cat"]}),
    )
    .await;
    assert_eq!(listed.is_error, None, "{listed:?}");
    let result = &listed.structured_content.as_ref().unwrap()["result"];
    assert_eq!(result[0]["name"], "Rex");
    assert_eq!(result[2]["query"], "limit=2&tag=dog&tag=cat");

    let made = call(
        &tools,
        "createPet",
        json!({"body": {"name": "Kit", "kind": "cat"}}),
    )
    .await;
    assert_eq!(made.is_error, None, "{made:?}");
    assert_eq!(made.structured_content.as_ref().unwrap()["id"], 3);
    let sent = site
        .seen()
        .into_iter()
        .find(|s| s.method == "POST")
        .unwrap();
    assert_eq!(sent.header("content-type"), Some("application/json"));
    assert_eq!(
        serde_json::from_slice::<Value>(&sent.body).unwrap(),
        json!({"name": "Kit", "kind": "cat"})
    );

    let shown = call(
        &tools,
        "showPet",
        json!({"petId": 1, "X-Request-Id": "r-1", "session": "s"}),
    )
    .await;
    assert_eq!(shown.structured_content.as_ref().unwrap()["name"], "Rex");
    let sent = site
        .seen()
        .into_iter()
        .find(|s| s.path == "/v1/pets/1" && s.method == "GET")
        .unwrap();
    assert_eq!(sent.header("x-request-id"), Some("r-1"));
    assert_eq!(sent.header("cookie"), Some("session=s"));
    assert_eq!(sent.header("x-api-key"), Some("secret"));

    // An operation whose security is empty gets no credential.
    let photo = call(&tools, "petPhoto", json!({"petId": 1})).await;
    let block = serde_json::to_value(&photo.content[0]).unwrap();
    assert_eq!(block["type"], "image");
    assert_eq!(block["mimeType"], "image/png");
    let sent = site
        .seen()
        .into_iter()
        .find(|s| s.path.ends_with("/photo"))
        .unwrap();
    assert_eq!(sent.header("x-api-key"), None);

    let deleted = call(&tools, "delete_pets_petId", json!({"petId": 1})).await;
    assert_eq!(text(&deleted), "HTTP 204 (no content)");

    // A status that is not 2xx is a tool error with the status and the body.
    let missing = call(&tools, "showPet", json!({"petId": 9})).await;
    assert_eq!(missing.is_error, Some(true));
    assert!(
        text(&missing).contains("answered HTTP 404 Not Found: {\"detail\":\"no such pet\"}"),
        "{}",
        text(&missing)
    );
    // A path argument is one path segment, whatever it holds.
    let odd = call(&tools, "showPet", json!({"petId": "1/../2"})).await;
    assert!(
        site.seen().iter().any(|s| s.path == "/v1/pets/1%2F..%2F2"),
        "{odd:?}"
    );
    // An argument the operation does not take.
    let unknown = call(&tools, "listPets", json!({"limitt": 2})).await;
    assert!(
        text(&unknown).contains("unknown argument `limitt`"),
        "{}",
        text(&unknown)
    );
}

#[tokio::test]
async fn the_credential_is_needed_and_the_address_rules_hold() {
    let site = api().await;
    // Without the key, the API refuses: an isError result.
    let built = OpenApi::parse(&petstore().to_string())
        .unwrap()
        .base_url(site.url("/v1"))
        .http(Http::builder().allow(&site.allow()).unwrap())
        .build()
        .unwrap();
    let tools: Vec<ToolEntry> = built.into_iter().collect();
    let refused = call(&tools, "createPet", json!({"body": {"name": "Kit"}})).await;
    assert!(text(&refused).contains("HTTP 401"), "{}", text(&refused));
    // Loopback is not allowed unless the host is: nothing is sent.
    let before = site.seen().len();
    let closed: Vec<ToolEntry> = OpenApi::parse(&petstore().to_string())
        .unwrap()
        .base_url(site.url("/v1"))
        .build()
        .unwrap()
        .into_iter()
        .collect();
    let blocked = call(&closed, "listPets", json!({})).await;
    assert_eq!(blocked.is_error, Some(true));
    assert!(text(&blocked).contains("failed"), "{}", text(&blocked));
    assert_eq!(site.seen().len(), before);
}

#[test]
fn filters_choose_the_operations() {
    let only = |b: oxmcp_toolbox::openapi::OpenApiBuilder| -> Vec<String> {
        b.base_url("http://127.0.0.1:1")
            .build()
            .unwrap()
            .names()
            .into_iter()
            .map(str::to_owned)
            .collect()
    };
    let parse = || OpenApi::parse(&petstore().to_string()).unwrap();
    assert_eq!(only(parse().include_tags(["admin"])), ["delete_pets_petId"]);
    assert_eq!(
        only(parse().include_operations(["showPet", "petPhoto"])),
        ["showPet", "petPhoto"]
    );
    assert_eq!(
        only(parse().include_paths(["/pets/*"])),
        ["showPet", "delete_pets_petId", "petPhoto"]
    );
    assert_eq!(
        only(
            parse()
                .include_tags(["pets"])
                .exclude_paths(["*/photo"])
                .exclude_operations(["createPet"])
        ),
        ["listPets", "showPet"]
    );
}

#[test]
fn bad_documents_are_refused_naming_the_position() {
    let refused = |doc: Value, strict: bool| -> String {
        let mut b = OpenApi::parse(&doc.to_string())
            .unwrap()
            .base_url("http://127.0.0.1:1");
        if strict {
            b = b.strict();
        }
        b.build().unwrap_err().to_string()
    };
    let e = refused(petstore(), true);
    assert!(e.starts_with("at /paths/~1status/get: the operation GET /status has neither a summary nor a description"), "{e}");

    let mut twice = petstore();
    twice["paths"]["/pets"]["post"]["operationId"] = json!("listPets");
    let e = refused(twice, false);
    assert!(e.contains("at /paths/~1pets/post: this operation and the one at /paths/~1pets/get have one operationId, `listPets`"), "{e}");

    let mut dangling = petstore();
    dangling["paths"]["/pets"]["post"]["requestBody"]["content"]["application/json"]["schema"] =
        json!({"$ref": "#/components/schemas/Nope"});
    let e = refused(dangling, false);
    assert!(e.contains("at /paths/~1pets/post/requestBody/content/application~1json/schema: the $ref \"#/components/schemas/Nope\" points nowhere"), "{e}");

    let mut cycle = petstore();
    cycle["components"]["schemas"]["A"] = json!({"$ref": "#/components/schemas/B"});
    cycle["components"]["schemas"]["B"] = json!({"$ref": "#/components/schemas/A"});
    cycle["paths"]["/pets"]["get"]["responses"]["200"]["content"]["application/json"]["schema"] =
        json!({"$ref": "#/components/schemas/A"});
    let e = refused(cycle, false);
    assert!(e.contains("a cycle of references: /components/schemas/A -> /components/schemas/B -> /components/schemas/A"), "{e}");

    let e = OpenApi::parse(r#"{"swagger": "2.0", "info": {}, "paths": {}}"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("Swagger (OpenAPI 2.0)"), "{e}");

    let mut no_server = petstore();
    no_server.as_object_mut().unwrap().remove("servers");
    let e = OpenApi::parse(&no_server.to_string())
        .unwrap()
        .build()
        .unwrap_err()
        .to_string();
    assert!(e.contains("no base URL"), "{e}");

    let e = OpenApi::parse(&petstore().to_string())
        .unwrap()
        .credential(
            "ApiKey",
            Credential::Basic {
                user: "u".into(),
                password: "p".into(),
            },
        )
        .build()
        .unwrap_err()
        .to_string();
    assert!(e.contains("at /components/securitySchemes/ApiKey: a Basic credential does not fit a `apiKey` scheme"), "{e}");
}

#[test]
fn a_yaml_document_of_openapi_3_1_reads_the_same() {
    let yaml = "openapi: 3.1.0\ninfo: {title: t, version: '1'}\nservers: [{url: 'http://127.0.0.1:1'}]\npaths:\n  /hello/{name}:\n    get:\n      summary: Say hello\n      parameters:\n        - {name: name, in: path, required: true, schema: {type: [string, 'null']}}\n        - {name: name, in: query, schema: {type: string}}\n      responses:\n        '200': {description: ok}\n";
    let built = OpenApi::parse(yaml).unwrap().build().unwrap();
    let tools: Vec<ToolEntry> = built.into_iter().collect();
    let def = serde_json::to_value(tools[0].tool()).unwrap();
    assert_eq!(def["name"], "get_hello_name");
    // One name in two places: each takes its place's name first.
    let props = def["inputSchema"]["properties"].as_object().unwrap();
    assert_eq!(
        props.keys().collect::<Vec<_>>(),
        ["path_name", "query_name"]
    );
    assert_eq!(def["inputSchema"]["required"], json!(["path_name"]));
}
