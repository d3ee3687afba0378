//! [`Files`] and its builder: the roots, the limits, read-only mode.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use oxmcp_server::{ToolBox, ToolEntry};

use super::confine::Root;
use super::{Core, FileTools, CHANGING_TOOLS, DEFAULT_MAX_READ_BYTES, DEFAULT_MAX_WRITE_BYTES};

/// The files toolbox: register it with `ServerBuilder::toolbox`, or attach
/// it to an agent. Built by [`Files::builder`].
pub struct Files {
    pub(super) tools: FileTools,
}

impl fmt::Debug for Files {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Files")
            .field("roots", &self.roots())
            .field("read_only", &self.is_read_only())
            .finish_non_exhaustive()
    }
}

impl Files {
    /// A builder with the safe defaults: read-only, 10 MiB limits, narrowed
    /// to the client's roots. Name at least one root.
    pub fn builder() -> FilesBuilder {
        FilesBuilder::default()
    }

    /// The allowed roots, canonical.
    pub fn roots(&self) -> Vec<&Path> {
        self.tools
            .core
            .roots
            .iter()
            .map(|r| r.path.as_path())
            .collect()
    }

    /// Whether the changing tools are left out.
    pub fn is_read_only(&self) -> bool {
        self.tools.core.read_only
    }
}

impl ToolBox for Files {
    const NAME: &'static str = "Files";
    const DESCRIPTION: &'static str = <FileTools as ToolBox>::DESCRIPTION;

    fn into_tools(self) -> Vec<ToolEntry> {
        let read_only = self.is_read_only();
        self.tools
            .into_tools()
            .into_iter()
            .filter(|t| !(read_only && CHANGING_TOOLS.contains(&t.name())))
            .collect()
    }
}

/// Configures [`Files`]; the defaults are the safe ones.
#[derive(Debug, Clone)]
#[must_use]
pub struct FilesBuilder {
    roots: Vec<PathBuf>,
    read_only: bool,
    max_read: u64,
    max_write: u64,
    client_roots: bool,
}

impl Default for FilesBuilder {
    fn default() -> Self {
        FilesBuilder {
            roots: Vec::new(),
            read_only: true,
            max_read: DEFAULT_MAX_READ_BYTES,
            max_write: DEFAULT_MAX_WRITE_BYTES,
            client_roots: true,
        }
    }
}

impl FilesBuilder {
    /// Allows the directory `path` and everything below it.
    pub fn root(mut self, path: impl Into<PathBuf>) -> Self {
        self.roots.push(path.into());
        self
    }

    /// Allows each of `paths`.
    pub fn roots<P: Into<PathBuf>>(mut self, paths: impl IntoIterator<Item = P>) -> Self {
        self.roots.extend(paths.into_iter().map(Into::into));
        self
    }

    /// `false` offers the changing tools (`write_file`, `edit_file`,
    /// `create_directory`, `move_file`); the default, `true`, leaves them out.
    pub fn read_only(mut self, read_only: bool) -> Self {
        self.read_only = read_only;
        self
    }

    /// The largest read, in bytes (default [`DEFAULT_MAX_READ_BYTES`]).
    pub fn max_read_bytes(mut self, bytes: u64) -> Self {
        self.max_read = bytes;
        self
    }

    /// The largest write, in bytes (default [`DEFAULT_MAX_WRITE_BYTES`]).
    pub fn max_write_bytes(mut self, bytes: u64) -> Self {
        self.max_write = bytes;
        self
    }

    /// Whether a client that declares the `roots` capability narrows the
    /// allowed roots to its own (default `true`).
    pub fn client_roots(mut self, narrow: bool) -> Self {
        self.client_roots = narrow;
        self
    }

    /// Opens the roots; fails when there is none, or one is not a
    /// directory that can be opened.
    pub fn build(self) -> Result<Files, BuildError> {
        if self.roots.is_empty() {
            return Err(BuildError::NoRoot);
        }
        let mut roots: Vec<Root> = Vec::new();
        for path in self.roots {
            let root = Root::open(&path).map_err(|source| BuildError::Root {
                path: path.clone(),
                source,
            })?;
            if !roots.iter().any(|r| r.path == root.path) {
                roots.push(root);
            }
        }
        Ok(Files {
            tools: FileTools {
                core: Arc::new(Core {
                    roots,
                    read_only: self.read_only,
                    max_read: self.max_read,
                    max_write: self.max_write,
                    client_roots: self.client_roots,
                }),
            },
        })
    }
}

/// Why [`FilesBuilder::build`] failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// No root was given.
    #[error("no allowed directory: name at least one root")]
    NoRoot,
    /// A root could not be opened as a directory.
    #[error("cannot open the allowed directory {}", path.display())]
    Root {
        /// The root as given.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
}
