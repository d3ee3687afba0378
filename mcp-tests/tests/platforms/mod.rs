//! Every use of what only some platforms have sits under a `cfg` that
//! leaves out the platforms without it, in the `src/` of every publishable
//! crate (a workspace member without `publish = false`). No other target's
//! standard library is at hand where the tests run, so this reads the code
//! instead of building it for Windows or macOS.
//!
//! What is looked for, from `lib.rs`, `main.rs` and `bin/*.rs` through
//! every `mod` item:
//! - the paths `std::os::unix`, `std::os::fd`, `rustix`, `libc`, `nix`,
//!   `tokio::net::unix`, `tokio::signal::unix` (Unix), `std::os::linux`
//!   (Linux), `std::os::windows` (Windows), in code, `use` items and
//!   macro calls, and the names a `use` of one of them brings in;
//! - a string naming `/proc` (Linux);
//! - `rustix`, `libc` or `nix` in a manifest's `[dependencies]` rather than
//!   a `[target.'cfg(...)'.dependencies]` table.
//!
//! A use is guarded when a `cfg` on it or on anything around it (the
//! statement, the block, the item, the impl, the `mod` line, the file's
//! `#![cfg]`) is false on every platform that lacks what it uses, whatever
//! the features: `cfg(unix)` leaves out Windows, `cfg(target_os = "linux")`
//! leaves out Windows and macOS, `cfg(any(unix, feature = "x"))` leaves out
//! nothing. `cfg!(unix)` in an `if` guards nothing either: both branches
//! are compiled. Beyond syntax, and so not checked: a method of an
//! extension trait (`.mode()`) called outside the `cfg` its `use` has.
//!
//! A module of the `public_api` test binary (the crates' shape, one binary
//! to link): `cargo test -p mcp-tests --test public_api platforms`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use proc_macro2::{Span, TokenStream, TokenTree};
use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};
use syn::{Attribute, Expr, Item, Meta, Token, UseTree};

/// One platform, by the `cfg` values that tell it apart.
#[derive(Debug, Clone, Copy)]
struct Platform {
    name: &'static str,
    os: &'static str,
    family: &'static str,
    vendor: &'static str,
}

const WINDOWS: Platform = Platform {
    name: "Windows",
    os: "windows",
    family: "windows",
    vendor: "pc",
};
const MACOS: Platform = Platform {
    name: "macOS",
    os: "macos",
    family: "unix",
    vendor: "apple",
};
const LINUX: Platform = Platform {
    name: "Linux",
    os: "linux",
    family: "unix",
    vendor: "unknown",
};

/// What a use needs: the platforms that lack it, and the `cfg` to write.
#[derive(Debug, Clone, Copy)]
struct Need {
    lacking: &'static [Platform],
    cfg: &'static str,
}

const UNIX: Need = Need {
    lacking: &[WINDOWS],
    cfg: "unix",
};
const LINUX_ONLY: Need = Need {
    lacking: &[WINDOWS, MACOS],
    cfg: "target_os = \"linux\"",
};
const WINDOWS_ONLY: Need = Need {
    lacking: &[LINUX, MACOS],
    cfg: "windows",
};

/// The dependencies that build only on Unix (or nothing useful elsewhere).
const UNIX_DEPENDENCIES: &[&str] = &["rustix", "libc", "nix"];

