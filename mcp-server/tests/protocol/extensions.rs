//! Extensions (SEP-2133): what a server offers is listed in both eras; a
//! tool that needs one the client did not declare is refused with -32021
//! naming it; one the client declared reaches the tool with its settings.

use mcp_test_support::server as support;

use oxmcp_server::types::extension::TASKS;
use oxmcp_server::{Server, ToolEntry};
use serde_json::{json, Value};
use support::Client;

const MINE: &str = "com.example/notes-sync";

/// The same need, declared with the macro.
#[derive(Debug)]
pub struct Charts;

#[oxmcp_server::tool(description = "Charts for clients with the sync extension")]
impl Charts {
    #[describe("Draws a chart")]
    #[tool(requires_extensions("com.example/notes-sync"))]
    pub fn chart(&self, ctx: oxmcp_server::Context) -> String {
        format!("synced: {}", ctx.client_extension(MINE).is_some())
    }
}

fn server() -> Server {
    let mut settings = oxmcp_server::types::JsonObject::new();
    settings.insert("interval".into(), 30.into());
    let sync = ToolEntry::dynamic(
        "sync",
        "Syncs the notes, with the client's sync extension",
        json!({"type": "object"}),
        |_args, ctx: oxmcp_server::Context| async move {
            // Its settings as the client declared them.
            serde_json::to_string(&ctx.client_extension(MINE)).unwrap_or_default()
        },
    )
    .unwrap()
    .requiring_extensions(&[MINE]);
    Server::builder("ext", "1")
        .extension(TASKS, oxmcp_server::types::JsonObject::new())
        .extension(MINE, settings)
        .tool(sync)
        .toolbox(Charts)
        .build()
}

fn modern(id: i64, caps: &Value) -> Value {
    json!({"name": "sync", "arguments": {}, "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": caps,
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": id.to_string()},
    }})
}

#[tokio::test]
async fn offered_extensions_are_listed_in_both_eras() {
    let mut c = Client::start(server());
    let init = c.initialize("2025-11-25").await;
    let listed = &init["result"]["capabilities"]["extensions"];
    assert_eq!(listed[TASKS], json!({}), "{init}");
    assert_eq!(listed[MINE], json!({"interval": 30}), "{init}");
    let discover = c
        .request(
            1,
            "server/discover",
            json!({"_meta": support::modern_meta()}),
        )
        .await;
    assert_eq!(
        discover["result"]["capabilities"]["extensions"], *listed,
        "{discover}"
    );
    c.close().await.unwrap();
}

#[tokio::test]
async fn a_tool_needing_an_extension_is_refused_without_it_and_served_with_it() {
    // 2026-07-28: per request.
    let mut c = Client::start(server());
    let refused = c.request(1, "tools/call", modern(1, &json!({}))).await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert_eq!(
        refused["error"]["data"]["requiredCapabilities"],
        json!({"extensions": {MINE: {}}}),
        "{refused}"
    );
    let caps = json!({"extensions": {MINE: {"device": "phone"}}});
    let served = c.request(2, "tools/call", modern(2, &caps)).await;
    assert_eq!(
        served["result"]["content"][0]["text"], r#"{"device":"phone"}"#,
        "{served}"
    );
    let mut chart = modern(3, &json!({}));
    chart["name"] = "chart".into();
    let refused = c.request(3, "tools/call", chart.clone()).await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    chart["_meta"]["io.modelcontextprotocol/clientCapabilities"] = caps.clone();
    let drawn = c.request(4, "tools/call", chart).await;
    assert_eq!(
        drawn["result"]["content"][0]["text"], "synced: true",
        "{drawn}"
    );
    c.close().await.unwrap();

    // Legacy: as the session's initialize declared.
    let mut c = Client::start(server());
    c.initialize("2025-11-25").await;
    let call = json!({"name": "sync", "arguments": {}});
    let refused = c.request(1, "tools/call", call.clone()).await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    c.close().await.unwrap();
    let mut c = Client::start(server());
    c.request(0, "initialize", json!({"protocolVersion": "2025-11-25", "capabilities": {"extensions": {MINE: {}}}, "clientInfo": {"name": "t", "version": "1"}})).await;
    let served = c.request(1, "tools/call", call).await;
    assert_eq!(served["result"]["content"][0]["text"], "{}", "{served}");
    c.close().await.unwrap();
}

#[test]
fn an_identifier_that_breaks_the_rules_is_refused_at_build() {
    for (id, why) in [
        ("tasks", "has no `prefix/`"),
        ("io.example/", "its name is empty"),
    ] {
        let e = Server::builder("ext", "1")
            .extension(id, oxmcp_server::types::JsonObject::new())
            .try_build()
            .err()
            .unwrap_or_else(|| panic!("{id} was accepted"));
        assert!(e.to_string().contains(why), "{id}: {e}");
    }
    let twice = Server::builder("ext", "1")
        .extension(TASKS, oxmcp_server::types::JsonObject::new())
        .extension(TASKS, oxmcp_server::types::JsonObject::new())
        .try_build()
        .expect_err("a second declaration is refused");
    assert!(twice.to_string().contains("declared twice"), "{twice}");
}

/// The example skills (examples/skills).
#[cfg(feature = "skills")]
fn example_skills() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/skills")
}

