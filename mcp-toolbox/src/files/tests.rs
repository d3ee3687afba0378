//! Unit tests of the files toolbox: the check, the use, the race between them, the limits.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::json;

use super::confine::{file_uri, file_uri_path, Scope};
use super::{fsops, text, Core, Edit, Files, FilesClient};

/// `root/` and `outside/` in a fresh directory, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Scratch {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let base = std::env::temp_dir().join(format!("mcp-files-unit-{}-{n}", std::process::id()));
        let _ = fs::remove_dir_all(&base);
        fs::create_dir_all(base.join("root")).unwrap();
        fs::create_dir_all(base.join("outside")).unwrap();
        let base = fs::canonicalize(base).unwrap();
        fs::write(base.join("outside/secret.txt"), "secret").unwrap();
        Scratch(base)
    }

    fn at(&self, rel: &str) -> PathBuf {
        self.0.join(rel)
    }

    fn files(&self) -> Files {
        Files::builder()
            .root(self.at("root"))
            .read_only(false)
            .build()
            .unwrap()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn core(files: &Files) -> &Core {
    &files.tools.core
}

fn scope(files: &Files) -> Scope {
    Scope::new(&core(files).roots, None)
}

/// Writes through an already checked target, as `write_file` does after its check.
fn write_checked(
    core: &Core,
    t: &super::confine::Target,
    path: &str,
    bytes: &[u8],
) -> Result<(), String> {
    let (dir, name) = core
        .parent_of(t, path)
        .map_err(|e| e.message().to_owned())?;
    fsops::replace(&dir, &name.unwrap(), bytes).map_err(|e| e.to_string())
}

#[test]
fn a_directory_swapped_for_a_symlink_after_the_check_is_not_followed_by_the_write() {
    let s = Scratch::new();
    fs::create_dir(s.at("root/work")).unwrap();
    let files = s.files();
    let t = core(&files).locate(&scope(&files), "work/new.txt").unwrap();
    // The race, deterministically: the checked directory becomes a symlink
    // to the outside between the check and the write.
    fs::rename(s.at("root/work"), s.at("root/work.old")).unwrap();
    symlink(s.at("outside"), s.at("root/work")).unwrap();
    let err = write_checked(core(&files), &t, "work/new.txt", b"pwned").unwrap_err();
    assert!(err.contains("symbolic link"), "{err}");
    assert!(!s.at("outside/new.txt").exists());
    assert!(!s.at("root/work.old/new.txt").exists());
}

#[test]
fn a_directory_swapped_for_a_symlink_after_the_check_is_not_followed_by_the_read() {
    let s = Scratch::new();
    fs::create_dir(s.at("root/work")).unwrap();
    fs::write(s.at("root/work/secret.txt"), "mine").unwrap();
    let files = s.files();
    let t = core(&files)
        .locate(&scope(&files), "work/secret.txt")
        .unwrap();
    fs::rename(s.at("root/work"), s.at("root/work.old")).unwrap();
    symlink(s.at("outside"), s.at("root/work")).unwrap();
    let err = core(&files).open_file(&t, "work/secret.txt").unwrap_err();
    assert!(err.message().contains("symbolic link"), "{}", err.message());
}

#[test]
fn a_symlink_planted_at_the_name_after_the_check_is_replaced_not_followed() {
    let s = Scratch::new();
    fs::write(s.at("root/target.txt"), "old").unwrap();
    let files = s.files();
    let t = core(&files).locate(&scope(&files), "target.txt").unwrap();
    fs::remove_file(s.at("root/target.txt")).unwrap();
    symlink(s.at("outside/secret.txt"), s.at("root/target.txt")).unwrap();
    write_checked(core(&files), &t, "target.txt", b"new").unwrap();
    assert_eq!(
        fs::read_to_string(s.at("outside/secret.txt")).unwrap(),
        "secret"
    );
    assert!(fs::symlink_metadata(s.at("root/target.txt"))
        .unwrap()
        .is_file());
    assert_eq!(fs::read_to_string(s.at("root/target.txt")).unwrap(), "new");
}

#[test]
fn a_write_leaves_no_temporary_file_and_keeps_the_permissions() {
    use std::os::unix::fs::PermissionsExt as _;
    let s = Scratch::new();
    fs::write(s.at("root/f.txt"), "old").unwrap();
    fs::set_permissions(s.at("root/f.txt"), fs::Permissions::from_mode(0o600)).unwrap();
    let files = s.files();
    let t = core(&files).locate(&scope(&files), "f.txt").unwrap();
    write_checked(core(&files), &t, "f.txt", b"new").unwrap();
    let mode = fs::metadata(s.at("root/f.txt"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    let names: Vec<_> = fs::read_dir(s.at("root"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["f.txt"]);
}

#[test]
fn paths_sharing_a_roots_prefix_are_outside_it() {
    let s = Scratch::new();
    fs::create_dir(s.at("root2")).unwrap();
    let files = s.files();
    let sibling = s.at("root2/x.txt").display().to_string();
    let err = core(&files).locate(&scope(&files), &sibling).unwrap_err();
    assert!(
        err.message().starts_with("Access denied"),
        "{}",
        err.message()
    );
}

#[test]
fn client_roots_keep_only_what_lies_inside_both() {
    let s = Scratch::new();
    fs::create_dir_all(s.at("root/a/b")).unwrap();
    fs::create_dir(s.at("root2")).unwrap();
    let files = s.files();
    let roots = &core(&files).roots;
    let narrowed = Scope::new(
        roots,
        Some(&[s.at("root/a"), s.at("outside"), s.at("root2")]),
    );
    assert_eq!(narrowed.dirs, [s.at("root/a")]);
    let wider = Scope::new(roots, Some(std::slice::from_ref(&s.0)));
    assert_eq!(wider.dirs, [s.at("root")]);
    let none = Scope::new(roots, Some(&[]));
    assert!(none.dirs.is_empty());
    let err = core(&files).locate(&none, "x.txt").unwrap_err();
    assert!(
        err.message().starts_with("Access denied"),
        "{}",
        err.message()
    );
}

#[test]
fn file_uris_decode_to_local_paths_only() {
    assert_eq!(
        file_uri_path("file:///tmp/a%20b"),
        Some(PathBuf::from("/tmp/a b"))
    );
    assert_eq!(
        file_uri_path("file://localhost/x"),
        Some(PathBuf::from("/x"))
    );
    assert_eq!(file_uri_path("file://elsewhere/x"), None);
    assert_eq!(file_uri_path("https://example.com/x"), None);
    assert_eq!(file_uri_path("file:///a%00b"), None);
    assert_eq!(file_uri_path("file:///a%zz"), None);
    assert_eq!(file_uri(Path::new("/tmp/a b%")), "file:///tmp/a%20b%25");
}

#[test]
fn the_builder_refuses_no_root_a_missing_root_and_a_nul_byte() {
    assert!(matches!(
        Files::builder().build(),
        Err(super::BuildError::NoRoot)
    ));
    assert!(Files::builder()
        .root("/nonexistent/mcp-files")
        .build()
        .is_err());
    assert!(Files::builder().root("/tmp\0/x").build().is_err());
    let s = Scratch::new();
    let files = Files::builder().root(s.at("root")).build().unwrap();
    assert!(files.is_read_only(), "read-only is the default");
}

#[test]
fn sizes_are_written_as_the_reference_server_writes_them() {
    assert_eq!(text::format_size(0), "0 B");
    assert_eq!(text::format_size(1023), "1023 B");
    assert_eq!(text::format_size(1536), "1.50 KB");
    assert_eq!(text::format_size(10 * 1024 * 1024), "10.00 MB");
}

#[test]
fn edits_apply_in_order_exactly_or_by_trimmed_lines() {
    let edit = |old: &str, new: &str| Edit {
        old_text: old.into(),
        new_text: new.into(),
    };
    assert_eq!(
        text::apply_edits("a b a", &[edit("a", "c"), edit("a", "d")]).unwrap(),
        "c b d"
    );
    assert_eq!(
        text::apply_edits(
            "fn f() {\n    let x = 1;\n}\n",
            &[edit("let x = 1;", "let x = 2;")]
        )
        .unwrap(),
        "fn f() {\n    let x = 2;\n}\n"
    );
    assert_eq!(
        text::apply_edits("  one\n  two\n", &[edit("one\ntwo", "three")]).unwrap(),
        "  three\n"
    );
    assert!(text::apply_edits("abc", &[edit("zzz", "y")]).is_err());
    assert!(text::apply_edits("abc", &[edit("", "y")]).is_err());
}

#[test]
fn times_are_rfc3339_in_utc() {
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_millis(1_795_000_000_123);
    assert_eq!(text::rfc3339(t), "2026-11-18T11:06:40.123Z");
    assert_eq!(
        text::rfc3339(std::time::UNIX_EPOCH),
        "1970-01-01T00:00:00.000Z"
    );
}

/// The toolbox served in process, and a client connected to it.
async fn in_process(files: Files) -> oxmcp_client::Client {
    let server = oxmcp_server::Server::builder("files", "1")
        .toolbox(files)
        .build();
    let (client_end, server_end) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(server_end);
    tokio::spawn(server.serve_io(server_read, server_write));
    let (client_read, client_write) = tokio::io::split(client_end);
    oxmcp_client::Client::builder()
        .connect_io(client_read, client_write)
        .await
        .unwrap()
}

#[tokio::test]
async fn writes_and_reads_over_the_limits_are_refused_and_change_nothing() {
    let s = Scratch::new();
    fs::write(s.at("root/small.txt"), "abc").unwrap();
    fs::write(s.at("root/nine.txt"), "123456789").unwrap();
    let files = Files::builder()
        .root(s.at("root"))
        .read_only(false)
        .max_read_bytes(8)
        .max_write_bytes(4)
        .build()
        .unwrap();
    let client = in_process(files).await;
    let call = |tool: &'static str, args: serde_json::Value| {
        let client = client.clone();
        async move {
            let r = client.call_tool_raw(tool, args).await.unwrap();
            let text = r.content[0].as_text().unwrap_or_default().to_owned();
            (r.is_error == Some(true), text)
        }
    };
    let (error, text) = call("write_file", json!({"path": "new.txt", "content": "12345"})).await;
    assert!(error && text.contains("over the write limit"), "{text}");
    assert!(!s.at("root/new.txt").exists());
    let (error, text) = call(
        "edit_file",
        json!({"path": "small.txt", "edits": [{"oldText": "abc", "newText": "abcde"}]}),
    )
    .await;
    assert!(error && text.contains("over the write limit"), "{text}");
    assert_eq!(fs::read_to_string(s.at("root/small.txt")).unwrap(), "abc");
    let (error, text) = call("read_text_file", json!({"path": "nine.txt"})).await;
    assert!(
        error && text.contains("over the limit of 8 bytes"),
        "{text}"
    );
    let (error, text) = call("read_text_file", json!({"path": "nine.txt", "tail": 1})).await;
    assert!(
        !error && text.is_empty(),
        "a cut first line is dropped: {text:?}"
    );
    let (error, text) = call("write_file", json!({"path": "ok.txt", "content": "1234"})).await;
    assert!(!error, "{text}");
    assert_eq!(fs::read_to_string(s.at("root/ok.txt")).unwrap(), "1234");
    client.close().await;
}

#[tokio::test]
async fn the_typed_client_calls_the_toolbox() {
    let s = Scratch::new();
    fs::write(s.at("root/hello.txt"), "hello\nworld\n").unwrap();
    let client = in_process(s.files()).await;
    let files = FilesClient::new(client.clone());
    let dirs = files.list_allowed_directories().await.unwrap();
    assert_eq!(
        dirs,
        format!("Allowed directories:\n{}", s.at("root").display())
    );
    let head = files
        .read_text_file("hello.txt".into(), None, Some(1))
        .await
        .unwrap();
    assert_eq!(head, "hello");
    assert!(files.exists("hello.txt".into()).await.unwrap());
    client.close().await;
}

#[tokio::test]
async fn walks_stop_at_the_depth_limit_with_an_error_result() {
    let s = Scratch::new();
    let deep: PathBuf = std::iter::repeat_n("d", super::MAX_WALK_DEPTH + 2).collect();
    fs::create_dir_all(s.at("root").join(&deep)).unwrap();
    let client = in_process(s.files()).await;
    for (tool, args) in [
        ("directory_tree", json!({"path": "."})),
        ("search_files", json!({"path": ".", "pattern": "**/x"})),
    ] {
        let r = client.call_tool_raw(tool, args).await.unwrap();
        let text = r.content[0].as_text().unwrap_or_default();
        assert!(
            r.is_error == Some(true) && text.contains("levels deep"),
            "{tool}: {text}"
        );
    }
    client.close().await;
}
