//! Files inside allowed roots: the reference filesystem server's tools, safe by construction.
//!
//! [`Files`] offers the tools of the reference server
//! (`@modelcontextprotocol/server-filesystem`) under the same names and
//! parameters, so a host switches by changing one command:
//! `read_text_file`, `read_media_file`, `read_multiple_files`,
//! `write_file`, `edit_file`, `create_directory`, `list_directory`,
//! `list_directory_with_sizes`, `directory_tree`, `move_file`,
//! `search_files`, `get_file_info`, `list_allowed_directories`, and
//! `exists`.
//!
//! ```no_run
//! use mcp_server::Server;
//! use mcp_toolbox::files::Files;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let files = Files::builder()
//!     .root("/srv/project")
//!     .read_only(false)               // the default is read-only
//!     .max_read_bytes(1 << 20)        // 10 MiB by default
//!     .build()?;
//! Server::builder("files", "1.0").toolbox(files).build().serve_stdio().await?;
//! # Ok(())
//! # }
//! ```
//!
//! # How paths are confined
//!
//! - **Roots.** Each allowed root is canonicalised and opened as a
//!   directory when the toolbox is built; the descriptor is kept.
//! - **The check.** A requested path is refused if it holds a NUL byte. A
//!   relative path is resolved against the first allowed directory. The
//!   longest prefix of it that exists is canonicalised (symlinks resolved,
//!   `..` applied by the kernel), and must lie inside an allowed root
//!   (`Path::starts_with`, component by component: `/tmp/root2` is not in
//!   `/tmp/root`). What follows that prefix must be plain names: a file
//!   that does not exist yet is checked through its parent. A symlink whose
//!   target is outside is therefore refused for reading, and a dangling
//!   one is a name in its directory (writing replaces the link itself).
//! - **The client's roots.** When the client declares the `roots`
//!   capability, each call asks for them (`roots/list`) and a path must lie
//!   inside both an allowed root and a client root (if the client names
//!   local directories but none meets an allowed root, nothing is allowed;
//!   if it names none, `roots: []` as the Inspector answers, the allowed
//!   roots stand; if asking fails, the call fails).
//!   [`FilesBuilder::client_roots`] turns this off.
//! - **The use.** Nothing is then opened by its path. Every operation walks
//!   from the root's descriptor to the checked directory one component at a
//!   time with `openat(O_DIRECTORY | O_NOFOLLOW)`, and acts on names in that
//!   directory with `openat`, `mkdirat`, `renameat` and `fstatat`, never
//!   following a symlink (`O_NOFOLLOW`, `AT_SYMLINK_NOFOLLOW`). The checked
//!   path has no symlink left in it, so a directory swapped for a symlink
//!   between the check and the use makes the walk fail (`ELOOP`/`ENOTDIR`)
//!   instead of leading outside: the check decides where, the descriptors
//!   make the use go exactly there.
//! - **Writes** (`write_file`, `edit_file`) create a new file under a random
//!   name in the checked directory with `O_CREAT | O_EXCL | O_NOFOLLOW`,
//!   write and sync it, then `renameat` it over the target. The final name
//!   is never opened for writing: a symlink planted there is replaced, not
//!   followed. An existing file keeps its permission bits. `move_file`
//!   renames with `RENAME_NOREPLACE` on Linux (an existing destination is
//!   an error, as in the reference).
//! - **Reads** open the file with `O_NOFOLLOW | O_NONBLOCK` and refuse
//!   anything but a regular file (a FIFO would block, a device is endless).
//! - **Limits.** Reads stop at [`FilesBuilder::max_read_bytes`] (a larger
//!   file is an error; `head` and `tail` read at most that much; the files
//!   of one `read_multiple_files` share it), writes at
//!   [`FilesBuilder::max_write_bytes`]. Both default to 10 MiB.
//! - **Read-only** (the default): `write_file`, `edit_file`,
//!   `create_directory` and `move_file` are not offered at all: [`Files`]
//!   implements [`ToolBox`] itself and leaves them out of its tools (and
//!   they refuse to run, should one be reached anyway).
//!
//! What this does not cover: a hard link inside a root to a file outside it
//! reads that file (no path leads outside; the inode is shared), and
//! another process that owns a root can always write into it. The crate is
//! for Unix (it needs `openat` and friends).
//!
//! # Differences from the reference server
//!
//! Texts are the reference's, but results carry no `structuredContent`;
//! `get_file_info` writes times in RFC 3339 (UTC); listings never follow a
//! symlink (one is listed as `[FILE]`, with the size of the link);
//! `edit_file` refuses a file that is not UTF-8 rather than writing it back
//! with replacement characters; the client's roots narrow the allowed
//! directories instead of replacing them; the deprecated `read_file` alias
//! is not offered.
//!
//! The typed client is [`FilesClient`] (generated for [`FileTools`], the
//! `#[tool]` block behind [`Files`]).

