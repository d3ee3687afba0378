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
//! use oxmcp_server::Server;
//! use oxmcp_toolbox::files::Files;
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
//!   from the root's directory handle (a cap-std [`Dir`](cap_std::fs::Dir))
//!   to the checked directory one component at a time, refusing a symlink
//!   at each (`openat(O_DIRECTORY | O_NOFOLLOW)` on Unix), and acts on names
//!   in that directory (open, create, rename, stat), never following a
//!   symlink. The checked path has no symlink left in it, so a directory
//!   swapped for a symlink between the check and the use makes the walk
//!   fail instead of leading outside: the check decides where, the handles
//!   make the use go exactly there. And cap-std resolves every name inside
//!   the handle it is given, on Linux, macOS and Windows alike: a name that
//!   would lead out of its directory fails even there.
//! - **Writes** (`write_file`, `edit_file`) create a new file under a random
//!   name in the checked directory exclusively (`O_CREAT | O_EXCL`: a name
//!   already there, a symlink included, fails), write and sync it, then
//!   rename it over the target. The final name is never opened for
//!   writing: a symlink planted there is replaced, not followed. An
//!   existing file keeps its permissions. `move_file` renames with
//!   `RENAME_NOREPLACE` on Linux, and checks the destination first
//!   elsewhere (an existing destination is an error, as in the reference).
//! - **Reads** open the file without following a symlink (and with
//!   `O_NONBLOCK` on Unix) and refuse anything but a regular file (a FIFO
//!   would block, a device is endless).
//! - **Limits.** Reads stop at [`FilesBuilder::max_read_bytes`] (a larger
//!   file is an error; `head` and `tail` read at most that much; the files
//!   of one `read_multiple_files` share it), writes at
//!   [`FilesBuilder::max_write_bytes`]. Both default to 10 MiB.
//! - **Read-only** (the default): `write_file`, `edit_file`,
//!   `create_directory` and `move_file` are not offered at all: [`Files`]
//!   implements [`ToolBox`](oxmcp_server::ToolBox) itself and leaves them out of its tools (and
//!   they refuse to run, should one be reached anyway).
//!
//! What this does not cover: a hard link inside a root to a file outside it
//! reads that file (no path leads outside; the inode is shared), and
//! another process that owns a root can always write into it. It builds on
//! Linux, macOS and Windows; it is tested on Linux.
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

mod builder;
mod calls;
mod confine;
mod fsops;
mod text;
mod walk;

use std::io;
use std::path::Path;
use std::sync::Arc;

use base64::Engine as _;
use oxmcp_server::types::ResourceContents;
use oxmcp_server::{tool, types::ContentBlock, Context, ToolError};
use serde::{Deserialize, Serialize};

pub use builder::{BuildError, Files, FilesBuilder};
use calls::Core;
use confine::file_uri;
use fsops::Kind;
use text::{file_info, mime_type};
use walk::{tree, Search};

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
    ) -> Result<ContentBlock, ToolError> {
        self.run(&ctx, move |core, scope| {
            let t = core.locate(scope, &path)?;
            let mut file = core.open_file(&t, &path)?;
            let bytes = fsops::read_all(&mut file, core.max_read).map_err(io_err(&path))?;
            let data = base64::engine::general_purpose::STANDARD.encode(bytes);
            let full = t.path();
            let mime = mime_type(&full);
            Ok(if mime.starts_with("image/") {
                ContentBlock::image(data, mime)
            } else if mime.starts_with("audio/") {
                ContentBlock::audio(data, mime)
            } else {
                ContentBlock::resource(ResourceContents::blob(file_uri(&full), mime, data))
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
            fsops::replace(&dir, &name, content.as_bytes()).map_err(io_err(&path))?;
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
                fsops::replace(&dir, &name, new.as_bytes()).map_err(io_err(&path))?;
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
            let entries = fsops::list(&dir).map_err(io_err(&path))?;
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
            let mut entries = fsops::list(&dir).map_err(io_err(&path))?;
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
            let tree = tree(&dir, Path::new(""), &excludes, &mut visited).map_err(io_err(&path))?;
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
            fsops::move_entry(&from_dir, &from_name, &to_dir, &to_name).map_err(|e| {
                ToolError::new(format!("Cannot move {source} to {destination}: {e}"))
            })?;
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
                .run(&dir, Path::new(""), &mut found, &mut visited)
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
            let meta = fsops::metadata(&dir, name.as_deref()).map_err(io_err(&path))?;
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

/// `[DIR]` or `[FILE]`, as the reference server prefixes entries.
fn prefix(kind: Kind) -> &'static str {
    if kind == Kind::Dir {
        "[DIR]"
    } else {
        "[FILE]"
    }
}

fn io_err(path: &str) -> impl FnOnce(io::Error) -> ToolError + '_ {
    move |e| {
        if symlink_refused(&e) {
            ToolError::new(format!(
                "{path}: a symbolic link is in the way (it was not followed)"
            ))
        } else if e.kind() == io::ErrorKind::NotADirectory {
            ToolError::new(format!(
                "{path}: not a directory (a symbolic link is in the way, or a file; neither is followed)"
            ))
        } else {
            ToolError::new(format!("{path}: {e}"))
        }
    }
}

/// Whether `e` is the refusal to follow a symbolic link: `ELOOP` from an
/// open with `O_NOFOLLOW` on Unix (std has no stable kind for it yet).
fn symlink_refused(e: &io::Error) -> bool {
    #[cfg(unix)]
    {
        e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error())
    }
    #[cfg(not(unix))]
    {
        // cap-std refuses a symlink it was told not to follow with a
        // permission error, which says nothing more precise.
        let _ = e;
        false
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

// The tests plant symlinks and set modes the Unix way; they run where the
// crate is built and tested (Linux).
#[cfg(all(test, unix))]
mod tests;
