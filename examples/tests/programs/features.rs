//! `docs/features.md` maps every MCP feature to an example and the tests
//! that show it. This keeps the page true: every file it links exists (and
//! the item a link names is in it), every `cargo test` line names a package,
//! a test target and a test that exist and are not ignored, every script
//! exists and the test command calls it (`scripts/test.sh`, or
//! `scripts/interop.sh`, which it runs), and the 48 numbered features of
//! the canonical list each have their row.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("examples/ sits in the workspace root")
        .to_path_buf()
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// The table rows of the page (header and separator rows left out).
fn rows(page: &str) -> Vec<&str> {
    page.lines()
        .filter(|l| l.starts_with('|') && !l.starts_with("|---") && !l.starts_with("| #"))
        .filter(|l| !l.starts_with("| feature |"))
        .collect()
}

/// `[text](target)` links of a line.
fn links(line: &str) -> Vec<(&str, &str)> {
    let mut found = Vec::new();
    let mut rest = line;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let Some(close) = after.find("](") else { break };
        let text = &after[..close];
        let target_start = &after[close + 2..];
        let Some(end) = target_start.find(')') else {
            break;
        };
        found.push((text.trim_matches('`'), &target_start[..end]));
        rest = &target_start[end..];
    }
    found
}

/// The text between backticks of a line, as commands when they start so.
fn commands(line: &str) -> Vec<&str> {
    line.split('`')
        .skip(1)
        .step_by(2)
        .filter(|c| c.starts_with("cargo test ") || c.starts_with("tests/"))
        .collect()
}

/// The package name of each workspace folder.
fn package_dir(package: &str) -> Option<PathBuf> {
    fs::read_dir(root()).ok()?.flatten().find_map(|entry| {
        let manifest = entry.path().join("Cargo.toml");
        let text = fs::read_to_string(&manifest).ok()?;
        let name = text
            .lines()
            .find_map(|l| l.strip_prefix("name = \""))?
            .trim_end_matches('"');
        (name == package).then(|| entry.path())
    })
}

fn bins() -> BTreeSet<String> {
    let manifest = read(&root().join("examples/Cargo.toml"));
    let mut names = BTreeSet::new();
    let mut in_bin = false;
    for line in manifest.lines() {
        if line.starts_with('[') {
            in_bin = line == "[[bin]]";
        } else if in_bin {
            if let Some(name) = line.strip_prefix("name = \"") {
                names.insert(name.trim_end_matches('"').to_owned());
            }
        }
    }
    names
}

/// A test function `name` in `file`, not marked `#[ignore]`.
fn has_test(file: &Path, name: &str) -> Result<(), String> {
    let text = fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains(&format!("fn {name}(")))
        .ok_or_else(|| format!("{} has no fn {name}", file.display()))?;
    let above = &lines[at.saturating_sub(3)..at];
    if above.iter().any(|l| l.trim_start().starts_with("#[ignore")) {
        return Err(format!("{name} in {} is ignored", file.display()));
    }
    Ok(())
}

/// `cargo test -p PKG --test BIN [module::path::test]`.
fn check_cargo_test(command: &str) -> Result<(), String> {
    let words: Vec<&str> = command.split_whitespace().collect();
    let (package, bin, filter) = match words.as_slice() {
        ["cargo", "test", "-p", package, "--test", bin] => (*package, *bin, None),
        ["cargo", "test", "-p", package, "--test", bin, filter] => (*package, *bin, Some(*filter)),
        _ => return Err("expected cargo test -p PKG --test BIN [FILTER]".to_owned()),
    };
    let dir = package_dir(package).ok_or_else(|| format!("no package {package}"))?;
    let tests = dir.join("tests");
    let (root_file, base) = if tests.join(format!("{bin}.rs")).is_file() {
        (tests.join(format!("{bin}.rs")), tests.clone())
    } else if tests.join(bin).join("main.rs").is_file() {
        (tests.join(bin).join("main.rs"), tests.join(bin))
    } else {
        return Err(format!("{package} has no test target {bin}"));
    };
    let Some(filter) = filter else {
        return Ok(());
    };
    let mut segments: Vec<&str> = filter.split("::").collect();
    let name = segments.pop().unwrap_or_default();
    let file = if segments.is_empty() {
        root_file
    } else {
        let module = base.join(segments.join("/"));
        let flat = module.with_extension("rs");
        if flat.is_file() {
            flat
        } else {
            module.join("mod.rs")
        }
    };
    has_test(&file, name)
}