mod confine;
mod fsops;
mod text;

use std::ffi::OsString;
use std::fmt;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use base64::Engine as _;
use mcp_server::types::ResourceContents;
use mcp_server::{tool, Content, Context, ToolBox, ToolEntry, ToolError};
use serde::{Deserialize, Serialize};

use confine::{file_uri, file_uri_path, locate, Root, Scope, Target};
use fsops::Kind;

/// The default of [`FilesBuilder::max_read_bytes`]: 10 MiB.
pub const DEFAULT_MAX_READ_BYTES: u64 = 10 * 1024 * 1024;
/// The default of [`FilesBuilder::max_write_bytes`]: 10 MiB.
pub const DEFAULT_MAX_WRITE_BYTES: u64 = 10 * 1024 * 1024;
/// The most entries `directory_tree` and `search_files` visit in one call.
pub const MAX_WALK_ENTRIES: usize = 100_000;
/// The deepest `directory_tree` and `search_files` descend.
pub const MAX_WALK_DEPTH: usize = 128;

/// The tools that change files: left out in read-only mode.
pub const CHANGING_TOOLS: [&str; 4] = ["write_file", "edit_file", "create_directory", "move_file"];

/// The typed client of the files toolbox (generated for [`FileTools`]).
pub type FilesClient<C> = FileToolsClient<C>;

/// The files toolbox: register it with `ServerBuilder::toolbox`, or attach
/// it to an agent. Built by [`Files::builder`].
pub struct Files {
    tools: FileTools,
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
    #[error("cannot open the allowed directory {}: {source}", path.display())]
    Root {
        /// The root as given.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
}

/// One replacement of `edit_file`.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Edit {
    /// Text to search for - must match exactly
    #[serde(rename = "oldText")]
    pub old_text: String,
    /// Text to replace with
    #[serde(rename = "newText")]
    pub new_text: String,
}

/// How `list_directory_with_sizes` sorts.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum SortBy {
    /// By name, ascending.
    #[default]
    Name,
    /// By size, largest first.
    Size,
}

/// What every call shares: the roots and the limits.
#[derive(Debug)]
struct Core {
    roots: Vec<Root>,
    read_only: bool,
    max_read: u64,
    max_write: u64,
    client_roots: bool,
}

/// The tools behind [`Files`] (a `#[tool]` block); only [`Files`] makes one.
#[derive(Debug, Clone)]
pub struct FileTools {
    core: Arc<Core>,
}

#[tool(
    description = "Files inside the allowed directories: read, list, search, and (unless read-only) write, edit, create directories and move"
)]
impl FileTools {
    /// Reads a text file, or its first or last lines.
    #[describe("Read the complete contents of a file from the file system as text. Handles various text encodings and provides detailed error messages if the file cannot be read. Use this tool when you need to examine the contents of a single file. Use the 'head' parameter to read only the first N lines of a file, or the 'tail' parameter to read only the last N lines of a file. Operates on the file as text regardless of extension. Only works within allowed directories.")]
    #[tool(title = "Read Text File", read_only, open_world = false)]
    pub async fn read_text_file(
        &self,
        #[param("Path of the file (absolute, or relative to the first allowed directory)")]
        path: String,
        #[param("If provided, returns only the last N lines of the file")] tail: Option<u64>,
        #[param("If provided, returns only the first N lines of the file")] head: Option<u64>,
        ctx: Context,
    ) -> Result<String, ToolError> {
        let head = head.filter(|&n| n > 0);
        let tail = tail.filter(|&n| n > 0);
        if head.is_some() && tail.is_some() {
            return Err(ToolError::new(
                "Cannot specify both head and tail parameters simultaneously",
            ));
        }
        self.run(&ctx, move |core, scope| {
            let t = core.locate(scope, &path)?;
            let mut file = core.open_file(&t, &path)?;
            let ctx_err = io_err(&path);
            if let Some(n) = head {
                let bytes = fsops::read_head(&mut file, n, core.max_read).map_err(ctx_err)?;
                Ok(String::from_utf8_lossy(&bytes).into_owned())
            } else if let Some(n) = tail {
                let bytes = fsops::read_tail_window(&mut file, core.max_read).map_err(ctx_err)?;
                let text = text::normalize_line_endings(&String::from_utf8_lossy(&bytes));
                let lines: Vec<&str> = text.split('\n').collect();
                let skip = lines
                    .len()
                    .saturating_sub(usize::try_from(n).unwrap_or(usize::MAX));
                Ok(lines[skip..].join("\n"))
            } else {
                let bytes = fsops::read_all(&mut file, core.max_read).map_err(ctx_err)?;
                Ok(String::from_utf8_lossy(&bytes).into_owned())
            }
        })
        .await
    }

