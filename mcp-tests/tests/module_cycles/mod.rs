//! No import cycle of more than two top-level modules in the crates listed
//! in [`CRATES`]: a module that needs another which needs a third which
//! needs the first is one knot, to be read (and changed) all at once. Two
//! modules that know each other (a type and its builder's file, say) are
//! allowed; three or more are not.
//!
//! A crate's top-level modules are the `mod` items of its `lib.rs`; a
//! module uses another when any of its files (its own and those below its
//! folder) names `crate::other` (in a `use crate::other::...`, a
//! `use crate::{other, ...}` or a path `crate::other::...`; `super::` as
//! many times as the file is deep is `crate::`), or a name the root
//! re-exports from it (`crate::Agent`, which `lib.rs` takes from `agent`).
//! Comments do not count, nor do unit tests (`#[cfg(test)] mod ...`): they
//! exercise a module through the whole crate, and what they name is not
//! what the module needs.
//!
//! A module of the `public_api` test binary (the crates' shape, one binary
//! to link): `cargo test -p mcp-tests --test public_api module_cycles`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::{Item, UseTree};

use super::leaves;

/// The crates checked (by folder name).
const CRATES: &[&str] = &["mcp-server", "mcp-client", "mcp-agent", "mcp-compose"];

#[test]
fn no_cycle_of_more_than_two_top_level_modules() {
    let mut found = Vec::new();
    for krate in CRATES {
        let graph = uses(krate);
        if let Some(cycle) = long_cycle(&graph) {
            found.push(format!("{krate}: {}", cycle.join(" -> ")));
        }
    }
    assert!(
        found.is_empty(),
        "top-level modules that use each other in a cycle of more than two \
         (each uses the next, the last the first):\n{}",
        found.join("\n")
    );
}

/// Which top-level modules each top-level module of `krate` uses.
fn uses(krate: &str) -> BTreeMap<String, BTreeSet<String>> {
    let src = super::folder(krate).join("src");
    let lib = read(&src.join("lib.rs"));
    let file = syn::parse_file(&lib).unwrap_or_else(|e| panic!("{krate}/src/lib.rs: {e}"));
    // Module name -> its files; a name the root re-exports -> its module.
    let mut modules: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    let mut reexports: BTreeMap<String, String> = BTreeMap::new();
    for item in &file.items {
        match item {
            Item::Mod(m) if m.content.is_none() => {
                let name = m.ident.to_string();
                let files = module_files(&src, &name, path_attr(&m.attrs).as_deref());
                modules.insert(name, files);
            }
            Item::Use(u) => {
                if let UseTree::Path(p) = &u.tree {
                    let mut names = Vec::new();
                    leaves(&p.tree, &mut names);
                    for name in names {
                        reexports.insert(name, p.ident.to_string());
                    }
                }
            }
            _ => {}
        }
    }
    let mut graph = BTreeMap::new();
    for (name, files) in &modules {
        let mut used = BTreeSet::new();
        for file in files {
            let code = without_unit_tests(&read(file));
            for target in crate_paths(&code, depth(&src, file)) {
                let module = if modules.contains_key(&target) {
                    Some(target)
                } else {
                    reexports
                        .get(&target)
                        .filter(|m| modules.contains_key(*m))
                        .cloned()
                };
                if let Some(module) = module.filter(|m| m != name) {
                    used.insert(module);
                }
            }
        }
        graph.insert(name.clone(), used);
    }
    graph
}

/// `text` without its `#[cfg(test)] mod name { ... }` blocks.
fn without_unit_tests(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("#[cfg(test)]") {
        let marker = at + "#[cfg(test)]".len();
        let open = rest[marker..]
            .trim_start()
            .starts_with("mod ")
            .then(|| rest[marker..].find('{').map(|i| marker + i))
            .flatten();
        let Some(open) = open else {
            out.push_str(&rest[..marker]);
            rest = &rest[marker..];
            continue;
        };
        out.push_str(&rest[..at]);
        rest = &rest[open + block_len(&rest[open..])..];
    }
    out.push_str(rest);
    out
}

/// The length of the `{ ... }` block `code` starts with, its braces
/// counted outside comments, strings and character literals.
fn block_len(code: &str) -> usize {
    let bytes = code.as_bytes();
    let (mut i, mut depth) = (0, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i += code[i..].find('\n').unwrap_or(code.len() - i);
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += code[i..].find("*/").map_or(code.len() - i, |e| e + 1);
            }
            b'r' if matches!(bytes.get(i + 1), Some(b'#' | b'"'))
                && !bytes[..i]
                    .last()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_') =>
            {
                let hashes = code[i + 1..].bytes().take_while(|c| *c == b'#').count();
                let close = format!("\"{}", "#".repeat(hashes));
                let start = i + 2 + hashes;
                i = start
                    + code[start..]
                        .find(&close)
                        .map_or(code.len() - start, |e| e + close.len() - 1);
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            // A character literal ('{', '\''), not a lifetime ('a).
            b'\'' if bytes.get(i + 1) == Some(&b'\\') => {
                i += 3 + code[i + 3..].find('\'').unwrap_or(0);
            }
            b'\'' if bytes.get(i + 2) == Some(&b'\'') => i += 2,
            _ => {}
        }
        i += 1;
    }
    code.len()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The file a `path` attribute on a `mod` item names.
fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| match &a.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

/// The files of top-level module `name`: `name.rs` or `name/mod.rs` (or
/// its `#[path]`), and every `.rs` file below `name/`.
fn module_files(src: &Path, name: &str, path: Option<&str>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let own = match path {
        Some(path) => src.join(path),
        None if src.join(format!("{name}.rs")).is_file() => src.join(format!("{name}.rs")),
        None => src.join(name).join("mod.rs"),
    };
    files.push(own.clone());
    if path.is_none() {
        let dir = src.join(name);
        if dir.is_dir() {
            below(&dir, &mut files);
        }
    }
    files.sort();
    files.dedup();
    files
}

fn below(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .path();
        if path.is_dir() {
            below(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// How deep the module of `file` is below the crate root: `a.rs` and
/// `a/mod.rs` 1, `a/b.rs` 2.
fn depth(src: &Path, file: &Path) -> usize {
    let relative = file.strip_prefix(src).unwrap_or(file);
    let parts = relative.components().count();
    if relative.file_name().is_some_and(|n| n == "mod.rs") {
        parts - 1
    } else {
        parts
    }
}

/// The first segment after each `crate::` of `text` (of a file `depth`
/// modules deep, where as many `super::`s are the root), comments left
/// out: `crate::a::b` gives `a`, `crate::{a, b::c}` gives `a` and `b`.
fn crate_paths(text: &str, depth: usize) -> Vec<String> {
    let code: String = text
        .lines()
        .map(|line| line.split_once("//").map_or(line, |(code, _)| code))
        .collect::<Vec<_>>()
        .join("\n");
    let root = "super::".repeat(depth);
    // Exactly `depth` of them: one more would be outside the crate, and
    // fewer stay inside the module.
    let code = code
        .split(root.as_str())
        .enumerate()
        .map(|(i, piece)| {
            if i == 0 {
                piece.to_owned()
            } else {
                format!("crate::{piece}")
            }
        })
        .collect::<String>();
    let mut found = Vec::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        // `mcp_crate::x` or `$crate::x` is another path.
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        let rest_trimmed = rest.trim_start();
        if let Some(group) = rest_trimmed.strip_prefix('{') {
            let mut depth = 1;
            let mut item = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    _ => {}
                }
                if depth == 0 || (depth == 1 && c == ',') {
                    found.extend(first_ident(&item));
                    item.clear();
                    if depth == 0 {
                        break;
                    }
                } else if depth >= 1 {
                    item.push(c);
                }
            }
        } else {
            found.extend(first_ident(rest_trimmed));
        }
    }
    found
}

fn first_ident(text: &str) -> Option<String> {
    let ident: String = text
        .trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!ident.is_empty() && ident != "self").then_some(ident)
}

/// A simple cycle of three or more modules, if the graph has one.
fn long_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn walk(
        graph: &BTreeMap<String, BTreeSet<String>>,
        start: &str,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        let last = path.last()?.clone();
        for next in graph.get(&last).into_iter().flatten() {
            if next == start && path.len() > 2 {
                return Some(path.clone());
            }
            // Each cycle is found from its smallest module: no need to
            // walk through smaller ones.
            if next.as_str() > start && !path.contains(next) {
                path.push(next.clone());
                if let Some(cycle) = walk(graph, start, path) {
                    return Some(cycle);
                }
                path.pop();
            }
        }
        None
    }
    graph
        .keys()
        .find_map(|start| walk(graph, start, &mut vec![start.clone()]))
}

#[test]
fn the_check_finds_a_cycle_of_three_and_allows_one_of_two() {
    let graph = |edges: &[(&str, &str)]| {
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in edges {
            graph
                .entry((*a).to_owned())
                .or_default()
                .insert((*b).to_owned());
        }
        graph
    };
    assert_eq!(
        long_cycle(&graph(&[("a", "b"), ("b", "a"), ("b", "c")])),
        None
    );
    assert_eq!(
        long_cycle(&graph(&[("a", "b"), ("b", "a"), ("b", "c"), ("c", "a")])),
        Some(vec!["a".to_owned(), "b".to_owned(), "c".to_owned()])
    );
    assert_eq!(
        crate_paths(
            "use crate::{a, b::{c, d}, self};\nlet x = crate::e::f(); // crate::g\n$crate::h",
            1
        ),
        ["a", "b", "e"]
    );
    assert_eq!(crate_paths("use super::super::a;\nuse super::b;", 2), ["a"]);
}

#[test]
fn unit_tests_are_left_out_and_what_follows_them_is_read() {
    let text = r##"
use crate::kept;

#[cfg(test)]
mod tests {
    use crate::only_tests;
    const OPEN: &str = "{ not a block";
    const RAW: &str = r#"}}"#;
    const BRACE: char = '{';
    const QUOTE: char = '\'';
    fn f<'a>(x: &'a str) -> &'a str { x } // }
}

fn after() { crate::after::call(); }
"##;
    let code = without_unit_tests(text);
    assert!(!code.contains("only_tests"), "{code}");
    assert!(
        code.contains("crate::kept") && code.contains("crate::after::call"),
        "{code}"
    );
}