#[cfg(feature = "skills")]
#[tokio::test]
async fn skills_are_listed_read_and_browsed() {
    let server = Server::builder("skills", "1")
        .skills(example_skills())
        .build();
    let mut c = Client::start(server);
    let init = c.initialize("2025-11-25").await;
    assert_eq!(
        init["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/skills"],
        json!({"directoryRead": true}),
        "{init}"
    );
    let list = c.request(1, "skills/list", json!({})).await;
    let entry = &list["result"]["skills"][0];
    assert_eq!(entry["uri"], "skill://pdf-summary/SKILL.md", "{list}");
    assert_eq!(entry["frontmatter"]["name"], "pdf-summary");
    let files = entry["resources"].as_array().unwrap();
    assert_eq!(files.len(), 3, "{entry}");
    // Each digest is the SHA-256 of the bytes served.
    let manifest = c
        .request(
            2,
            "resources/read",
            json!({"uri": "skill://pdf-summary/SKILL.md"}),
        )
        .await;
    let text = manifest["result"]["contents"][0]["text"].as_str().unwrap();
    assert_eq!(files[0]["size"], text.len(), "{entry}");
    assert!(text.starts_with("---\nname: pdf-summary"));
    let got = c
        .request(
            3,
            "skills/get",
            json!({"uri": "skill://pdf-summary/SKILL.md"}),
        )
        .await;
    assert_eq!(got["result"]["skill"], *entry);
    let unknown = c
        .request(4, "skills/get", json!({"uri": "skill://nope/SKILL.md"}))
        .await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    let dir = c
        .request(
            5,
            "resources/directory/read",
            json!({"uri": "skill://pdf-summary"}),
        )
        .await;
    let children: Vec<(String, String)> = dir["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["uri"].as_str().unwrap().to_owned(),
                r["mimeType"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert!(
        children.contains(&(
            "skill://pdf-summary/scripts".into(),
            "inode/directory".into()
        )),
        "{dir}"
    );
    let not_dir = c
        .request(
            6,
            "resources/directory/read",
            json!({"uri": "skill://pdf-summary/SKILL.md"}),
        )
        .await;
    assert_eq!(not_dir["error"]["code"], -32602, "{not_dir}");
    c.close().await.unwrap();
}

#[cfg(feature = "skills")]
#[test]
fn a_malformed_skill_is_refused_at_build() {
    let dir = std::env::temp_dir().join(format!("mcp-skills-{}", std::process::id()));
    let skill = dir.join("pdf-summary");
    std::fs::create_dir_all(&skill).unwrap();
    // The front matter names another skill than its folder.
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: other\ndescription: x\n---\n",
    )
    .unwrap();
    let e = Server::builder("skills", "1")
        .skills(&dir)
        .try_build()
        .expect_err("refused");
    assert!(e.to_string().contains("names another skill"), "{e}");
    std::fs::write(skill.join("SKILL.md"), "no front matter").unwrap();
    let e = Server::builder("skills", "1")
        .skills(&dir)
        .try_build()
        .expect_err("refused");
    assert!(e.to_string().contains("front matter"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A skill's files are regular files inside its folder: a symbolic link
/// (whether it points inside the folder or out of it, as `SKILL.md` or
/// deeper) is refused at build with its path, not served and not a panic.
/// `SKILL.md` as a link used to panic the build: the check for it followed
/// the link, the listing of the folder skipped it, and the loader took the
/// first file listed as `SKILL.md`.
#[cfg(all(feature = "skills", unix))]
#[test]
fn a_skill_file_that_is_a_symbolic_link_is_refused_at_build_with_its_path() {
    use std::os::unix::fs::symlink;
    let dir = std::env::temp_dir().join(format!("mcp-skills-links-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let skill = dir.join("pdf-summary");
    std::fs::create_dir_all(skill.join("scripts")).unwrap();
    let manifest = "---\nname: pdf-summary\ndescription: x\n---\n";
    let outside = dir.join("outside.md");
    std::fs::write(&outside, manifest).unwrap();
    let build = || {
        Server::builder("skills", "1")
            .skills(&dir)
            .try_build()
            .map(|_| ())
    };
    // Out of the folder, then (another file beside it) inside.
    for target in [outside.clone(), skill.join("real.md")] {
        if target.starts_with(&skill) {
            std::fs::write(&target, manifest).unwrap();
        }
        symlink(&target, skill.join("SKILL.md")).unwrap();
        let e = build().expect_err("a linked SKILL.md is refused");
        let e = e.to_string();
        assert!(e.contains("pdf-summary/SKILL.md"), "{e}");
        assert!(e.contains("symbolic link"), "{e}");
        std::fs::remove_file(skill.join("SKILL.md")).unwrap();
    }
    // A regular SKILL.md, and a link deeper in the folder to a file out of it.
    std::fs::rename(skill.join("real.md"), skill.join("SKILL.md")).unwrap();
    build().expect("a skill of regular files");
    symlink(&outside, skill.join("scripts/leak.md")).unwrap();
    let e = build().expect_err("a link deeper in the folder is refused");
    let e = e.to_string();
    assert!(e.contains("pdf-summary/scripts/leak.md"), "{e}");
    assert!(e.contains("symbolic link"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