    /// Reads a file as an image, audio or resource block (base64).
    #[describe("Read a file and return it as a base64-encoded content block with its MIME type. Image and audio files are returned as image/audio content; any other file type is returned as an embedded resource. Only works within allowed directories.")]
    #[tool(title = "Read Media File", read_only, open_world = false)]
    pub async fn read_media_file(
        &self,
        #[param("Path of the file (absolute, or relative to the first allowed directory)")]
        path: String,
        ctx: Context,
    ) -> Result<Content, ToolError> {
        self.run(&ctx, move |core, scope| {
            let t = core.locate(scope, &path)?;
            let mut file = core.open_file(&t, &path)?;
            let bytes = fsops::read_all(&mut file, core.max_read).map_err(io_err(&path))?;
            let data = base64::engine::general_purpose::STANDARD.encode(bytes);
            let full = t.path();
            let mime = mime_type(&full);
            Ok(if mime.starts_with("image/") {
                Content::image(data, mime)
            } else if mime.starts_with("audio/") {
                Content::audio(data, mime)
            } else {
                Content::resource(ResourceContents::blob(file_uri(&full), mime, data))
            })
        })
        .await
    }

    /// Reads several files; a failure is reported in place.
    #[describe("Read the contents of multiple files simultaneously. This is more efficient than reading files one by one when you need to analyze or compare multiple files. Each file's content is returned with its path as a reference. Failed reads for individual files won't stop the entire operation. Only works within allowed directories.")]
    #[tool(title = "Read Multiple Files", read_only, open_world = false)]
    pub async fn read_multiple_files(
        &self,
        #[param("Array of file paths to read. Each path must be a string pointing to a valid file within allowed directories.")]
        paths: Vec<String>,
        ctx: Context,
    ) -> Result<String, ToolError> {
        if paths.is_empty() {
            return Err(ToolError::new("At least one file path must be provided"));
        }
        self.run(&ctx, move |core, scope| {
            // The files share one read budget.
            let mut budget = core.max_read;
            let parts: Vec<String> = paths
                .iter()
                .map(|path| {
                    let read = core.locate(scope, path).and_then(|t| {
                        let mut file = core.open_file(&t, path)?;
                        fsops::read_all(&mut file, budget).map_err(io_err(path))
                    });
                    match read {
                        Ok(bytes) => {
                            budget -= bytes.len() as u64;
                            format!("{path}:\n{}\n", String::from_utf8_lossy(&bytes))
                        }
                        Err(e) => format!("{path}: Error - {}", e.message()),
                    }
                })
                .collect();
            Ok(parts.join("\n---\n"))
        })
        .await
    }

