//! The `files` example served over stdio to the real client: every tool, read-only mode, client roots, and a hostile table checked by its effects.

use std::ffi::OsString;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use oxmcp_client::types::ContentBlock;
use oxmcp_client::{Client, Era};
use serde_json::{json, Value};

/// A scratch directory holding `root/` (served), `root2/` (a sibling
/// sharing its prefix) and `outside/` (never to be touched); removed on drop.
struct Scratch {
    base: PathBuf,
}

impl Scratch {
    fn new() -> Scratch {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let base = std::env::temp_dir().join(format!("mcp-files-{}-{n}", std::process::id()));
        let _ = fs::remove_dir_all(&base);
        fs::create_dir_all(&base).unwrap();
        let base = fs::canonicalize(base).unwrap();
        for d in ["root", "root2", "outside"] {
            fs::create_dir(base.join(d)).unwrap();
        }
        fs::write(base.join("outside/secret.txt"), "secret").unwrap();
        fs::write(base.join("root2/sibling.txt"), "sibling").unwrap();
        Scratch { base }
    }

    fn root(&self) -> PathBuf {
        self.base.join("root")
    }

    fn at(&self, rel: &str) -> PathBuf {
        self.base.join(rel)
    }

    fn path(&self, rel: &str) -> String {
        self.at(rel).display().to_string()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.base);
    }
}

fn command(args: &[OsString]) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_files"));
    cmd.args(args);
    cmd
}

async fn serve(root: &Path) -> Client {
    Client::builder()
        .connect_stdio(command(&[root.into()]))
        .await
        .unwrap()
}

/// Calls `tool`: whether it reported an error, and its first text.
async fn call(client: &Client, tool: &str, args: Value) -> (bool, String) {
    let result = client.call_tool_raw(tool, args).await.unwrap();
    let text = result
        .content
        .first()
        .and_then(ContentBlock::as_text)
        .unwrap_or_default()
        .to_owned();
    (result.is_error == Some(true), text)
}

async fn ok(client: &Client, tool: &str, args: Value) -> String {
    let (error, text) = call(client, tool, args.clone()).await;
    assert!(!error, "{tool} {args} failed: {text}");
    text
}

async fn still_serving(client: &Client, root: &Path) {
    let text = ok(client, "list_allowed_directories", json!({})).await;
    assert_eq!(text, format!("Allowed directories:\n{}", root.display()));
}

async fn tool_names(client: &Client) -> Vec<String> {
    let mut names: Vec<String> = client
        .list_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    names.sort();
    names
}