#[test]
fn every_platform_only_use_in_the_publishable_crates_is_guarded() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let crates = publishable_crates(&root);
    assert!(
        crates.len() >= 10,
        "the workspace's publishable crates were not found: {crates:?}"
    );
    let mut found = Vec::new();
    for dir in &crates {
        found.extend(check_crate(&root, dir, &dir.join("Cargo.toml")));
    }
    assert!(
        found.is_empty(),
        "platform-only code without a cfg for its platforms (Windows and macOS \
         builds would fail):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_finds_each_unguarded_use_in_the_fixture_with_its_line() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/platforms");
    let fixture = here.join("fixture");
    let found = check_crate(&here, &fixture, &fixture.join("manifest.toml"));
    let lines: Vec<&str> = found
        .iter()
        .map(|f| f.split_once(": ").map_or(f.as_str(), |(at, _)| at))
        .collect();
    // Each expected finding is marked `// FLAGGED` in the fixture; nothing
    // else may be reported.
    let mut expected = Vec::new();
    for file in [
        "src/lib.rs",
        "src/unguarded.rs",
        "src/nested/mod.rs",
        "src/nested/deeper.rs",
    ] {
        let text = read(&fixture.join(file));
        for (i, line) in text.lines().enumerate() {
            if line.contains("// FLAGGED") {
                expected.push(format!("fixture/{file}:{}", i + 1));
            }
        }
    }
    expected.push("fixture/manifest.toml:9".to_owned());
    // One line may hold several uses (`use rustix::fs::{Mode, OFlags}`).
    let mut lines = lines;
    lines.sort_unstable();
    lines.dedup();
    expected.sort();
    assert_eq!(lines, expected, "the findings:\n{}", found.join("\n"));
    // The message names what is used, the platforms it misses and the fix.
    let proc_finding = found
        .iter()
        .find(|f| f.contains("\"/proc/self/status\""))
        .expect("the /proc literal was reported");
    assert!(
        proc_finding.contains("Windows, macOS")
            && proc_finding.contains("#[cfg(target_os = \"linux\")]"),
        "{proc_finding}"
    );
}

/// The directories of the workspace members whose manifest does not say
/// `publish = false`.
fn publishable_crates(root: &Path) -> Vec<PathBuf> {
    let manifest: toml::Table = read(&root.join("Cargo.toml"))
        .parse()
        .expect("the workspace's Cargo.toml parses");
    let members = manifest["workspace"]["members"]
        .as_array()
        .expect("workspace.members is a list");
    members
        .iter()
        .filter_map(|m| m.as_str())
        .map(|m| root.join(m))
        .filter(|dir| {
            let member: toml::Table = read(&dir.join("Cargo.toml"))
                .parse()
                .expect("a member's Cargo.toml parses");
            member["package"]
                .get("publish")
                .and_then(toml::Value::as_bool)
                != Some(false)
        })
        .collect()
}

/// The findings in the crate at `dir` (its `src/` and its manifest), each
/// `path:line: message`, paths shown relative to `shown_from`.
fn check_crate(shown_from: &Path, dir: &Path, manifest: &Path) -> Vec<String> {
    let shown = |p: &Path| {
        p.strip_prefix(shown_from)
            .unwrap_or(p)
            .display()
            .to_string()
    };
    let mut found = check_manifest(manifest, &shown(manifest));
    let src = dir.join("src");
    let mut roots: Vec<PathBuf> = ["lib.rs", "main.rs"]
        .iter()
        .map(|f| src.join(f))
        .filter(|p| p.is_file())
        .collect();
    if let Ok(bins) = std::fs::read_dir(src.join("bin")) {
        roots.extend(bins.filter_map(Result::ok).map(|e| e.path()));
    }
    // Parsing every file takes seconds in a debug build: only the files
    // whose text could hold a use are parsed, with the modules above them
    // (whose `mod` lines may carry the cfg).
    let candidates = candidate_files(&src);
    // (file, directory its child modules live in, the cfgs around it)
    let mut queue: Vec<(PathBuf, PathBuf, Vec<Meta>)> = roots
        .into_iter()
        .map(|f| (f, src.clone(), Vec::new()))
        .collect();
    while let Some((file, mod_dir, cfgs)) = queue.pop() {
        if !candidates
            .iter()
            .any(|c| *c == file || c.starts_with(&mod_dir))
        {
            continue;
        }
        let text = read(&file);
        let parsed = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let mut walker = Walker {
            file: shown(&file),
            cfgs,
            inline: Vec::new(),
            imported: BTreeMap::new(),
            children: Vec::new(),
            found: Vec::new(),
        };
        walker.cfgs.extend(cfgs_of(&parsed.attrs));
        let mut imports = Imports(BTreeMap::new());
        imports.visit_file(&parsed);
        walker.imported = imports.0;
        walker.visit_file(&parsed);
        found.append(&mut walker.found);
        for (path, cfgs) in walker.children {
            let mut base = mod_dir.clone();
            base.extend(&path[..path.len() - 1]);
            let name = &path[path.len() - 1];
            let flat = base.join(format!("{name}.rs"));
            let (child, child_dir) = if flat.is_file() {
                (flat, base.join(name))
            } else {
                (base.join(name).join("mod.rs"), base.join(name))
            };
            queue.push((child, child_dir, cfgs));
        }
    }
    found
}