    /// Creates or replaces a file, atomically.
    #[describe("Create a new file or completely overwrite an existing file with new content. Use with caution as it will overwrite existing files without warning. Handles text content with proper encoding. Only works within allowed directories.")]
    #[tool(
        title = "Write File",
        read_only = false,
        destructive,
        idempotent,
        open_world = false
    )]
    pub async fn write_file(
        &self,
        #[param("Path of the file (absolute, or relative to the first allowed directory)")]
        path: String,
        #[param("The file's new content")] content: String,
        ctx: Context,
    ) -> Result<String, ToolError> {
        self.core.writable()?;
        self.core.write_limit(content.len())?;
        self.run(&ctx, move |core, scope| {
            let t = core.locate(scope, &path)?;
            let (dir, name) = core.parent_of(&t, &path)?;
            let name = name.ok_or_else(|| is_a_directory(&path))?;
            fsops::replace(dir.as_fd(), &name, content.as_bytes()).map_err(io_err(&path))?;
            Ok(format!("Successfully wrote to {path}"))
        })
        .await
    }

    /// Replaces exact texts in a file; returns the diff.
    #[describe("Make line-based edits to a text file. Each edit replaces exact line sequences with new content. Returns a git-style diff showing the changes made. Only works within allowed directories.")]
    #[tool(
        title = "Edit File",
        read_only = false,
        destructive,
        idempotent = false,
        open_world = false
    )]
    pub async fn edit_file(
        &self,
        #[param("Path of the file (absolute, or relative to the first allowed directory)")]
        path: String,
        #[param("The replacements, applied in order: each replaces the first occurrence of oldText with newText")]
        edits: Vec<Edit>,
        #[param(
            "Preview changes using git-style diff format",
            rename = "dryRun",
            default = false
        )]
        dry_run: bool,
        ctx: Context,
    ) -> Result<String, ToolError> {
        self.core.writable()?;
        self.run(&ctx, move |core, scope| {
            let t = core.locate(scope, &path)?;
            let mut file = core.open_file(&t, &path)?;
            let bytes = fsops::read_all(&mut file, core.max_read).map_err(io_err(&path))?;
            drop(file);
            let old = String::from_utf8(bytes).map_err(|_| {
                ToolError::new(format!(
                    "{path}: the file is not UTF-8 text; it was not edited"
                ))
            })?;
            let new = text::apply_edits(&old, &edits)?;
            core.write_limit(new.len())?;
            let diff = text::fenced_diff(&old, &new, &t.path().display().to_string());
            if !dry_run {
                let (dir, name) = core.parent_of(&t, &path)?;
                let name = name.ok_or_else(|| is_a_directory(&path))?;
                fsops::replace(dir.as_fd(), &name, new.as_bytes()).map_err(io_err(&path))?;
            }
            Ok(diff)
        })
        .await
    }

    /// Creates a directory and its missing parents.
    #[describe("Create a new directory or ensure a directory exists. Can create multiple nested directories in one operation. If the directory already exists, this operation will succeed silently. Perfect for setting up directory structures for projects or ensuring required paths exist. Only works within allowed directories.")]
    #[tool(
        title = "Create Directory",
        read_only = false,
        destructive = false,
        idempotent,
        open_world = false
    )]
    pub async fn create_directory(
        &self,
        #[param("Path of the directory (absolute, or relative to the first allowed directory)")]
        path: String,
        ctx: Context,
    ) -> Result<String, ToolError> {
        self.core.writable()?;
        self.run(&ctx, move |core, scope| {
            let t = core.locate(scope, &path)?;
            let base = core.walk_to_base(&t, &path)?;
            fsops::make_dirs(base, &t.tail).map_err(io_err(&path))?;
            Ok(format!("Successfully created directory {path}"))
        })
        .await
    }

    /// Lists a directory, `[DIR]` and `[FILE]` entries.
    #[describe("Get a detailed listing of all files and directories in a specified path. Results clearly distinguish between files and directories with [FILE] and [DIR] prefixes. This tool is essential for understanding directory structure and finding specific files within a directory. Only works within allowed directories.")]
    #[tool(title = "List Directory", read_only, open_world = false)]
    pub async fn list_directory(
        &self,
        #[param("Path of the directory (absolute, or relative to the first allowed directory)")]
        path: String,
        ctx: Context,
    ) -> Result<String, ToolError> {
        self.run(&ctx, move |core, scope| {
            let t = core.locate(scope, &path)?;
            let dir = core.open_dir(&t, &path)?;
            let entries = fsops::list(dir.as_fd()).map_err(io_err(&path))?;
            let lines: Vec<String> = entries
                .iter()
                .map(|e| format!("{} {}", prefix(e.kind), e.name.to_string_lossy()))
                .collect();
            Ok(lines.join("\n"))
        })
        .await
    }

    /// Lists a directory with sizes and totals.
    #[describe("Get a detailed listing of all files and directories in a specified path, including sizes. Results clearly distinguish between files and directories with [FILE] and [DIR] prefixes. This tool is useful for understanding directory structure and finding specific files within a directory. Only works within allowed directories.")]
    #[tool(title = "List Directory with Sizes", read_only, open_world = false)]
    pub async fn list_directory_with_sizes(
        &self,
        #[param("Path of the directory (absolute, or relative to the first allowed directory)")]
        path: String,
        #[param("Sort entries by name or size", rename = "sortBy", default = SortBy::Name)]
        sort_by: SortBy,
        ctx: Context,
    ) -> Result<String, ToolError> {
        self.run(&ctx, move |core, scope| {
            let t = core.locate(scope, &path)?;
            let dir = core.open_dir(&t, &path)?;
            let mut entries = fsops::list(dir.as_fd()).map_err(io_err(&path))?;
            if sort_by == SortBy::Size {
                entries.sort_by_key(|e| std::cmp::Reverse(e.size));
            }
            let mut lines: Vec<String> = entries
                .iter()
                .map(|e| {
                    let size = if e.kind == Kind::Dir {
                        String::new()
                    } else {
                        format!("{:>10}", text::format_size(e.size))
                    };
                    format!("{} {:<30} {size}", prefix(e.kind), e.name.to_string_lossy())
                })
                .collect();
            let files = entries.iter().filter(|e| e.kind != Kind::Dir).count();
            let dirs = entries.len() - files;
            let total: u64 = entries
                .iter()
                .filter(|e| e.kind != Kind::Dir)
                .map(|e| e.size)
                .sum();
            lines.push(String::new());
            lines.push(format!("Total: {files} files, {dirs} directories"));
            lines.push(format!("Combined size: {}", text::format_size(total)));
            Ok(lines.join("\n"))
        })
        .await
    }

    /// The tree below a directory, as JSON.
    #[describe("Get a recursive tree view of files and directories as a JSON structure. Each entry includes 'name', 'type' (file/directory), and 'children' for directories. Files have no children array, while directories always have a children array (which may be empty). The output is formatted with 2-space indentation for readability. Only works within allowed directories.")]
    #[tool(title = "Directory Tree", read_only, open_world = false)]
    pub async fn directory_tree(
        &self,
        #[param("Path of the directory (absolute, or relative to the first allowed directory)")]
        path: String,
        #[param("Glob patterns of entries to leave out (relative to path; a plain name matches at any depth)", rename = "excludePatterns", default = Vec::new())]
        exclude_patterns: Vec<String>,
        ctx: Context,
    ) -> Result<String, ToolError> {
        self.run(&ctx, move |core, scope| {
            let excludes = text::tree_excludes(&exclude_patterns)?;
            let t = core.locate(scope, &path)?;
            let dir = core.open_dir(&t, &path)?;
            let mut visited = 0;
            let tree =
                tree(dir.as_fd(), Path::new(""), &excludes, &mut visited).map_err(io_err(&path))?;
            serde_json::to_string_pretty(&tree).map_err(|e| ToolError::new(e.to_string()))
        })
        .await
    }

    /// Moves or renames a file or directory; never replaces one.
    #[describe("Move or rename files and directories. Can move files between directories and rename them in a single operation. If the destination exists, the operation will fail. Works across different directories and can be used for simple renaming within the same directory. Both source and destination must be within allowed directories.")]
    #[tool(
        title = "Move File",
        read_only = false,
        destructive,
        idempotent = false,
        open_world = false
    )]
    pub async fn move_file(
        &self,
        #[param("Path of the file or directory to move")] source: String,
        #[param("Its new path (must not exist)")] destination: String,
        ctx: Context,
    ) -> Result<String, ToolError> {
        self.core.writable()?;
        self.run(&ctx, move |core, scope| {
            let from = core.locate_entry(scope, &source)?;
            let from_path = from.path();
            if scope.dirs.contains(&from_path) || core.roots.iter().any(|r| r.path == from_path) {
                return Err(ToolError::new(format!(
                    "{source}: an allowed directory cannot be moved"
                )));
            }
            let to = core.locate(scope, &destination)?;
            if to.exists() {
                return Err(ToolError::new(format!(
                    "Destination already exists: {destination}"
                )));
            }
            let (from_dir, from_name) = core.parent_of(&from, &source)?;
            let from_name = from_name.ok_or_else(|| {
                ToolError::new(format!("{source}: an allowed directory cannot be moved"))
            })?;
            let (to_dir, to_name) = core.parent_of(&to, &destination)?;
            let to_name = to_name.ok_or_else(|| is_a_directory(&destination))?;
            fsops::move_entry(from_dir.as_fd(), &from_name, to_dir.as_fd(), &to_name).map_err(
                |e| ToolError::new(format!("Cannot move {source} to {destination}: {e}")),
            )?;
            Ok(format!("Successfully moved {source} to {destination}"))
        })
        .await
    }

    /// Paths below a directory matching a glob.
    #[describe("Recursively search for files and directories matching a pattern. The patterns should be glob-style patterns that match paths relative to the working directory. Use pattern like '*.ext' to match files in current directory, and '**/*.ext' to match files in all subdirectories. Returns full paths to all matching items. Great for finding files when you don't know their exact location. Only searches within allowed directories.")]
    #[tool(title = "Search Files", read_only, open_world = false)]
    pub async fn search_files(
        &self,
        #[param("Directory to search in")] path: String,
        #[param("Glob pattern matched against paths relative to path")] pattern: String,
        #[param("Glob patterns of paths (relative to path) to leave out", rename = "excludePatterns", default = Vec::new())]
        exclude_patterns: Vec<String>,
        ctx: Context,
    ) -> Result<String, ToolError> {
        self.run(&ctx, move |core, scope| {
            let matcher = text::glob(&pattern)?;
            let excludes = exclude_patterns
                .iter()
                .map(|p| text::glob(p))
                .collect::<Result<Vec<_>, _>>()?;
            let t = core.locate(scope, &path)?;
            let dir = core.open_dir(&t, &path)?;
            let mut found = Vec::new();
            let mut visited = 0;
            let search = Search {
                root: t.path(),
                matcher: &matcher,
                excludes: &excludes,
            };
            search
                .run(dir.as_fd(), Path::new(""), &mut found, &mut visited)
                .map_err(io_err(&path))?;
            Ok(if found.is_empty() {
                "No matches found".to_owned()
            } else {
                found.join("\n")
            })
        })
        .await
    }

    /// Size, times, type and permissions of a file or directory.
    #[describe("Retrieve detailed metadata about a file or directory. Returns comprehensive information including size, creation time, last modified time, permissions, and type. This tool is perfect for understanding file characteristics without reading the actual content. Only works within allowed directories.")]
    #[tool(title = "Get File Info", read_only, open_world = false)]
    pub async fn get_file_info(
        &self,
        #[param(
            "Path of the file or directory (absolute, or relative to the first allowed directory)"
        )]
        path: String,
        ctx: Context,
    ) -> Result<String, ToolError> {
        self.run(&ctx, move |core, scope| {
            let t = core.locate(scope, &path)?;
            if !t.exists() {
                return Err(not_found(&path));
            }
            let (dir, name) = core.parent_of(&t, &path)?;
            let meta = fsops::metadata(dir.as_fd(), name.as_deref()).map_err(io_err(&path))?;
            Ok(file_info(&meta))
        })
        .await
    }

    /// The directories this call may touch.
    #[describe("Returns the list of directories that this server is allowed to access. Subdirectories within these allowed directories are also accessible. Use this to understand which directories and their nested paths are available before trying to access files.")]
    #[tool(title = "List Allowed Directories", read_only, open_world = false)]
    pub async fn list_allowed_directories(&self, ctx: Context) -> Result<String, ToolError> {
        self.run(&ctx, |_, scope| {
            let dirs: Vec<String> = scope.dirs.iter().map(|d| d.display().to_string()).collect();
            Ok(format!("Allowed directories:\n{}", dirs.join("\n")))
        })
        .await
    }

    /// Whether a path exists.
    #[describe("Whether a file or directory exists at a path within the allowed directories: true or false. A path outside them is an error.")]
    #[tool(title = "Exists", read_only, open_world = false)]
    pub async fn exists(
        &self,
        #[param("Path to check (absolute, or relative to the first allowed directory)")]
        path: String,
        ctx: Context,
    ) -> Result<bool, ToolError> {
        self.run(&ctx, move |core, scope| {
            Ok(core.locate(scope, &path)?.exists())
        })
        .await
    }
}

