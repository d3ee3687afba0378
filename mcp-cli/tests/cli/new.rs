//! `mcp new` as users run it (the binary, in a temporary directory): the
//! files each template writes, and every refusal with its exit status.
//! Building and testing the projects is `tests/new/run.sh` (slower: it
//! compiles them).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The framework checkout: this repository.
fn framework() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcp-new-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `mcp ARGS` in `dir`.
fn mcp(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcp"))
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .output()
        .unwrap()
}

/// The exit code and stderr of a refused `mcp new`, which wrote nothing
/// on stdout.
fn refused(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = mcp(dir, args);
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn each_template_writes_a_project_with_path_dependencies_and_no_placeholder() {
    let dir = scratch("kinds");
    let fw = framework().canonicalize().unwrap();
    for (name, flag, extra) in [
        ("tools", None, None),
        ("web", Some("--http"), None),
        ("glossary", Some("--prompts"), None),
        ("helper", Some("--agent"), Some("tests/agent.rs")),
    ] {
        let fw_arg = fw.to_str().unwrap();
        let mut args = vec!["new", name, "--framework-path", fw_arg];
        args.extend(flag);
        let out = mcp(&dir, &args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let said = String::from_utf8(out.stdout).unwrap();
        assert!(said.starts_with(&format!("created {name} (")), "{said}");
        let project = dir.join(name);
        let manifest = std::fs::read_to_string(project.join("Cargo.toml")).unwrap();
        let manifest: toml::Table = manifest.parse().unwrap();
        assert_eq!(manifest["package"]["name"].as_str(), Some(name));
        let server = manifest["dependencies"]["oxmcp-server"]["path"]
            .as_str()
            .unwrap();
        assert_eq!(Path::new(server), fw.join("mcp-server"));
        let testing = manifest["dev-dependencies"]["oxmcp-testing"]["path"]
            .as_str()
            .unwrap();
        assert_eq!(Path::new(testing), fw.join("mcp-testing"));
        let agent = manifest["dependencies"].get("oxmcp-agent").is_some();
        assert_eq!(agent, flag == Some("--agent"), "{name}");
        let listing: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(project.join("tests/tools.json")).unwrap(),
        )
        .unwrap();
        assert!(
            !listing.as_array().unwrap().is_empty(),
            "{name}: an empty snapshot"
        );
        let mut files = vec![
            "README.md",
            "src/lib.rs",
            "src/main.rs",
            "tests/server.rs",
            "tests/listing.rs",
        ];
        files.extend(extra);
        for file in files {
            let text = std::fs::read_to_string(project.join(file)).unwrap();
            assert!(!text.contains("{{"), "{name}/{file} keeps a placeholder");
        }
        assert_eq!(
            std::fs::read(project.join("Cargo.lock")).unwrap(),
            std::fs::read(fw.join("Cargo.lock")).unwrap(),
            "the framework's lock, for its tested versions"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_framework_path_with_quotes_is_written_as_valid_toml() {
    let dir = scratch("quotes");
    let odd = dir.join("we\"ird 'path");
    std::os::unix::fs::symlink(framework(), &odd).unwrap();
    // Given through a relative path: written absolute.
    let out = mcp(&dir, &["new", "odd", "--framework-path", "we\"ird 'path"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let manifest = std::fs::read_to_string(dir.join("odd/Cargo.toml")).unwrap();
    let manifest: toml::Table = manifest.parse().unwrap();
    let server = manifest["dependencies"]["oxmcp-server"]["path"]
        .as_str()
        .unwrap();
    assert_eq!(
        Path::new(server),
        framework().canonicalize().unwrap().join("mcp-server")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn without_a_framework_path_it_says_why_and_exits_1() {
    let dir = scratch("nofw");
    let (code, err) = refused(&dir, &["new", "tools"]);
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "mcp: the framework's crates are not published yet: pass --framework-path PATH, \
         a checkout of mcp-rs (the directory holding mcp-server/)\n"
    );
    assert!(!dir.join("tools").exists());
    let (code, err) = refused(
        &dir,
        &["new", "tools", "--framework-path", dir.to_str().unwrap()],
    );
    assert_eq!(code, 1);
    assert!(err.contains("not a checkout of mcp-rs"), "{err}");
    assert!(!dir.join("tools").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn invalid_crate_names_are_refused_naming_the_rule() {
    let dir = scratch("names");
    let fw = framework();
    let fw = fw.to_str().unwrap();
    for (name, rule) in [
        ("1st", "it must start with a letter"),
        ("my tools", "` ` is not allowed"),
        ("café", "`é` is not allowed"),
        ("fn", "a Rust keyword"),
        ("test", "Rust's standard library"),
        ("std", "Rust's standard library"),
    ] {
        let (code, err) = refused(&dir, &["new", name, "--framework-path", fw]);
        assert_eq!(code, 1, "{name}");
        assert!(
            err.starts_with(&format!("mcp: `{name}` is not a valid crate name: ")),
            "{err}"
        );
        assert!(err.contains(rule), "{name}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(!dir.join(name).exists(), "{name} was created");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_existing_directory_is_refused_and_left_alone() {
    let dir = scratch("exists");
    std::fs::create_dir(dir.join("tools")).unwrap();
    std::fs::write(dir.join("tools/keep.txt"), "mine").unwrap();
    let fw = framework();
    let (code, err) = refused(
        &dir,
        &["new", "tools", "--framework-path", fw.to_str().unwrap()],
    );
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "mcp: `tools` already exists: choose another name, or remove it\n"
    );
    let left: Vec<_> = std::fs::read_dir(dir.join("tools")).unwrap().collect();
    assert_eq!(left.len(), 1);
    assert_eq!(
        std::fs::read_to_string(dir.join("tools/keep.txt")).unwrap(),
        "mine"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_kinds_at_once_are_a_refused_command_line() {
    let dir = scratch("kinds2");
    let (code, err) = refused(
        &dir,
        &["new", "x", "--http", "--agent", "--framework-path", "."],
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("'--http' cannot be used with '--agent'"),
        "{err}"
    );
    assert!(!dir.join("x").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn dev_outside_a_project_without_a_command_says_what_to_do() {
    let dir = scratch("dev");
    let (code, err) = refused(&dir, &["dev"]);
    assert_eq!(code, 1);
    assert!(err.starts_with("mcp: "), "{err}");
    assert!(
        err.contains("has no Cargo.toml: run mcp dev in a project"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