/// What a hostile call must leave as it was.
enum Effect {
    /// This file keeps this content.
    Unchanged(&'static str, &'static str),
    /// Nothing exists at this path.
    Absent(&'static str),
}

/// One hostile call: the tool, its arguments, what the error must say, and
/// what it must leave as it was.
type Case = (&'static str, Value, &'static str, Effect);

/// A root holding `inside.txt`, `sub/`, `link_out` (a symlink to
/// `outside/secret.txt`) and `dir_out` (a symlink to `outside/`), served.
async fn hostile_setup() -> (Scratch, Client) {
    let s = Scratch::new();
    fs::write(s.at("root/inside.txt"), "inside").unwrap();
    fs::create_dir(s.at("root/sub")).unwrap();
    symlink(s.at("outside/secret.txt"), s.at("root/link_out")).unwrap();
    symlink(s.at("outside"), s.at("root/dir_out")).unwrap();
    let client = serve(&s.root()).await;
    (s, client)
}

/// Runs each case: an error result mentioning its message, its effect
/// checked on the disk, and the server still answering afterwards.
async fn refused_without_effect(s: &Scratch, client: &Client, cases: Vec<Case>) {
    for (tool, args, message, effect) in cases {
        let (error, text) = call(client, tool, args.clone()).await;
        assert!(error, "{tool} {args} must fail, answered {text}");
        assert!(
            text.contains(message),
            "{tool} {args}: {text:?} should mention {message:?}"
        );
        match effect {
            Effect::Unchanged(rel, content) => assert_eq!(
                fs::read_to_string(s.at(rel)).unwrap(),
                content,
                "{tool} {args} changed {rel}"
            ),
            Effect::Absent(rel) => assert!(
                fs::symlink_metadata(s.at(rel)).is_err(),
                "{tool} {args} created {rel}"
            ),
        }
        still_serving(client, &s.root()).await;
    }
    assert_eq!(
        fs::read_to_string(s.at("root/inside.txt")).unwrap(),
        "inside"
    );
    assert!(fs::symlink_metadata(s.at("root/link_out"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        fs::read_dir(s.at("outside")).unwrap().count(),
        1,
        "outside/ holds only secret.txt"
    );
}

/// `..` and absolute paths that lead outside the root.
#[tokio::test]
async fn dot_dot_and_absolute_paths_outside_the_root_are_refused_without_effect() {
    let (s, client) = hostile_setup().await;
    let outside_secret = s.path("outside/secret.txt");
    let cases: Vec<Case> = vec![
        (
            "read_text_file",
            json!({"path": "../outside/secret.txt"}),
            "Access denied",
            Effect::Unchanged("outside/secret.txt", "secret"),
        ),
        (
            "read_text_file",
            json!({"path": outside_secret}),
            "Access denied",
            Effect::Unchanged("outside/secret.txt", "secret"),
        ),
        (
            "read_text_file",
            json!({"path": "/etc/passwd"}),
            "Access denied",
            Effect::Unchanged("outside/secret.txt", "secret"),
        ),
        (
            "write_file",
            json!({"path": "../outside/new.txt", "content": "pwned"}),
            "Access denied",
            Effect::Absent("outside/new.txt"),
        ),
        (
            "write_file",
            json!({"path": s.path("outside/new.txt"), "content": "pwned"}),
            "Access denied",
            Effect::Absent("outside/new.txt"),
        ),
        (
            "write_file",
            json!({"path": outside_secret, "content": "pwned"}),
            "Access denied",
            Effect::Unchanged("outside/secret.txt", "secret"),
        ),
        (
            "write_file",
            json!({"path": "sub/../../outside/new.txt", "content": "pwned"}),
            "Access denied",
            Effect::Absent("outside/new.txt"),
        ),
        (
            "create_directory",
            json!({"path": "../outside/made"}),
            "Access denied",
            Effect::Absent("outside/made"),
        ),
        (
            "move_file",
            json!({"source": "inside.txt", "destination": "../outside/moved.txt"}),
            "Access denied",
            Effect::Absent("outside/moved.txt"),
        ),
        (
            "move_file",
            json!({"source": outside_secret, "destination": "stolen.txt"}),
            "Access denied",
            Effect::Absent("root/stolen.txt"),
        ),
        (
            "directory_tree",
            json!({"path": ".."}),
            "Access denied",
            Effect::Unchanged("outside/secret.txt", "secret"),
        ),
        (
            "exists",
            json!({"path": "../outside/secret.txt"}),
            "Access denied",
            Effect::Unchanged("outside/secret.txt", "secret"),
        ),
    ];
    refused_without_effect(&s, &client, cases).await;
    client.close().await;
}

/// Symlinks inside the root whose targets are outside: a file and a directory.
#[tokio::test]
async fn symlinks_inside_the_root_pointing_outside_are_not_followed_for_reading_or_writing() {
    let (s, client) = hostile_setup().await;
    let cases: Vec<Case> = vec![
        (
            "read_media_file",
            json!({"path": "dir_out/secret.txt"}),
            "Access denied",
            Effect::Unchanged("outside/secret.txt", "secret"),
        ),
        (
            "read_text_file",
            json!({"path": "link_out"}),
            "Access denied",
            Effect::Unchanged("outside/secret.txt", "secret"),
        ),
        (
            "write_file",
            json!({"path": "link_out", "content": "pwned"}),
            "Access denied",
            Effect::Unchanged("outside/secret.txt", "secret"),
        ),
        (
            "write_file",
            json!({"path": "dir_out/new.txt", "content": "pwned"}),
            "Access denied",
            Effect::Absent("outside/new.txt"),
        ),
        (
            "write_file",
            json!({"path": "dir_out/secret.txt", "content": "pwned"}),
            "Access denied",
            Effect::Unchanged("outside/secret.txt", "secret"),
        ),
        (
            "edit_file",
            json!({"path": "link_out", "edits": [{"oldText": "secret", "newText": "pwned"}]}),
            "Access denied",
            Effect::Unchanged("outside/secret.txt", "secret"),
        ),
        (
            "create_directory",
            json!({"path": "dir_out/made/deeper"}),
            "Access denied",
            Effect::Absent("outside/made"),
        ),
        (
            "move_file",
            json!({"source": "inside.txt", "destination": "dir_out/moved.txt"}),
            "Access denied",
            Effect::Absent("outside/moved.txt"),
        ),
        (
            "move_file",
            json!({"source": "inside.txt", "destination": "link_out"}),
            "Access denied",
            Effect::Unchanged("outside/secret.txt", "secret"),
        ),
        (
            "list_directory",
            json!({"path": "dir_out"}),
            "Access denied",
            Effect::Unchanged("outside/secret.txt", "secret"),
        ),
        (
            "search_files",
            json!({"path": "dir_out", "pattern": "*"}),
            "Access denied",
            Effect::Unchanged("outside/secret.txt", "secret"),
        ),
        (
            "get_file_info",
            json!({"path": "link_out"}),
            "Access denied",
            Effect::Unchanged("outside/secret.txt", "secret"),
        ),
    ];
    refused_without_effect(&s, &client, cases).await;
    client.close().await;
}

/// `root2` starts with the string `root` but is not inside it.
#[tokio::test]
async fn a_sibling_directory_sharing_the_roots_prefix_is_outside_it() {
    let (s, client) = hostile_setup().await;
    let cases: Vec<Case> = vec![
        (
            "read_text_file",
            json!({"path": s.path("root2/sibling.txt")}),
            "Access denied",
            Effect::Unchanged("root2/sibling.txt", "sibling"),
        ),
        (
            "read_text_file",
            json!({"path": "../root2/sibling.txt"}),
            "Access denied",
            Effect::Unchanged("root2/sibling.txt", "sibling"),
        ),
        (
            "write_file",
            json!({"path": s.path("root2/new.txt"), "content": "pwned"}),
            "Access denied",
            Effect::Absent("root2/new.txt"),
        ),
        (
            "write_file",
            json!({"path": s.path("root2/sibling.txt"), "content": "pwned"}),
            "Access denied",
            Effect::Unchanged("root2/sibling.txt", "sibling"),
        ),
        (
            "list_directory",
            json!({"path": s.path("root2")}),
            "Access denied",
            Effect::Unchanged("root2/sibling.txt", "sibling"),
        ),
        (
            "create_directory",
            json!({"path": s.path("root2/made")}),
            "Access denied",
            Effect::Absent("root2/made"),
        ),
    ];
    refused_without_effect(&s, &client, cases).await;
    client.close().await;
}

/// A NUL byte anywhere in a path.
#[tokio::test]
async fn paths_with_nul_bytes_are_refused_without_effect() {
    let (s, client) = hostile_setup().await;
    let cases: Vec<Case> = vec![
        (
            "read_text_file",
            json!({"path": "inside.txt\u{0}../../outside/secret.txt"}),
            "NUL",
            Effect::Unchanged("outside/secret.txt", "secret"),
        ),
        (
            "write_file",
            json!({"path": "new\u{0}.txt", "content": "x"}),
            "NUL",
            Effect::Absent("root/new"),
        ),
        (
            "write_file",
            json!({"path": format!("{}\u{0}", s.path("outside/nul.txt")), "content": "x"}),
            "NUL",
            Effect::Absent("outside/nul.txt"),
        ),
    ];
    refused_without_effect(&s, &client, cases).await;
    client.close().await;
}

/// Bad input that is not an attack: each an `isError` result naming the problem.
#[tokio::test]
async fn bad_input_is_an_error_result_and_the_server_answers_on() {
    let (s, client) = hostile_setup().await;
    let cases: Vec<Case> = vec![
        (
            "move_file",
            json!({"source": s.path("root"), "destination": "moved"}),
            "cannot be moved",
            Effect::Absent("root/moved"),
        ),
        (
            "read_text_file",
            json!({"path": ""}),
            "empty",
            Effect::Unchanged("outside/secret.txt", "secret"),
        ),
        (
            "read_text_file",
            json!({"path": "sub"}),
            "directory",
            Effect::Unchanged("outside/secret.txt", "secret"),
        ),
        (
            "write_file",
            json!({"path": "missing/dir/new.txt", "content": "x"}),
            "Parent directory does not exist",
            Effect::Absent("root/missing"),
        ),
        (
            "read_text_file",
            json!({"path": "inside.txt", "head": 1, "tail": 1}),
            "both head and tail",
            Effect::Unchanged("root/inside.txt", "inside"),
        ),
        (
            "edit_file",
            json!({"path": "inside.txt", "edits": [{"oldText": "absent", "newText": "x"}]}),
            "Could not find exact match",
            Effect::Unchanged("root/inside.txt", "inside"),
        ),
        (
            "read_text_file",
            json!({"path": 42}),
            "path",
            Effect::Unchanged("root/inside.txt", "inside"),
        ),
    ];
    refused_without_effect(&s, &client, cases).await;
    client.close().await;
}

#[tokio::test]
async fn a_dangling_symlink_is_replaced_by_the_write_never_followed_outside() {
    let s = Scratch::new();
    symlink(s.at("outside/planted.txt"), s.at("root/dangling")).unwrap();
    let client = serve(&s.root()).await;
    let (error, text) = call(&client, "read_text_file", json!({"path": "dangling"})).await;
    assert!(error, "{text}");
    ok(
        &client,
        "write_file",
        json!({"path": "dangling", "content": "mine"}),
    )
    .await;
    assert!(
        !s.at("outside/planted.txt").exists(),
        "the write followed the link outside"
    );
    let meta = fs::symlink_metadata(s.at("root/dangling")).unwrap();
    assert!(meta.file_type().is_file(), "the link itself was replaced");
    assert_eq!(fs::read_to_string(s.at("root/dangling")).unwrap(), "mine");
    client.close().await;
}

#[tokio::test]
async fn a_directory_swapped_for_a_symlink_after_a_call_is_checked_again_on_the_next() {
    // Between two calls the check is redone; the swap inside one call (after
    // the check, before the write) is shown by the crate's unit tests, which
    // can stop between the two.
    let s = Scratch::new();
    fs::create_dir(s.at("root/work")).unwrap();
    let client = serve(&s.root()).await;
    ok(
        &client,
        "write_file",
        json!({"path": "work/a.txt", "content": "one"}),
    )
    .await;
    fs::remove_dir_all(s.at("root/work")).unwrap();
    symlink(s.at("outside"), s.at("root/work")).unwrap();
    let (error, text) = call(
        &client,
        "write_file",
        json!({"path": "work/a.txt", "content": "two"}),
    )
    .await;
    assert!(error && text.contains("Access denied"), "{text}");
    assert!(!s.at("outside/a.txt").exists());
    let (error, _) = call(
        &client,
        "edit_file",
        json!({"path": "work/secret.txt", "edits": [{"oldText": "secret", "newText": "x"}]}),
    )
    .await;
    assert!(error);
    assert_eq!(
        fs::read_to_string(s.at("outside/secret.txt")).unwrap(),
        "secret"
    );
    still_serving(&client, &s.root()).await;
    client.close().await;
}

#[tokio::test]
async fn a_file_over_the_read_limit_is_refused_and_the_server_answers_on() {
    let s = Scratch::new();
    let big = vec![b'x'; 10 * 1024 * 1024 + 1];
    fs::write(s.at("root/big.txt"), &big).unwrap();
    let client = serve(&s.root()).await;
    for tool in ["read_text_file", "read_media_file", "read_multiple_files"] {
        let args = if tool == "read_multiple_files" {
            json!({"paths": ["big.txt"]})
        } else {
            json!({"path": "big.txt"})
        };
        let (error, text) = call(&client, tool, args).await;
        if tool == "read_multiple_files" {
            assert!(
                !error && text.contains("big.txt: Error -") && text.contains("limit"),
                "{text}"
            );
        } else {
            assert!(error && text.contains("over the limit"), "{tool}: {text}");
        }
    }
    // Read up to the read limit, then cut to the result cap, with a marker.
    let head = client
        .call_tool_raw("read_text_file", json!({"path": "big.txt", "head": 1}))
        .await
        .unwrap();
    let texts: Vec<&str> = head
        .content
        .iter()
        .filter_map(ContentBlock::as_text)
        .collect();
    let cap = oxmcp_server::tool::DEFAULT_MAX_RESULT_CHARS;
    assert_eq!(texts[0], "x".repeat(cap));
    let marker = format!(
        "[result cut at {cap} characters: the text had {} characters",
        10 * 1024 * 1024
    );
    assert!(texts[1].starts_with(&marker), "{}", texts[1]);
    still_serving(&client, &s.root()).await;
    client.close().await;
}

#[tokio::test]
async fn writing_reading_and_editing_answer_as_the_reference_server_does() {
    let s = Scratch::new();
    let client = serve(&s.root()).await;
    let root = s.root();

    assert_eq!(
        ok(
            &client,
            "write_file",
            json!({"path": "notes.txt", "content": "one\ntwo\nthree\n"})
        )
        .await,
        "Successfully wrote to notes.txt"
    );
    assert_eq!(
        ok(&client, "read_text_file", json!({"path": "notes.txt"})).await,
        "one\ntwo\nthree\n"
    );
    assert_eq!(
        ok(
            &client,
            "read_text_file",
            json!({"path": "notes.txt", "head": 2})
        )
        .await,
        "one\ntwo"
    );
    assert_eq!(
        ok(
            &client,
            "read_text_file",
            json!({"path": s.path("root/notes.txt"), "tail": 2})
        )
        .await,
        "three\n"
    );

    let diff = ok(
        &client,
        "edit_file",
        json!({"path": "notes.txt", "edits": [{"oldText": "two", "newText": "2"}], "dryRun": true}),
    )
    .await;
    assert!(diff.starts_with("```diff\nIndex: "), "{diff}");
    assert!(
        diff.contains("\n-two\n+2\n") && diff.ends_with("```\n\n"),
        "{diff}"
    );
    assert_eq!(
        fs::read_to_string(s.at("root/notes.txt")).unwrap(),
        "one\ntwo\nthree\n",
        "a dry run writes nothing"
    );
    ok(&client, "edit_file", json!({"path": "notes.txt", "edits": [{"oldText": "two", "newText": "2"}, {"oldText": "  three", "newText": "3"}]})).await;
    assert_eq!(
        fs::read_to_string(s.at("root/notes.txt")).unwrap(),
        "one\n2\n3\n"
    );
    still_serving(&client, &root).await;
    client.close().await;
}

#[tokio::test]
async fn directories_are_created_listed_and_walked_as_the_reference_server_does() {
    let s = Scratch::new();
    fs::write(s.at("root/notes.txt"), "one\n2\n3\n").unwrap();
    let client = serve(&s.root()).await;
    let root = s.root();

    assert_eq!(
        ok(&client, "create_directory", json!({"path": "a/b/c"})).await,
        "Successfully created directory a/b/c"
    );
    assert!(s.at("root/a/b/c").is_dir());
    ok(&client, "create_directory", json!({"path": "a/b/c"})).await;
    ok(
        &client,
        "write_file",
        json!({"path": "a/b/deep.txt", "content": "deep"}),
    )
    .await;

    assert_eq!(
        ok(&client, "list_directory", json!({"path": "."})).await,
        "[DIR] a\n[FILE] notes.txt"
    );
    let sized = ok(
        &client,
        "list_directory_with_sizes",
        json!({"path": s.path("root")}),
    )
    .await;
    assert_eq!(
        sized,
        format!("[DIR] {:<30} \n[FILE] {:<30} {:>10}\n\nTotal: 1 files, 1 directories\nCombined size: 8 B", "a", "notes.txt", "8 B")
    );
    fs::write(s.at("root/a/b/c/small.txt"), "1").unwrap();
    fs::write(s.at("root/a/b/c/large.txt"), "1234").unwrap();
    let by_size = ok(
        &client,
        "list_directory_with_sizes",
        json!({"path": "a/b/c", "sortBy": "size"}),
    )
    .await;
    assert!(
        by_size.starts_with("[FILE] large.txt") && by_size.contains("\n[FILE] small.txt"),
        "{by_size}"
    );
    assert!(
        by_size.ends_with("Total: 2 files, 0 directories\nCombined size: 5 B"),
        "{by_size}"
    );
    fs::remove_file(s.at("root/a/b/c/small.txt")).unwrap();
    fs::remove_file(s.at("root/a/b/c/large.txt")).unwrap();

    let tree: Value =
        serde_json::from_str(&ok(&client, "directory_tree", json!({"path": "a"})).await).unwrap();
    assert_eq!(
        tree,
        json!([{"name": "b", "type": "directory", "children": [
            {"name": "c", "type": "directory", "children": []},
            {"name": "deep.txt", "type": "file"}
        ]}])
    );
    let pruned: Value = serde_json::from_str(
        &ok(
            &client,
            "directory_tree",
            json!({"path": "a", "excludePatterns": ["c"]}),
        )
        .await,
    )
    .unwrap();
    assert_eq!(
        pruned,
        json!([{"name": "b", "type": "directory", "children": [{"name": "deep.txt", "type": "file"}]}])
    );
    still_serving(&client, &root).await;
    client.close().await;
}

#[tokio::test]
async fn search_move_info_exists_and_media_answer_as_the_reference_server_does() {
    let s = Scratch::new();
    fs::create_dir_all(s.at("root/a/b/c")).unwrap();
    fs::write(s.at("root/a/b/deep.txt"), "deep").unwrap();
    fs::write(s.at("root/notes.txt"), "one\n2\n3\n").unwrap();
    let client = serve(&s.root()).await;
    let root = s.root();

    assert_eq!(
        ok(
            &client,
            "search_files",
            json!({"path": ".", "pattern": "**/*.txt"})
        )
        .await,
        format!(
            "{}\n{}",
            root.join("a/b/deep.txt").display(),
            root.join("notes.txt").display()
        )
    );
    assert_eq!(
        ok(
            &client,
            "search_files",
            json!({"path": ".", "pattern": "**/*.txt", "excludePatterns": ["a/**"]})
        )
        .await,
        root.join("notes.txt").display().to_string()
    );
    assert_eq!(
        ok(
            &client,
            "search_files",
            json!({"path": ".", "pattern": "*.rs"})
        )
        .await,
        "No matches found"
    );

    assert_eq!(
        ok(
            &client,
            "move_file",
            json!({"source": "notes.txt", "destination": "a/moved.txt"})
        )
        .await,
        "Successfully moved notes.txt to a/moved.txt"
    );
    assert!(!s.at("root/notes.txt").exists() && s.at("root/a/moved.txt").is_file());
    let (error, text) = call(
        &client,
        "move_file",
        json!({"source": "a/moved.txt", "destination": "a/b/deep.txt"}),
    )
    .await;
    assert!(error && text.contains("already exists"), "{text}");
    assert_eq!(
        fs::read_to_string(s.at("root/a/b/deep.txt")).unwrap(),
        "deep"
    );

    let info = ok(&client, "get_file_info", json!({"path": "a/b/deep.txt"})).await;
    let keys: Vec<&str> = info.lines().map(|l| l.split(':').next().unwrap()).collect();
    assert_eq!(
        keys,
        [
            "size",
            "created",
            "modified",
            "accessed",
            "isDirectory",
            "isFile",
            "permissions"
        ]
    );
    assert!(
        info.starts_with("size: 4\n")
            && info.contains("isFile: true")
            && info.contains("isDirectory: false"),
        "{info}"
    );

    assert_eq!(
        ok(&client, "exists", json!({"path": "a/moved.txt"})).await,
        "true"
    );
    assert_eq!(
        ok(&client, "exists", json!({"path": "a/nothing/here"})).await,
        "false"
    );

    fs::write(s.at("root/a/one.txt"), "1").unwrap();
    assert_eq!(
        ok(
            &client,
            "read_multiple_files",
            json!({"paths": ["a/one.txt", "a/missing.txt"]})
        )
        .await,
        "a/one.txt:\n1\n\n---\na/missing.txt: Error - a/missing.txt: No such file or directory"
    );

    fs::write(s.at("root/pixel.png"), [0x89, b'P', b'N', b'G']).unwrap();
    fs::write(s.at("root/blob.bin"), [0, 1, 2]).unwrap();
    let image = client
        .call_tool("read_media_file", json!({"path": "pixel.png"}))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&image.content[0]).unwrap(),
        json!({"type": "image", "data": "iVBORw==", "mimeType": "image/png"})
    );
    let blob = client
        .call_tool("read_media_file", json!({"path": "blob.bin"}))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&blob.content[0]).unwrap(),
        json!({"type": "resource", "resource": {"uri": format!("file://{}", root.join("blob.bin").display()), "mimeType": "application/octet-stream", "blob": "AAEC"}})
    );

    still_serving(&client, &root).await;
    client.close().await;
}