/// `tests/.../run*.sh ARGS`: the script exists and the test command calls it.
fn check_script(command: &str, test_sh: &str) -> Result<(), String> {
    let script = command.split_whitespace().next().unwrap_or_default();
    if !root().join(script).is_file() {
        return Err(format!("no script {script}"));
    }
    let called = test_sh
        .lines()
        .any(|l| !l.trim_start().starts_with('#') && !l.contains("step \"") && l.contains(script));
    if !called {
        return Err(format!(
            "the test command (scripts/test.sh, scripts/interop.sh) does not run {script}"
        ));
    }
    Ok(())
}

/// The steps of the test command: `scripts/test.sh` and `scripts/interop.sh`,
/// which it runs (checked).
fn test_command() -> String {
    let test_sh = read(&root().join("scripts/test.sh"));
    check_script("scripts/interop.sh", &test_sh).expect("scripts/test.sh runs scripts/interop.sh");
    test_sh + &read(&root().join("scripts/interop.sh"))
}

/// `[item](../path)`: the file exists, and `item` is a function in it, a
/// name written in it as a string (a dynamic tool), its file name, or one
/// of the examples' programs.
fn check_link(text: &str, target: &str, bins: &BTreeSet<String>) -> Result<(), String> {
    let path = root().join("docs").join(target);
    if !path.exists() {
        return Err(format!("link to {target}, which does not exist"));
    }
    let is_ident = !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !is_ident || path.extension().is_none_or(|x| x != "rs") {
        return Ok(());
    }
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default();
    let text_of_file = read(&path);
    let named = text_of_file.contains(&format!("fn {text}("))
        || text_of_file.contains(&format!("\"{text}\""));
    if text == stem || bins.contains(text) || named {
        Ok(())
    } else {
        Err(format!(
            "`{text}` is neither a program, nor {target}'s name, nor a function in it"
        ))
    }
}

#[test]
fn every_file_program_test_and_script_the_feature_table_names_exists_and_runs() {
    let page = read(&root().join("docs/features.md"));
    let test_sh = test_command();
    let bins = bins();
    let mut problems = Vec::new();
    let mut numbered = BTreeSet::new();
    for row in rows(&page) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        if let Some(n) = cells.get(1).and_then(|c| c.parse::<u32>().ok()) {
            if !numbered.insert(n) {
                problems.push(format!("feature {n} has two rows"));
            }
        }
        for (text, target) in links(row) {
            if let Err(e) = check_link(text, target, &bins) {
                problems.push(e);
            }
        }
        for command in commands(row) {
            let checked = if command.starts_with("cargo test") {
                check_cargo_test(command)
            } else {
                check_script(command, &test_sh)
            };
            if let Err(e) = checked {
                problems.push(format!("`{command}`: {e}"));
            }
        }
    }
    let missing: Vec<u32> = (1..=48).filter(|n| !numbered.contains(n)).collect();
    if !missing.is_empty() {
        problems.push(format!(
            "features of the canonical list without a row: {missing:?}"
        ));
    }
    assert!(
        problems.is_empty(),
        "docs/features.md:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_checks_refuse_what_does_not_exist() {
    let bins = bins();
    let test_sh = test_command();
    assert!(check_link("calculator", "../examples/calculator.rs", &bins).is_ok());
    assert!(check_link("no_such_tool", "../examples/calculator.rs", &bins).is_err());
    assert!(check_link(
        "test_image_content",
        "../examples/conformance_server.rs",
        &bins
    )
    .is_ok());
    assert!(check_link("x", "../examples/no_such_file.rs", &bins).is_err());
    assert!(check_cargo_test(
        "cargo test -p oxmcp-server --test protocol stdio::legacy_handshake_list_and_call"
    )
    .is_ok());
    assert!(
        check_cargo_test("cargo test -p oxmcp-server --test protocol stdio::no_such_test").is_err()
    );
    assert!(check_cargo_test("cargo test -p oxmcp-server --test no_such_binary").is_err());
    assert!(check_cargo_test("cargo test -p no-such-package --test protocol").is_err());
    assert!(check_script("tests/conformance/run.sh x", &test_sh).is_ok());
    assert!(check_script("tests/interop/python_client.py", &test_sh).is_err());
}
