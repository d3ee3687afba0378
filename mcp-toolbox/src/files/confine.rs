//! Where a requested path may lead: the allowed roots, the client's roots, and the check.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::io;
use std::path::{Component, Path, PathBuf};

use cap_std::fs::Dir;
use oxmcp_server::ToolError;

/// One allowed root: its canonical path and the directory it was when the
/// toolbox was built, held open (every operation walks from this handle).
#[derive(Debug)]
pub(crate) struct Root {
    pub(crate) path: PathBuf,
    pub(crate) dir: Dir,
}

impl Root {
    /// Canonicalises `path` and opens it as a directory.
    pub(crate) fn open(path: &Path) -> io::Result<Root> {
        refuse_nul(path.as_os_str().as_encoded_bytes())
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.message().to_owned()))?;
        let path = std::fs::canonicalize(path)?;
        // The one open by an ambient path: the root itself, as the host named it.
        let dir = Dir::open_ambient_dir(&path, cap_std::ambient_authority())?;
        Ok(Root { path, dir })
    }
}

/// The directories one call may touch: the allowed roots, narrowed to the
/// client's roots when it offers them (canonical paths).
#[derive(Debug, Clone)]
pub(crate) struct Scope {
    pub(crate) dirs: Vec<PathBuf>,
}

impl Scope {
    /// The allowed roots, narrowed to `client` (canonical client roots) when
    /// given: every directory inside both an allowed root and a client root.
    pub(crate) fn new(roots: &[Root], client: Option<&[PathBuf]>) -> Scope {
        let allowed = roots.iter().map(|r| r.path.clone());
        let Some(client) = client else {
            return Scope {
                dirs: allowed.collect(),
            };
        };
        let mut dirs: Vec<PathBuf> = Vec::new();
        for root in allowed {
            for c in client {
                let inner = if c.starts_with(&root) {
                    c.clone()
                } else if root.starts_with(c) {
                    root.clone()
                } else {
                    continue;
                };
                if !dirs.contains(&inner) {
                    dirs.push(inner);
                }
            }
        }
        Scope { dirs }
    }

    fn contains(&self, path: &Path) -> bool {
        // Component by component: `/tmp/root2` does not start with `/tmp/root`.
        self.dirs.iter().any(|d| path.starts_with(d))
    }

    fn listed(&self) -> String {
        let dirs: Vec<String> = self.dirs.iter().map(|d| d.display().to_string()).collect();
        if dirs.is_empty() {
            "(no directory: the client's roots share none with the allowed directories)".into()
        } else {
            dirs.join(", ")
        }
    }
}

/// A checked path: `base` exists, is canonical and lies inside the scope;
/// `tail` names the components below it that do not exist yet (plain names,
/// never `..`).
#[derive(Debug, Clone)]
pub(crate) struct Target {
    /// The allowed root to walk from (it contains `base`).
    pub(crate) root: usize,
    pub(crate) base: PathBuf,
    pub(crate) tail: Vec<OsString>,
}

impl Target {
    /// The full path: `base` followed by the missing components.
    pub(crate) fn path(&self) -> PathBuf {
        let mut p = self.base.clone();
        p.extend(&self.tail);
        p
    }

    /// Whether the path exists (its last component is there).
    pub(crate) fn exists(&self) -> bool {
        self.tail.is_empty()
    }
}

/// Refuses a path containing a NUL byte (no system call could take it, and
/// a truncating layer might read another path).
pub(crate) fn refuse_nul(bytes: &[u8]) -> Result<(), ToolError> {
    if bytes.contains(&0) {
        Err(ToolError::new("Invalid path: it contains a NUL byte"))
    } else {
        Ok(())
    }
}