/// The `.rs` files below `dir` whose text holds something a platform-only
/// use needs (`os::`, `rustix`, `libc`, `nix`, `unix`, `windows`, `/proc`).
fn candidate_files(dir: &Path) -> Vec<PathBuf> {
    const NEEDLES: &[&str] = &["os::", "rustix", "libc", "nix", "windows", "/proc"];
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for path in entries.filter_map(Result::ok).map(|e| e.path()) {
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs")
                && NEEDLES.iter().any(|n| read(&path).contains(n))
            {
                out.push(path);
            }
        }
    }
    out
}

/// The manifest's Unix-only dependencies that every platform would build.
fn check_manifest(manifest: &Path, shown: &str) -> Vec<String> {
    let text = read(manifest);
    let table: toml::Table = text
        .parse()
        .unwrap_or_else(|e| panic!("{}: {e}", manifest.display()));
    let mut found = Vec::new();
    for section in ["dependencies", "build-dependencies"] {
        let Some(deps) = table.get(section).and_then(toml::Value::as_table) else {
            continue;
        };
        for name in UNIX_DEPENDENCIES.iter().filter(|n| deps.contains_key(**n)) {
            let line = text
                .lines()
                .position(|l| {
                    l.trim_start().starts_with(name)
                        && l[l.find(name).unwrap_or(0) + name.len()..]
                            .trim_start()
                            .starts_with(['=', '.'])
                })
                .map_or(0, |i| i + 1);
            found.push(format!(
                "{shown}:{line}: `{name}` is a dependency on every platform: \
                 move it to [target.'cfg(unix)'.{section}]"
            ));
        }
    }
    found
}

/// The names `use` items of platform-only paths bring into a file, and what
/// they need.
struct Imports(BTreeMap<String, Need>);

impl<'ast> Visit<'ast> for Imports {
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        for (path, name) in use_leaves(&item.tree) {
            if let (Some(need), Some(name)) = (need_of(&path), name) {
                self.0.insert(name, need);
            }
        }
    }
}

/// One file's walk: the `cfg`s around the current node, and what it found.
struct Walker {
    file: String,
    cfgs: Vec<Meta>,
    /// The inline `mod name { ... }` items the walk is inside.
    inline: Vec<String>,
    imported: BTreeMap<String, Need>,
    /// Out-of-line `mod` items: their path below this file's module
    /// directory, and the cfgs around them.
    children: Vec<(Vec<String>, Vec<Meta>)>,
    found: Vec<String>,
}

impl Walker {
    /// Walks `visit` with `attrs`' cfgs added to those around it.
    fn with_cfgs(&mut self, attrs: &[Attribute], visit: impl FnOnce(&mut Self)) {
        let before = self.cfgs.len();
        self.cfgs.extend(cfgs_of(attrs));
        visit(self);
        self.cfgs.truncate(before);
    }

    fn check(&mut self, span: Span, what: &str, need: Need) {
        let open: Vec<&str> = need
            .lacking
            .iter()
            .filter(|p| !self.cfgs.iter().any(|c| eval(c, p) == Tri::False))
            .map(|p| p.name)
            .collect();
        if !open.is_empty() {
            self.found.push(format!(
                "{}:{}: `{what}` is not under a cfg that leaves out {}: put it under #[cfg({})]",
                self.file,
                span.start().line,
                open.join(", "),
                need.cfg
            ));
        }
    }

