//! The MSRV is checked by clippy's `incompatible_msrv` lint (a call to a
//! standard library item stabilized after the MSRV is an error under
//! `-D warnings`), which reads each package's `rust-version`. This module
//! keeps that check switched on: one MSRV, in the root `Cargo.toml`,
//! inherited by every member (a member without `rust-version` is not
//! checked at all), no other `msrv` in `.clippy.toml`, the lint never
//! allowed, and the README stating the same version. VERSIONING.md says
//! what the lint catches and what it does not.
//!
//! A module of the `public_api` test binary (the crates' shape, one binary
//! to link): `cargo test -p mcp-tests --test public_api msrv`.

use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("mcp-tests sits in the workspace root")
        .to_path_buf()
}

fn manifest(path: &Path) -> toml::Table {
    let text =
        fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    text.parse()
        .unwrap_or_else(|e| panic!("parsing {}: {e}", path.display()))
}

/// `[workspace.package] rust-version` of the root `Cargo.toml`.
fn workspace_msrv() -> String {
    let root = manifest(&root().join("Cargo.toml"));
    root["workspace"]["package"]["rust-version"]
        .as_str()
        .expect("the root Cargo.toml sets [workspace.package] rust-version")
        .to_owned()
}

#[test]
fn the_msrv_is_major_dot_minor() {
    let msrv = workspace_msrv();
    let parts: Vec<&str> = msrv.split('.').collect();
    assert!(
        parts.len() == 2 && parts.iter().all(|p| p.parse::<u32>().is_ok()),
        "rust-version `{msrv}` should be MAJOR.MINOR (a rise is a minor release; patch versions of rustc add no API)"
    );
}

#[test]
fn every_member_inherits_the_workspace_msrv() {
    let root = manifest(&root().join("Cargo.toml"));
    let members = root["workspace"]["members"]
        .as_array()
        .expect("[workspace] members is a list");
    let msrv = workspace_msrv();
    let mut wrong = Vec::new();
    for member in members {
        let dir = member.as_str().expect("a member is a path");
        let package = manifest(&self::root().join(dir).join("Cargo.toml"));
        let declared = package["package"].get("rust-version");
        let inherited = declared
            .and_then(|v| v.get("workspace"))
            .and_then(toml::Value::as_bool)
            == Some(true);
        let same = declared.and_then(toml::Value::as_str) == Some(msrv.as_str());
        if !inherited && !same {
            wrong.push(format!(
                "{dir}/Cargo.toml: rust-version is {declared:?}; write `rust-version.workspace = true` \
                 (without it clippy's incompatible_msrv does not check this package)"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn clippy_reads_the_same_msrv_and_the_lint_is_never_allowed() {
    let clippy = fs::read_to_string(root().join(".clippy.toml")).unwrap_or_default();
    let clippy: toml::Table = clippy.parse().expect(".clippy.toml parses");
    if let Some(msrv) = clippy.get("msrv") {
        assert_eq!(
            msrv.as_str(),
            Some(workspace_msrv().as_str()),
            ".clippy.toml's msrv differs from the root Cargo.toml's rust-version: keep one (delete the msrv line)"
        );
    }
    let mut allowed = Vec::new();
    for path in sources(&root()) {
        let text = fs::read_to_string(&path).unwrap_or_default();
        let allows = [
            "allow(clippy::incompatible_msrv",
            "expect(clippy::incompatible_msrv",
        ]
        .iter()
        .any(|a| text.contains(a))
            || text.lines().any(|l| {
                let l = l.trim_start();
                l.starts_with("incompatible_msrv") || l.starts_with("incompatible-msrv")
            });
        if allows {
            allowed.push(path.display().to_string());
        }
    }
    assert!(
        allowed.is_empty(),
        "these files allow or configure clippy's incompatible_msrv (allowing it hides an API newer \
         than the MSRV; raise the MSRV in a minor release instead): {allowed:?}"
    );
}

#[test]
fn the_readme_states_the_msrv() {
    let readme = fs::read_to_string(root().join("README.md")).expect("README.md");
    let stated = format!("MSRV: Rust {}", workspace_msrv());
    assert!(
        readme.contains(&stated),
        "README.md should say `{stated}`, the root Cargo.toml's rust-version"
    );
}

/// The workspace's `.rs` and `Cargo.toml` files, outside `target/`, hidden
/// folders and this file (which names the lint to look for it).
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if path.is_dir() {
            if !name.starts_with('.') && name != "target" {
                found.extend(sources(&path));
            }
        } else if (name.ends_with(".rs") || name == "Cargo.toml") && !path.ends_with(file!()) {
            found.push(path);
        }
    }
    found
}