impl FileTools {
    /// Runs `op` on a blocking thread with the call's scope: the allowed
    /// roots, narrowed to the client's when it offers them.
    async fn run<T: Send + 'static>(
        &self,
        ctx: &Context,
        op: impl FnOnce(&Core, &Scope) -> Result<T, ToolError> + Send + 'static,
    ) -> Result<T, ToolError> {
        let client = self.client_roots(ctx).await?;
        let core = Arc::clone(&self.core);
        tokio::task::spawn_blocking(move || {
            let client: Option<Vec<PathBuf>> = client.map(|roots| {
                roots
                    .iter()
                    .filter_map(|p| std::fs::canonicalize(p).ok())
                    .collect()
            });
            let scope = Scope::new(&core.roots, client.as_deref());
            op(&core, &scope)
        })
        .await
        .map_err(|e| ToolError::new(format!("the operation failed: {e}")))?
    }

    /// The client's roots as local paths, when it declares the capability
    /// (and narrowing is on); failing to get them fails the call.
    async fn client_roots(&self, ctx: &Context) -> Result<Option<Vec<PathBuf>>, ToolError> {
        if !self.core.client_roots || ctx.client_capabilities().roots.is_none() {
            return Ok(None);
        }
        let roots = ctx
            .roots()
            .await
            .map_err(|e| ToolError::new(format!("Could not get the client's roots: {e}")))?;
        let local: Vec<PathBuf> = roots.iter().filter_map(|r| file_uri_path(&r.uri)).collect();
        // A client that names no local directory (the Inspector answers
        // `roots: []`) has nothing to narrow to: the allowed roots stand,
        // as the reference server keeps its own when given no valid root.
        Ok((!local.is_empty()).then_some(local))
    }
}