    /// Platform-only paths and strings in a macro call's tokens.
    fn check_tokens(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < trees.len() {
            match &trees[i] {
                TokenTree::Group(g) => self.check_tokens(g.stream()),
                TokenTree::Literal(lit) => {
                    if let Ok(s) = syn::parse_str::<syn::LitStr>(&lit.to_string()) {
                        if names_proc(&s.value()) {
                            self.check(lit.span(), &lit.to_string(), LINUX_ONLY);
                        }
                    }
                }
                TokenTree::Ident(first) => {
                    let preceded = i > 0
                        && matches!(&trees[i - 1], TokenTree::Punct(p) if p.as_char() == ':' || p.as_char() == '.');
                    let mut path = vec![first.to_string()];
                    let mut j = i + 1;
                    while let (
                        Some(TokenTree::Punct(a)),
                        Some(TokenTree::Punct(b)),
                        Some(TokenTree::Ident(next)),
                    ) = (trees.get(j), trees.get(j + 1), trees.get(j + 2))
                    {
                        if a.as_char() != ':' || b.as_char() != ':' {
                            break;
                        }
                        path.push(next.to_string());
                        j += 3;
                    }
                    if !preceded {
                        if let Some(need) = self.need_of_path(&path) {
                            self.check(first.span(), &path.join("::"), need);
                        }
                    }
                    i = j;
                    continue;
                }
                TokenTree::Punct(_) => {}
            }
            i += 1;
        }
    }

    fn need_of_path(&self, path: &[String]) -> Option<Need> {
        need_of(path).or_else(|| self.imported.get(path.first()?).copied())
    }
}