#[tokio::test]
async fn annotations_and_parameter_names_match_the_reference_server() {
    let s = Scratch::new();
    let client = serve(&s.root()).await;
    let tools = client.list_tools().await.unwrap();
    let by_name =
        |name: &str| serde_json::to_value(tools.iter().find(|t| t.name == name).unwrap()).unwrap();
    for name in [
        "read_text_file",
        "read_media_file",
        "read_multiple_files",
        "list_directory",
        "list_directory_with_sizes",
        "directory_tree",
        "search_files",
        "get_file_info",
        "list_allowed_directories",
        "exists",
    ] {
        assert_eq!(by_name(name)["annotations"]["readOnlyHint"], true, "{name}");
        assert_eq!(
            by_name(name)["annotations"]["openWorldHint"],
            false,
            "{name}"
        );
    }
    let hints = |name: &str| {
        let a = &by_name(name)["annotations"];
        (
            a["readOnlyHint"].clone(),
            a["destructiveHint"].clone(),
            a["idempotentHint"].clone(),
        )
    };
    assert_eq!(
        hints("write_file"),
        (json!(false), json!(true), json!(true))
    );
    assert_eq!(
        hints("edit_file"),
        (json!(false), json!(true), json!(false))
    );
    assert_eq!(
        hints("create_directory"),
        (json!(false), json!(false), json!(true))
    );
    assert_eq!(
        hints("move_file"),
        (json!(false), json!(true), json!(false))
    );
    let props = |name: &str| {
        let mut keys: Vec<String> = by_name(name)["inputSchema"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        keys.sort();
        keys
    };
    assert_eq!(props("edit_file"), ["dryRun", "edits", "path"]);
    assert_eq!(props("list_directory_with_sizes"), ["path", "sortBy"]);
    assert_eq!(
        props("search_files"),
        ["excludePatterns", "path", "pattern"]
    );
    assert_eq!(props("directory_tree"), ["excludePatterns", "path"]);
    assert_eq!(props("read_text_file"), ["head", "path", "tail"]);
    assert_eq!(props("move_file"), ["destination", "source"]);
    let edits = serde_json::to_string(&by_name("edit_file")["inputSchema"]).unwrap();
    assert!(
        edits.contains("oldText") && edits.contains("newText"),
        "{edits}"
    );
    client.close().await;
}

#[tokio::test]
async fn read_only_mode_offers_no_changing_tool() {
    let s = Scratch::new();
    let client = Client::builder()
        .connect_stdio(command(&["--read-only".into(), s.root().into()]))
        .await
        .unwrap();
    assert_eq!(
        tool_names(&client).await,
        [
            "directory_tree",
            "exists",
            "get_file_info",
            "list_allowed_directories",
            "list_directory",
            "list_directory_with_sizes",
            "read_media_file",
            "read_multiple_files",
            "read_text_file",
            "search_files",
        ]
    );
    let refused = client
        .call_tool_raw("write_file", json!({"path": "x.txt", "content": "x"}))
        .await;
    assert!(
        refused.is_err(),
        "write_file is an unknown tool: {refused:?}"
    );
    assert!(!s.at("root/x.txt").exists());
    still_serving(&client, &s.root()).await;
    client.close().await;

    let writable = serve(&s.root()).await;
    let names = tool_names(&writable).await;
    for tool in ["create_directory", "edit_file", "move_file", "write_file"] {
        assert!(
            names.iter().any(|n| n == tool),
            "{tool} offered when writable"
        );
    }
    writable.close().await;
}

#[tokio::test]
async fn client_roots_narrow_the_allowed_directories_in_both_eras() {
    let s = Scratch::new();
    fs::create_dir(s.at("root/shared")).unwrap();
    fs::write(s.at("root/shared/in.txt"), "in").unwrap();
    fs::write(s.at("root/top.txt"), "top").unwrap();
    for era in [Era::Legacy, Era::Modern] {
        let roots = json!({"roots": [
            {"uri": format!("file://{}", s.path("root/shared")), "name": "shared"},
            {"uri": format!("file://{}", s.path("outside")), "name": "not allowed by the server"},
        ]});
        #[allow(deprecated)] // roots, tested on purpose
        let client = Client::builder()
            .protocol(era)
            .roots_handler(move |_| {
                let roots = roots.clone();
                async move { Ok(roots) }
            })
            .connect_stdio(command(&[s.root().into()]))
            .await
            .unwrap();
        assert_eq!(
            ok(&client, "list_allowed_directories", json!({})).await,
            format!("Allowed directories:\n{}", s.path("root/shared")),
            "{era:?}"
        );
        assert_eq!(
            ok(&client, "read_text_file", json!({"path": "in.txt"})).await,
            "in"
        );
        for path in [s.path("root/top.txt"), s.path("outside/secret.txt")] {
            let (error, text) = call(&client, "read_text_file", json!({"path": path})).await;
            assert!(
                error && text.contains("Access denied"),
                "{era:?} {path}: {text}"
            );
        }
        let (error, _) = call(
            &client,
            "write_file",
            json!({"path": s.path("root/new.txt"), "content": "x"}),
        )
        .await;
        assert!(error);
        assert!(!s.at("root/new.txt").exists());
        client.close().await;
    }
}

#[tokio::test]
async fn bad_arguments_get_the_usage_and_exit_code_2() {
    let bin = env!("CARGO_BIN_EXE_files");
    let none = std::process::Command::new(bin).output().unwrap();
    assert_eq!(none.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&none.stderr).contains("Usage: files"));
    let unknown = std::process::Command::new(bin)
        .args(["--bogus", "/tmp"])
        .output()
        .unwrap();
    assert_eq!(unknown.status.code(), Some(2));
    let missing = std::process::Command::new(bin)
        .arg("/nonexistent/mcp-files-root")
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot open the allowed directory"));
}