impl Core {
    fn writable(&self) -> Result<(), ToolError> {
        if self.read_only {
            Err(ToolError::new("This toolbox is read-only"))
        } else {
            Ok(())
        }
    }

    fn write_limit(&self, len: usize) -> Result<(), ToolError> {
        if len as u64 > self.max_write {
            Err(ToolError::new(format!(
                "The content has {len} bytes, over the write limit of {} bytes",
                self.max_write
            )))
        } else {
            Ok(())
        }
    }

    fn locate(&self, scope: &Scope, path: &str) -> Result<Target, ToolError> {
        locate(&self.roots, scope, path)
    }

    /// As [`locate`](Self::locate), but a symlink as the last component is
    /// the entry itself, not what it points to (what `move_file` moves).
    fn locate_entry(&self, scope: &Scope, path: &str) -> Result<Target, ToolError> {
        confine::refuse_nul(path.as_bytes())?;
        let p = Path::new(path);
        let is_link = std::fs::symlink_metadata(Self::absolute(scope, p))
            .is_ok_and(|m| m.file_type().is_symlink());
        let name = p.file_name().filter(|_| is_link);
        let Some(name) = name else {
            let t = self.locate(scope, path)?;
            return if t.exists() {
                Ok(t)
            } else {
                Err(not_found(path))
            };
        };
        let parent = p.parent().filter(|d| !d.as_os_str().is_empty());
        let parent = parent.map_or_else(|| ".".into(), Path::to_string_lossy);
        let mut t = locate(&self.roots, scope, &parent)?;
        if !t.exists() {
            return Err(not_found(path));
        }
        t.base.push(name);
        Ok(t)
    }

