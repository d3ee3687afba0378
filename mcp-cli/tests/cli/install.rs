//! `mcp install` and `mcp uninstall` run as users run them: the `mcp`
//! binary, in a temporary home and project directory, each host's file
//! parsed back and checked against the shape its documentation gives (cited
//! in `src/hosts/*.rs`). The real Claude Code and Gemini CLI reading what
//! was written is `tests/install/run.sh`.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{json, Value};

/// A home and a project directory, and `mcp` run with them.
struct Place {
    dir: tempfile::TempDir,
}

impl Place {
    fn new() -> Place {
        let place = Place {
            dir: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir_all(place.project()).unwrap();
        std::fs::create_dir_all(place.home()).unwrap();
        place
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn project(&self) -> PathBuf {
        self.dir.path().join("project")
    }

    /// `mcp ARGS` in the project directory, with this home.
    fn mcp(&self, args: &[&str]) -> Output {
        self.mcp_with(args, &[])
    }

    fn mcp_with(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcp"));
        cmd.args(args)
            .current_dir(self.project())
            .env("HOME", self.home())
            .env("XDG_CONFIG_HOME", self.home().join(".config"))
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .env_remove("CARGO_TARGET_DIR");
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    }

    /// An executable file `rel` in the project, and its absolute path.
    fn executable(&self, rel: &str) -> String {
        let path = self.project().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path.display().to_string()
    }
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "mcp failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// The one line of a refused command (exit status 1).
fn refused(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8(out.stderr.clone()).unwrap();
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(out.stdout.is_empty());
    err
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A host's file parsed, TOML as JSON.
fn parsed(path: &Path) -> Value {
    let text = read(path);
    if path.extension().is_some_and(|e| e == "toml") {
        toml::from_str(&text).unwrap()
    } else {
        serde_json::from_str(&text).unwrap()
    }
}

/// Where each host keeps its servers on Linux (the locations of `src/hosts`,
/// written out again from the documentation), and under which key.
fn location(place: &Place, host: &str, scope: &str) -> Option<(PathBuf, &'static str)> {
    let (home, project) = (place.home(), place.project());
    let config = home.join(".config");
    let (file, key) = match (host, scope) {
        ("claude-code", "user") => (home.join(".claude.json"), "mcpServers"),
        ("claude-code", "project") => (project.join(".mcp.json"), "mcpServers"),
        ("claude-desktop", "user") => (
            config.join("Claude/claude_desktop_config.json"),
            "mcpServers",
        ),
        ("cursor", "user") => (home.join(".cursor/mcp.json"), "mcpServers"),
        ("cursor", "project") => (project.join(".cursor/mcp.json"), "mcpServers"),
        ("vscode", "user") => (config.join("Code/User/mcp.json"), "servers"),
        ("vscode", "project") => (project.join(".vscode/mcp.json"), "servers"),
        ("gemini-cli", "user") => (home.join(".gemini/settings.json"), "mcpServers"),
        ("gemini-cli", "project") => (project.join(".gemini/settings.json"), "mcpServers"),
        ("codex", "user") => (home.join(".codex/config.toml"), "mcp_servers"),
        ("codex", "project") => (project.join(".codex/config.toml"), "mcp_servers"),
        _ => return None,
    };
    Some((file, key))
}

const HOSTS: [&str; 6] = [
    "claude-code",
    "claude-desktop",
    "cursor",
    "vscode",
    "gemini-cli",
    "codex",
];

/// The documented entry of a server the host starts.
fn stdio_entry(host: &str, command: &str) -> Value {
    let mut entry = json!({
        "command": command,
        "args": ["--verbose", "two words"],
        "env": {"API_KEY": "k=v", "LEVEL": "debug"},
    });
    if matches!(host, "claude-code" | "vscode") {
        entry["type"] = json!("stdio");
    }
    entry
}

#[test]
fn every_host_and_scope_gets_its_documented_file_and_entry() {
    for host in HOSTS {
        for scope in ["user", "project"] {
            let place = Place::new();
            let command = place.executable("target/release/calc");
            let out = place.mcp(&[
                "install",
                host,
                "calc",
                "--scope",
                scope,
                "--env",
                "API_KEY=k=v",
                "--env",
                "LEVEL=debug",
                "--",
                "./target/release/calc",
                "--verbose",
                "two words",
            ]);
            let Some((file, key)) = location(&place, host, scope) else {
                let err = refused(&out);
                assert!(err.contains("--scope"), "{host} {scope}: {err}");
                continue;
            };
            ok(&out);
            let doc = parsed(&file);
            assert_eq!(
                doc[key]["calc"],
                stdio_entry(host, &command),
                "{host} {scope}: {doc}"
            );
            let other_scope = if scope == "user" { "project" } else { "user" };
            if let Some((other, _)) = location(&place, host, other_scope) {
                assert!(!other.exists(), "{host}: only the {scope} file is written");
            }
            ok(&place.mcp(&["uninstall", host, "calc", "--scope", scope]));
            let doc = parsed(&file);
            // Codex's emptied `[mcp_servers]` table prints nothing.
            let emptied = doc[key] == json!({}) || (host == "codex" && doc[key].is_null());
            assert!(emptied, "{host} {scope}: {doc}");
        }
    }
}

#[test]
fn every_host_gets_its_documented_http_entry() {
    let url = "https://calc.example.com/mcp";
    for host in HOSTS {
        let place = Place::new();
        let out = place.mcp(&["install", host, "calc", url]);
        let (file, key) = location(&place, host, "user").unwrap();
        let expected = match host {
            "claude-code" | "vscode" => json!({"type": "http", "url": url}),
            "cursor" | "codex" => json!({"url": url}),
            "gemini-cli" => json!({"httpUrl": url}),
            _ => {
                // Claude Desktop's file holds only servers it starts.
                let err = refused(&out);
                assert!(err.contains("not URLs"), "{err}");
                assert!(!file.exists());
                continue;
            }
        };
        ok(&out);
        assert_eq!(parsed(&file)[key]["calc"], expected, "{host}");
    }
}

/// `~/.claude.json` as Claude Code writes it, with another server and keys
/// around `mcpServers`, indented by four spaces.
const CLAUDE_JSON: &str = r#"{
    "numStartups": 3,
    "mcpServers": {
        "other": {
            "command": "x"
        }
    },
    "zeta": true
}
"#;

#[test]
fn json_keeps_other_entries_order_and_indentation_and_backs_up_once() {
    let place = Place::new();
    let file = place.home().join(".claude.json");
    std::fs::write(&file, CLAUDE_JSON).unwrap();
    // Claude Code keeps tokens in it: private it stays.
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let command = place.executable("calc");
    ok(&place.mcp(&["install", "claude-code", "calc", "--", "./calc"]));
    let expected = format!(
        r#"{{
    "numStartups": 3,
    "mcpServers": {{
        "other": {{
            "command": "x"
        }},
        "calc": {{
            "type": "stdio",
            "command": "{command}"
        }}
    }},
    "zeta": true
}}
"#
    );
    assert_eq!(read(&file), expected);
    let mode = std::fs::metadata(&file).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let backup = place.home().join(".claude.json.bak");
    assert_eq!(read(&backup), CLAUDE_JSON);

    // The same command again: nothing written, and it says so.
    let out = ok(&place.mcp(&["install", "claude-code", "calc", "--", "./calc"]));
    assert!(out.contains("nothing changed"), "{out}");
    assert_eq!(read(&file), expected);

    // A later change leaves the first backup as it was.
    ok(&place.mcp(&[
        "install",
        "claude-code",
        "calc",
        "--force",
        "--",
        "./calc",
        "-v",
    ]));
    assert_eq!(read(&backup), CLAUDE_JSON);

    // Removing it gives back the file as the user had it.
    ok(&place.mcp(&["uninstall", "claude-code", "calc"]));
    assert_eq!(read(&file), CLAUDE_JSON);
    let out = ok(&place.mcp(&["uninstall", "claude-code", "calc"]));
    assert!(out.contains("nothing changed"), "{out}");
}

#[test]
fn json_tab_indentation_and_one_line_files_are_kept() {
    let place = Place::new();
    let dir = place.project().join(".vscode");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("mcp.json");
    let tabs = "{\n\t\"inputs\": [],\n\t\"servers\": {}\n}\n";
    std::fs::write(&file, tabs).unwrap();
    ok(&place.mcp(&[
        "install",
        "vscode",
        "u",
        "--scope",
        "project",
        "http://127.0.0.1:1/mcp",
    ]));
    assert_eq!(
        read(&file),
        "{\n\t\"inputs\": [],\n\t\"servers\": {\n\t\t\"u\": {\n\t\t\t\"type\": \"http\",\n\t\t\t\"url\": \"http://127.0.0.1:1/mcp\"\n\t\t}\n\t}\n}\n"
    );

    let file = place.project().join(".mcp.json");
    std::fs::write(&file, r#"{"mcpServers":{"b":{"url":"x"}}}"#).unwrap();
    ok(&place.mcp(&[
        "install",
        "claude-code",
        "a",
        "--scope",
        "project",
        "http://127.0.0.1:1/mcp",
    ]));
    assert_eq!(
        read(&file),
        r#"{"mcpServers":{"b":{"url":"x"},"a":{"type":"http","url":"http://127.0.0.1:1/mcp"}}}"#
    );
}

/// A Codex `config.toml` with comments, another server and a table after.
const CODEX_TOML: &str = r#"# my settings
model = "o3"  # the default

[mcp_servers.other]
command = "x"

[profiles.fast]
model = "o4-mini"
"#;

#[test]
fn toml_keeps_comments_and_tables_and_backs_up_once() {
    let place = Place::new();
    let dir = place.home().join(".codex");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("config.toml");
    std::fs::write(&file, CODEX_TOML).unwrap();
    let command = place.executable("calc");
    let install = [
        "install", "codex", "calc", "--env", "K=V", "--", "./calc", "-a",
    ];
    ok(&place.mcp(&install));
    let expected = CODEX_TOML.replace(
        "\n[profiles.fast]",
        &format!(
            "\n[mcp_servers.calc]\ncommand = \"{command}\"\nargs = [\"-a\"]\nenv = {{ K = \"V\" }}\n\n[profiles.fast]"
        ),
    );
    assert_eq!(read(&file), expected);
    assert_eq!(read(&dir.join("config.toml.bak")), CODEX_TOML);

    let out = ok(&place.mcp(&install));
    assert!(out.contains("nothing changed"), "{out}");
    assert_eq!(read(&file), expected);

    let err = refused(&place.mcp(&["install", "codex", "calc", "--", "./calc"]));
    assert!(err.contains("--force"), "{err}");
    assert_eq!(read(&file), expected);
    ok(&place.mcp(&["install", "codex", "calc", "--force", "--", "./calc"]));
    assert_eq!(
        parsed(&file)["mcp_servers"]["calc"],
        json!({"command": command})
    );
    assert_eq!(read(&dir.join("config.toml.bak")), CODEX_TOML);

    ok(&place.mcp(&["uninstall", "codex", "calc"]));
    assert_eq!(read(&file), CODEX_TOML);
}

#[test]
fn a_taken_name_is_replaced_only_with_force() {
    for host in ["cursor", "gemini-cli", "claude-desktop"] {
        let place = Place::new();
        place.executable("a");
        place.executable("b");
        ok(&place.mcp(&["install", host, "calc", "--", "./a"]));
        let (file, key) = location(&place, host, "user").unwrap();
        let before = read(&file);
        let err = refused(&place.mcp(&["install", host, "calc", "--", "./b"]));
        assert!(err.contains("already") && err.contains("--force"), "{err}");
        assert_eq!(read(&file), before, "{host}: left untouched");
        ok(&place.mcp(&["install", host, "calc", "--force", "--", "./b"]));
        let command = parsed(&file)[key]["calc"]["command"].clone();
        assert!(
            command.as_str().unwrap().ends_with("/b"),
            "{host}: {command}"
        );
    }
}

#[test]
fn a_broken_config_file_is_refused_with_line_and_column_and_left_untouched() {
    let cases = [
        (
            "cursor",
            ".cursor/mcp.json",
            "{\n  \"mcpServers\": {},\n}\n",
            "line 2 column 19",
        ),
        (
            "codex",
            ".codex/config.toml",
            "model = \"o3\"\n[mcp_servers\n",
            "line 2, column",
        ),
    ];
    for (host, rel, text, position) in cases {
        let place = Place::new();
        let file = place.home().join(rel);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, text).unwrap();
        let err = refused(&place.mcp(&["install", host, "x", "http://127.0.0.1:1/mcp"]));
        assert!(
            err.contains(position) && err.contains("left untouched"),
            "{err}"
        );
        assert!(err.contains(&file.display().to_string()), "{err}");
        assert_eq!(read(&file), text);
        let mut bak = file.as_os_str().to_owned();
        bak.push(".bak");
        assert!(!Path::new(&bak).exists(), "no backup of a file not changed");
        refused(&place.mcp(&["uninstall", host, "x"]));
        assert_eq!(read(&file), text);
    }
}

#[test]
fn an_unknown_host_is_refused_with_the_known_ones() {
    let place = Place::new();
    let err = refused(&place.mcp(&["install", "claude", "x", "http://127.0.0.1:1/mcp"]));
    assert!(err.contains("unknown host `claude`"), "{err}");
    for host in HOSTS {
        assert!(err.contains(host), "{err}");
    }
    refused(&place.mcp(&["uninstall", "zed", "x"]));
}

#[test]
fn a_name_the_hosts_refuse_is_refused() {
    let place = Place::new();
    for name in ["", "my server", "calc.v2", "a/b"] {
        let err = refused(&place.mcp(&["install", "cursor", name, "http://127.0.0.1:1/mcp"]));
        assert!(err.contains("letters, digits"), "{err}");
    }
    assert!(!place.home().join(".cursor/mcp.json").exists());
    ok(&place.mcp(&["install", "cursor", "Calc_2-x", "http://127.0.0.1:1/mcp"]));
}

#[test]
fn a_relative_command_is_made_absolute_or_refused() {
    let place = Place::new();
    let bin = place.dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let on_path = bin.join("my-server");
    std::fs::write(&on_path, "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(&on_path, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let env = [("PATH", path.as_str())];
    ok(&place.mcp_with(&["install", "cursor", "a", "--", "my-server"], &env));
    let file = place.home().join(".cursor/mcp.json");
    assert_eq!(
        parsed(&file)["mcpServers"]["a"]["command"],
        json!(on_path.display().to_string())
    );

    let err = refused(&place.mcp_with(&["install", "cursor", "b", "--", "no-such-server"], &env));
    assert!(err.contains("not on PATH"), "{err}");
    let err = refused(&place.mcp(&["install", "cursor", "c", "--", "./missing/server"]));
    assert!(err.contains("not a file"), "{err}");
    let err = refused(&place.mcp(&["install", "cursor", "d", "ftp://x"]));
    assert!(err.contains("not an http:// or https:// URL"), "{err}");
}

#[test]
fn inside_a_cargo_project_the_binary_is_built_in_release_and_installed() {
    let place = Place::new();
    let project = place.project();
    std::fs::write(
        project.join("Cargo.toml"),
        "[package]\nname = \"tiny-server\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    )
    .unwrap();
    std::fs::create_dir_all(project.join("src")).unwrap();
    std::fs::write(project.join("src/main.rs"), "fn main() {}\n").unwrap();
    let out = place.mcp(&["install", "cursor", "tiny", "--scope", "project"]);
    ok(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cargo build --release"), "{stderr}");
    let built = project.join("target/release/tiny-server");
    assert!(built.is_file());
    assert_eq!(
        parsed(&project.join(".cursor/mcp.json"))["mcpServers"]["tiny"],
        json!({"command": built.display().to_string()})
    );

    let empty = Place::new();
    let err = refused(&empty.mcp(&["install", "cursor", "tiny"]));
    assert!(err.contains("no Cargo project here"), "{err}");
}

#[test]
fn help_shows_an_example_for_every_host() {
    let place = Place::new();
    let help = ok(&place.mcp(&["install", "--help"]));
    for host in HOSTS {
        assert!(
            help.contains(&format!("mcp install {host} ")),
            "{host}: {help}"
        );
    }
    let help = ok(&place.mcp(&["uninstall", "--help"]));
    assert!(help.contains("mcp uninstall claude-code calc"), "{help}");
}

#[test]
fn a_config_file_that_is_a_symbolic_link_stays_one() {
    let place = Place::new();
    let real = place.dir.path().join("dotfiles/cursor-mcp.json");
    std::fs::create_dir_all(real.parent().unwrap()).unwrap();
    std::fs::write(&real, "{}\n").unwrap();
    let link = place.home().join(".cursor/mcp.json");
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();
    ok(&place.mcp(&["install", "cursor", "u", "http://127.0.0.1:1/mcp"]));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        parsed(&real)["mcpServers"]["u"],
        json!({"url": "http://127.0.0.1:1/mcp"})
    );
    assert_eq!(
        read(&place.dir.path().join("dotfiles/cursor-mcp.json.bak")),
        "{}\n"
    );
}

#[test]
fn vscode_json_with_comments_keeps_them_and_plain_json_hosts_refuse_them() {
    let place = Place::new();
    let dir = place.project().join(".vscode");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("mcp.json");
    let text = "{\n  // shared with the team\n  \"servers\": {\n    \"old\": { \"type\": \"http\", \"url\": \"http://127.0.0.1:2/mcp\" }, // staging\n  },\n}\n";
    std::fs::write(&file, text).unwrap();
    let url = "http://127.0.0.1:1/mcp";
    ok(&place.mcp(&["install", "vscode", "new", "--scope", "project", url]));
    let written = read(&file);
    assert!(
        written.contains("// shared with the team") && written.contains("// staging"),
        "{written}"
    );
    assert!(written.contains(url), "{written}");
    ok(&place.mcp(&["uninstall", "vscode", "new", "--scope", "project"]));
    let back = read(&file);
    assert!(back.contains("// staging") && !back.contains(url), "{back}");

    // Claude Code reads `.mcp.json` with JSON.parse: a comment there is
    // refused, with where it is, and the file is left as it was.
    let mcp_json = place.project().join(".mcp.json");
    let commented = "{\n  // mine\n  \"mcpServers\": {}\n}\n";
    std::fs::write(&mcp_json, commented).unwrap();
    let err = refused(&place.mcp(&["install", "claude-code", "x", "--scope", "project", url]));
    assert!(
        err.contains("line 2") && err.contains("left untouched"),
        "{err}"
    );
    assert_eq!(read(&mcp_json), commented);
}

#[test]
fn json_output_says_what_changed_and_where_the_backup_is() {
    let place = Place::new();
    let url = "http://127.0.0.1:1/mcp";
    let run = |args: &[&str]| -> Value {
        let mut all = args.to_vec();
        all.push("--json");
        serde_json::from_str(&ok(&place.mcp(&all))).unwrap()
    };
    let file = place.home().join(".cursor/mcp.json");
    let first = run(&["install", "cursor", "calc", url]);
    assert_eq!(
        first,
        json!({"host": "cursor", "name": "calc", "file": file.display().to_string(),
               "change": "added", "backup": null})
    );
    assert_eq!(
        run(&["install", "cursor", "calc", url])["change"],
        "unchanged"
    );
    let other = run(&["install", "cursor", "other", url]);
    assert_eq!(other["change"], "added");
    let bak = format!("{}.bak", file.display());
    assert_eq!(other["backup"], bak.as_str());
    assert_eq!(run(&["uninstall", "cursor", "other"])["change"], "removed");
    assert_eq!(run(&["uninstall", "cursor", "other"])["change"], "absent");
}