/// Checks `requested` against `scope`: resolved against the first directory
/// of the scope when relative, canonicalised (symlinks resolved) as far as
/// it exists, and compared component by component with the scope.
pub(crate) fn locate(roots: &[Root], scope: &Scope, requested: &str) -> Result<Target, ToolError> {
    refuse_nul(requested.as_bytes())?;
    if requested.is_empty() {
        return Err(ToolError::new("Invalid path: it is empty"));
    }
    let absolute = if Path::new(requested).is_absolute() {
        PathBuf::from(requested)
    } else {
        let Some(first) = scope.dirs.first() else {
            return Err(denied(requested, scope));
        };
        first.join(requested)
    };
    let (base, rest) = deepest_existing(&absolute)?;
    if !scope.contains(&base) {
        return Err(denied(requested, scope));
    }
    let mut tail = Vec::new();
    for c in rest.components() {
        match c {
            Component::Normal(name) => tail.push(name.to_owned()),
            Component::CurDir => {}
            _ => {
                return Err(ToolError::new(format!(
                    "Parent directory does not exist: {}",
                    absolute.display()
                )))
            }
        }
    }
    let root = roots
        .iter()
        .enumerate()
        .filter(|(_, r)| base.starts_with(&r.path))
        .max_by_key(|(_, r)| r.path.components().count())
        .map(|(i, _)| i)
        .ok_or_else(|| denied(requested, scope))?;
    Ok(Target { root, base, tail })
}

/// The canonical form of the longest prefix of `absolute` that exists, and
/// the rest of `absolute` after that prefix.
fn deepest_existing(absolute: &Path) -> Result<(PathBuf, PathBuf), ToolError> {
    for ancestor in absolute.ancestors() {
        match std::fs::canonicalize(ancestor) {
            Ok(base) => {
                let rest = absolute
                    .strip_prefix(ancestor)
                    .map(Path::to_path_buf)
                    .unwrap_or_default();
                return Ok((base, rest));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(ToolError::new(format!("{}: {e}", absolute.display()))),
        }
    }
    Err(ToolError::new(format!(
        "{}: no part of the path exists",
        absolute.display()
    )))
}

fn denied(requested: &str, scope: &Scope) -> ToolError {
    ToolError::new(format!(
        "Access denied - path outside allowed directories: {requested} not in {}",
        scope.listed()
    ))
}

/// The local path of a `file://` URI (`file:///p` or `file://localhost/p`),
/// percent-decoded; `None` for anything else or a path with a NUL byte.
pub(crate) fn file_uri_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let rest = rest.split(['?', '#']).next().unwrap_or_default();
    let mut bytes = Vec::with_capacity(rest.len());
    let mut it = rest.bytes();
    while let Some(b) = it.next() {
        if b == b'%' {
            let hi = it.next().and_then(|c| char::from(c).to_digit(16))?;
            let lo = it.next().and_then(|c| char::from(c).to_digit(16))?;
            bytes.push(u8::try_from(hi * 16 + lo).ok()?);
        } else {
            bytes.push(b);
        }
    }
    if bytes.contains(&0) {
        return None;
    }
    #[cfg(unix)]
    {
        // Any bytes but NUL make a Unix path.
        use std::os::unix::ffi::OsStringExt as _;
        Some(PathBuf::from(OsString::from_vec(bytes)))
    }
    #[cfg(not(unix))]
    {
        // Windows paths are text; `/C:/dir` names `C:/dir`.
        let text = String::from_utf8(bytes).ok()?;
        Some(PathBuf::from(match text.as_bytes() {
            [b'/', drive, b':', ..] if drive.is_ascii_alphabetic() => &text[1..],
            _ => text.as_str(),
        }))
    }
}

/// The `file://` URI of an absolute path, percent-encoding what a URI path
/// may not hold.
pub(crate) fn file_uri(path: &Path) -> String {
    let mut uri = String::from("file://");
    for b in uri_path_bytes(path) {
        if b.is_ascii_alphanumeric() || b"/-._~!$&'()*+,;=:@".contains(&b) {
            uri.push(char::from(b));
        } else {
            let _ = write!(uri, "%{b:02X}");
        }
    }
    uri
}

/// The bytes of `path` as a URI's path holds them: on Windows, `C:\dir`
/// (canonically `\\?\C:\dir`) is `/C:/dir`.
fn uri_path_bytes(path: &Path) -> Vec<u8> {
    #[cfg(windows)]
    {
        let text = path.to_string_lossy();
        let text = text.strip_prefix(r"\\?\").unwrap_or(&text);
        format!("/{}", text.replace('\\', "/")).into_bytes()
    }
    #[cfg(not(windows))]
    {
        path.as_os_str().as_encoded_bytes().to_vec()
    }
}