    fn absolute(scope: &Scope, p: &Path) -> PathBuf {
        match scope.dirs.first() {
            Some(first) if p.is_relative() => first.join(p),
            _ => p.to_path_buf(),
        }
    }

    /// The directory holding the target, opened by walking from its root,
    /// and the target's name in it (`None` for a root itself).
    fn parent_of(&self, t: &Target, path: &str) -> Result<(OwnedFd, Option<OsString>), ToolError> {
        let root = &self.roots[t.root];
        let rel = |p: &Path| p.strip_prefix(&root.path).map(Path::to_path_buf);
        match t.tail.as_slice() {
            [name] => {
                let dir = fsops::walk(root.fd.as_fd(), &rel(&t.base).map_err(|_| escape(path))?)
                    .map_err(io_err(path))?;
                Ok((dir, Some(name.clone())))
            }
            [] if t.base == root.path => {
                let dir = fsops::walk(root.fd.as_fd(), Path::new("")).map_err(io_err(path))?;
                Ok((dir, None))
            }
            [] => {
                let (Some(parent), Some(name)) = (t.base.parent(), t.base.file_name()) else {
                    return Err(escape(path));
                };
                let dir = fsops::walk(root.fd.as_fd(), &rel(parent).map_err(|_| escape(path))?)
                    .map_err(io_err(path))?;
                Ok((dir, Some(name.to_owned())))
            }
            _ => Err(ToolError::new(format!(
                "Parent directory does not exist: {path}"
            ))),
        }
    }

    /// The existing part of the target, opened as a directory.
    fn walk_to_base(&self, t: &Target, path: &str) -> Result<OwnedFd, ToolError> {
        let root = &self.roots[t.root];
        let rel = t.base.strip_prefix(&root.path).map_err(|_| escape(path))?;
        fsops::walk(root.fd.as_fd(), rel).map_err(io_err(path))
    }

    /// The target, which must exist, opened as a directory.
    fn open_dir(&self, t: &Target, path: &str) -> Result<OwnedFd, ToolError> {
        if !t.exists() {
            return Err(not_found(path));
        }
        self.walk_to_base(t, path)
    }

    /// The target, which must exist, opened as a regular file.
    fn open_file(&self, t: &Target, path: &str) -> Result<std::fs::File, ToolError> {
        if !t.exists() {
            return Err(not_found(path));
        }
        let (dir, name) = self.parent_of(t, path)?;
        let name = name.ok_or_else(|| is_a_directory(path))?;
        fsops::open_file(dir.as_fd(), &name).map_err(io_err(path))
    }
}

/// `[DIR]` or `[FILE]`, as the reference server prefixes entries.
fn prefix(kind: Kind) -> &'static str {
    if kind == Kind::Dir {
        "[DIR]"
    } else {
        "[FILE]"
    }
}

/// One entry of `directory_tree`.
#[derive(Serialize)]
struct TreeEntry {
    name: String,
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    children: Option<Vec<TreeEntry>>,
}