impl<'ast> Visit<'ast> for Walker {
    // Doc comments and other attributes are not code.
    fn visit_attribute(&mut self, _: &'ast Attribute) {}

    fn visit_item(&mut self, item: &'ast Item) {
        let attrs = item_attrs(item);
        self.with_cfgs(attrs, |w| match item {
            Item::Mod(m) if m.content.is_none() => {
                let mut path = w.inline.clone();
                path.push(m.ident.to_string());
                w.children.push((path, w.cfgs.clone()));
            }
            Item::Mod(m) => {
                w.inline.push(m.ident.to_string());
                visit::visit_item(w, item);
                w.inline.pop();
            }
            _ => visit::visit_item(w, item),
        });
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        for (path, _) in use_leaves(&item.tree) {
            if let Some(need) = self.need_of_path(&path) {
                let span = item.use_token.span;
                self.check(span, &path.join("::"), need);
            }
        }
    }

    fn visit_impl_item(&mut self, item: &'ast syn::ImplItem) {
        let attrs: &[Attribute] = match item {
            syn::ImplItem::Const(i) => &i.attrs,
            syn::ImplItem::Fn(i) => &i.attrs,
            syn::ImplItem::Type(i) => &i.attrs,
            syn::ImplItem::Macro(i) => &i.attrs,
            _ => &[],
        };
        self.with_cfgs(attrs, |w| visit::visit_impl_item(w, item));
    }

    fn visit_trait_item(&mut self, item: &'ast syn::TraitItem) {
        let attrs: &[Attribute] = match item {
            syn::TraitItem::Const(i) => &i.attrs,
            syn::TraitItem::Fn(i) => &i.attrs,
            syn::TraitItem::Type(i) => &i.attrs,
            syn::TraitItem::Macro(i) => &i.attrs,
            _ => &[],
        };
        self.with_cfgs(attrs, |w| visit::visit_trait_item(w, item));
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        self.with_cfgs(&local.attrs, |w| visit::visit_local(w, local));
    }

    fn visit_stmt_macro(&mut self, mac: &'ast syn::StmtMacro) {
        self.with_cfgs(&mac.attrs, |w| visit::visit_stmt_macro(w, mac));
    }

    fn visit_expr(&mut self, expr: &'ast Expr) {
        self.with_cfgs(expr_attrs(expr), |w| visit::visit_expr(w, expr));
    }

    fn visit_field(&mut self, field: &'ast syn::Field) {
        self.with_cfgs(&field.attrs, |w| visit::visit_field(w, field));
    }

    fn visit_field_value(&mut self, field: &'ast syn::FieldValue) {
        self.with_cfgs(&field.attrs, |w| visit::visit_field_value(w, field));
    }

    fn visit_variant(&mut self, variant: &'ast syn::Variant) {
        self.with_cfgs(&variant.attrs, |w| visit::visit_variant(w, variant));
    }

    fn visit_arm(&mut self, arm: &'ast syn::Arm) {
        self.with_cfgs(&arm.attrs, |w| visit::visit_arm(w, arm));
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if let Some(need) = self.need_of_path(&segments) {
            let span = path
                .segments
                .first()
                .map_or_else(Span::call_site, |s| s.ident.span());
            self.check(span, &segments.join("::"), need);
        }
        visit::visit_path(self, path);
    }

    fn visit_lit_str(&mut self, lit: &'ast syn::LitStr) {
        if names_proc(&lit.value()) {
            self.check(lit.span(), &format!("{:?}", lit.value()), LINUX_ONLY);
        }
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        visit::visit_macro(self, mac);
        self.check_tokens(mac.tokens.clone());
    }
}

/// What a path needs, by its first segments.
fn need_of(path: &[String]) -> Option<Need> {
    let segs: Vec<&str> = path.iter().map(String::as_str).collect();
    match segs.as_slice() {
        ["std" | "core", "os", "unix" | "fd", ..]
        | ["rustix" | "libc" | "nix", ..]
        | ["tokio", "net" | "signal", "unix", ..] => Some(UNIX),
        ["std" | "core", "os", "linux" | "android", ..] => Some(LINUX_ONLY),
        ["std" | "core", "os", "windows", ..] | ["tokio", "net" | "signal", "windows", ..] => {
            Some(WINDOWS_ONLY)
        }
        _ => None,
    }
}

/// Whether a string names a file of Linux's `/proc`.
fn names_proc(s: &str) -> bool {
    s == "/proc" || s.starts_with("/proc/")
}

/// Each leaf of a `use` tree: its whole path, and the name it brings in
/// (`None` for `_` and globs).
fn use_leaves(tree: &UseTree) -> Vec<(Vec<String>, Option<String>)> {
    fn walk(
        tree: &UseTree,
        prefix: &mut Vec<String>,
        out: &mut Vec<(Vec<String>, Option<String>)>,
    ) {
        match tree {
            UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                walk(&p.tree, prefix, out);
                prefix.pop();
            }
            UseTree::Name(n) => {
                let mut path = prefix.clone();
                path.push(n.ident.to_string());
                let name = (n.ident != "self").then(|| n.ident.to_string());
                let name = name.or_else(|| prefix.last().cloned());
                out.push((path, name));
            }
            UseTree::Rename(r) => {
                let mut path = prefix.clone();
                path.push(r.ident.to_string());
                out.push((path, (r.rename != "_").then(|| r.rename.to_string())));
            }
            UseTree::Glob(_) => out.push((prefix.clone(), None)),
            UseTree::Group(g) => g.items.iter().for_each(|t| walk(t, prefix, out)),
        }
    }
    let mut out = Vec::new();
    walk(tree, &mut Vec::new(), &mut out);
    out
}

/// The predicates of the `#[cfg(...)]` attributes among `attrs`.
fn cfgs_of(attrs: &[Attribute]) -> Vec<Meta> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg"))
        .filter_map(|a| a.parse_args::<Meta>().ok())
        .collect()
}

/// Kleene's three values: a feature or `test` is unknown, so a predicate
/// is false on a platform only when it is false whatever they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tri {
    True,
    False,
    Unknown,
}

impl From<bool> for Tri {
    fn from(b: bool) -> Tri {
        if b {
            Tri::True
        } else {
            Tri::False
        }
    }
}