fn too_many() -> io::Error {
    io::Error::other(format!(
        "more than {MAX_WALK_ENTRIES} entries: narrow the path or exclude some"
    ))
}

fn too_deep() -> io::Error {
    io::Error::other(format!(
        "more than {MAX_WALK_DEPTH} levels deep: start lower in the tree"
    ))
}

fn tree(
    dir: BorrowedFd<'_>,
    rel: &Path,
    excludes: &[globset::GlobMatcher],
    visited: &mut usize,
) -> io::Result<Vec<TreeEntry>> {
    let mut out = Vec::new();
    for e in fsops::list(dir)? {
        *visited += 1;
        if *visited > MAX_WALK_ENTRIES {
            return Err(too_many());
        }
        let child = rel.join(&e.name);
        if excludes.iter().any(|g| g.is_match(&child)) {
            continue;
        }
        let children = if e.kind == Kind::Dir {
            if child.components().count() > MAX_WALK_DEPTH {
                return Err(too_deep());
            }
            let sub = fsops::open_dir(dir, &e.name)?;
            Some(tree(sub.as_fd(), &child, excludes, visited)?)
        } else {
            None
        };
        out.push(TreeEntry {
            name: e.name.to_string_lossy().into_owned(),
            kind: if e.kind == Kind::Dir {
                "directory"
            } else {
                "file"
            },
            children,
        });
    }
    Ok(out)
}

/// One `search_files` walk.
struct Search<'a> {
    root: PathBuf,
    matcher: &'a globset::GlobMatcher,
    excludes: &'a [globset::GlobMatcher],
}

impl Search<'_> {
    fn run(
        &self,
        dir: BorrowedFd<'_>,
        rel: &Path,
        found: &mut Vec<String>,
        visited: &mut usize,
    ) -> io::Result<()> {
        for e in fsops::list(dir)? {
            *visited += 1;
            if *visited > MAX_WALK_ENTRIES {
                return Err(too_many());
            }
            let child = rel.join(&e.name);
            if self.excludes.iter().any(|g| g.is_match(&child)) {
                continue;
            }
            if self.matcher.is_match(&child) {
                found.push(self.root.join(&child).display().to_string());
            }
            if e.kind == Kind::Dir {
                if child.components().count() > MAX_WALK_DEPTH {
                    return Err(too_deep());
                }
                let sub = fsops::open_dir(dir, &e.name)?;
                self.run(sub.as_fd(), &child, found, visited)?;
            }
        }
        Ok(())
    }
}

fn file_info(meta: &std::fs::Metadata) -> String {
    use std::os::unix::fs::PermissionsExt as _;
    let time = |t: io::Result<std::time::SystemTime>| {
        t.map_or_else(|_| "unknown".to_owned(), text::rfc3339)
    };
    [
        format!("size: {}", meta.len()),
        format!("created: {}", time(meta.created())),
        format!("modified: {}", time(meta.modified())),
        format!("accessed: {}", time(meta.accessed())),
        format!("isDirectory: {}", meta.is_dir()),
        format!("isFile: {}", meta.is_file()),
        format!("permissions: {:03o}", meta.permissions().mode() & 0o777),
    ]
    .join("\n")
}

/// The MIME type the reference server gives an extension.
fn mime_type(path: &Path) -> &'static str {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "bmp" => "image/bmp",
        "svg" => "image/svg+xml",
        "mp3" => "audio/mpeg",
        "wav" => "audio/wav",
        "ogg" => "audio/ogg",
        "flac" => "audio/flac",
        _ => "application/octet-stream",
    }
}

fn io_err(path: &str) -> impl FnOnce(io::Error) -> ToolError + '_ {
    move |e| {
        match e.raw_os_error() {
        Some(code) if code == rustix::io::Errno::LOOP.raw_os_error() => ToolError::new(format!(
            "{path}: a symbolic link is in the way (it was not followed)"
        )),
        Some(code) if code == rustix::io::Errno::NOTDIR.raw_os_error() => ToolError::new(format!(
            "{path}: not a directory (a symbolic link is in the way, or a file; neither is followed)"
        )),
        _ => ToolError::new(format!("{path}: {e}")),
    }
    }
}

fn not_found(path: &str) -> ToolError {
    ToolError::new(format!("{path}: No such file or directory"))
}

fn is_a_directory(path: &str) -> ToolError {
    ToolError::new(format!("{path}: is a directory"))
}

fn escape(path: &str) -> ToolError {
    ToolError::new(format!("Access denied - {path} is not inside its root"))
}

#[cfg(test)]
mod tests;