/// The value of a `cfg` predicate on `platform`.
fn eval(meta: &Meta, platform: &Platform) -> Tri {
    match meta {
        Meta::Path(p) if p.is_ident("unix") => (platform.family == "unix").into(),
        Meta::Path(p) if p.is_ident("windows") => (platform.family == "windows").into(),
        Meta::Path(_) => Tri::Unknown,
        Meta::NameValue(nv) => {
            let Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(value),
                ..
            }) = &nv.value
            else {
                return Tri::Unknown;
            };
            let value = value.value();
            let key = nv
                .path
                .get_ident()
                .map(ToString::to_string)
                .unwrap_or_default();
            match key.as_str() {
                "target_os" => (platform.os == value).into(),
                "target_family" => (platform.family == value).into(),
                "target_vendor" => (platform.vendor == value).into(),
                _ => Tri::Unknown,
            }
        }
        Meta::List(list) => {
            let Ok(args) = list.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
            else {
                return Tri::Unknown;
            };
            let values = args.iter().map(|m| eval(m, platform));
            if list.path.is_ident("all") {
                decided_by(values, Tri::False)
            } else if list.path.is_ident("any") {
                decided_by(values, Tri::True)
            } else if list.path.is_ident("not") {
                match args.first().map(|m| eval(m, platform)) {
                    Some(Tri::True) => Tri::False,
                    Some(Tri::False) => Tri::True,
                    _ => Tri::Unknown,
                }
            } else {
                Tri::Unknown
            }
        }
    }
}

/// `all` (decided by a false value) or `any` (by a true one): `decider` if
/// any value is, else unknown if any is, else the opposite of `decider`.
fn decided_by(values: impl Iterator<Item = Tri>, decider: Tri) -> Tri {
    let mut unknown = false;
    for v in values {
        if v == decider {
            return decider;
        }
        unknown |= v == Tri::Unknown;
    }
    match (unknown, decider) {
        (true, _) => Tri::Unknown,
        (false, Tri::False) => Tri::True,
        (false, _) => Tri::False,
    }
}

fn item_attrs(item: &Item) -> &[Attribute] {
    match item {
        Item::Const(i) => &i.attrs,
        Item::Enum(i) => &i.attrs,
        Item::ExternCrate(i) => &i.attrs,
        Item::Fn(i) => &i.attrs,
        Item::ForeignMod(i) => &i.attrs,
        Item::Impl(i) => &i.attrs,
        Item::Macro(i) => &i.attrs,
        Item::Mod(i) => &i.attrs,
        Item::Static(i) => &i.attrs,
        Item::Struct(i) => &i.attrs,
        Item::Trait(i) => &i.attrs,
        Item::TraitAlias(i) => &i.attrs,
        Item::Type(i) => &i.attrs,
        Item::Union(i) => &i.attrs,
        Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

fn expr_attrs(expr: &Expr) -> &[Attribute] {
    match expr {
        Expr::Array(e) => &e.attrs,
        Expr::Assign(e) => &e.attrs,
        Expr::Async(e) => &e.attrs,
        Expr::Await(e) => &e.attrs,
        Expr::Binary(e) => &e.attrs,
        Expr::Block(e) => &e.attrs,
        Expr::Break(e) => &e.attrs,
        Expr::Call(e) => &e.attrs,
        Expr::Cast(e) => &e.attrs,
        Expr::Closure(e) => &e.attrs,
        Expr::Const(e) => &e.attrs,
        Expr::Continue(e) => &e.attrs,
        Expr::Field(e) => &e.attrs,
        Expr::ForLoop(e) => &e.attrs,
        Expr::Group(e) => &e.attrs,
        Expr::If(e) => &e.attrs,
        Expr::Index(e) => &e.attrs,
        Expr::Infer(e) => &e.attrs,
        Expr::Let(e) => &e.attrs,
        Expr::Lit(e) => &e.attrs,
        Expr::Loop(e) => &e.attrs,
        Expr::Macro(e) => &e.attrs,
        Expr::Match(e) => &e.attrs,
        Expr::MethodCall(e) => &e.attrs,
        Expr::Paren(e) => &e.attrs,
        Expr::Path(e) => &e.attrs,
        Expr::Range(e) => &e.attrs,
        Expr::Reference(e) => &e.attrs,
        Expr::Repeat(e) => &e.attrs,
        Expr::Return(e) => &e.attrs,
        Expr::Struct(e) => &e.attrs,
        Expr::Try(e) => &e.attrs,
        Expr::TryBlock(e) => &e.attrs,
        Expr::Tuple(e) => &e.attrs,
        Expr::Unary(e) => &e.attrs,
        Expr::Unsafe(e) => &e.attrs,
        Expr::While(e) => &e.attrs,
        Expr::Yield(e) => &e.attrs,
        _ => &[],
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
