//! What every call goes through: the roots and limits it shares with the
//! others, its scope (the roots narrowed to the client's), and the checked
//! opening of the directories and files it names.

use std::ffi::OsString;
use std::os::fd::{AsFd as _, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use oxmcp_server::{Context, ToolError};

use super::confine::{self, file_uri_path, locate, Root, Scope, Target};
use super::fsops;
use super::{escape, io_err, is_a_directory, not_found, FileTools};

/// What every call shares: the roots and the limits.
#[derive(Debug)]
pub(super) struct Core {
    pub(super) roots: Vec<Root>,
    pub(super) read_only: bool,
    pub(super) max_read: u64,
    pub(super) max_write: u64,
    pub(super) client_roots: bool,
}

impl FileTools {
    /// Runs `op` on a blocking thread with the call's scope: the allowed
    /// roots, narrowed to the client's when it offers them.
    pub(super) async fn run<T: Send + 'static>(
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
    pub(super) async fn client_roots(
        &self,
        ctx: &Context,
    ) -> Result<Option<Vec<PathBuf>>, ToolError> {
        if !self.core.client_roots || ctx.client_capabilities().roots.is_none() {
            return Ok(None);
        }
        // Roots are deprecated since 2026-07-28; `client_roots(false)` stops
        // asking, and this keeps serving the clients that offer them.
        #[allow(deprecated)]
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
    pub(super) fn writable(&self) -> Result<(), ToolError> {
        if self.read_only {
            Err(ToolError::new("This toolbox is read-only"))
        } else {
            Ok(())
        }
    }

    pub(super) fn write_limit(&self, len: usize) -> Result<(), ToolError> {
        if len as u64 > self.max_write {
            Err(ToolError::new(format!(
                "The content has {len} bytes, over the write limit of {} bytes",
                self.max_write
            )))
        } else {
            Ok(())
        }
    }

    pub(super) fn locate(&self, scope: &Scope, path: &str) -> Result<Target, ToolError> {
        locate(&self.roots, scope, path)
    }

    /// As [`locate`](Self::locate), but a symlink as the last component is
    /// the entry itself, not what it points to (what `move_file` moves).
    pub(super) fn locate_entry(&self, scope: &Scope, path: &str) -> Result<Target, ToolError> {
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

    pub(super) fn absolute(scope: &Scope, p: &Path) -> PathBuf {
        match scope.dirs.first() {
            Some(first) if p.is_relative() => first.join(p),
            _ => p.to_path_buf(),
        }
    }

    /// The directory holding the target, opened by walking from its root,
    /// and the target's name in it (`None` for a root itself).
    pub(super) fn parent_of(
        &self,
        t: &Target,
        path: &str,
    ) -> Result<(OwnedFd, Option<OsString>), ToolError> {
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
    pub(super) fn walk_to_base(&self, t: &Target, path: &str) -> Result<OwnedFd, ToolError> {
        let root = &self.roots[t.root];
        let rel = t.base.strip_prefix(&root.path).map_err(|_| escape(path))?;
        fsops::walk(root.fd.as_fd(), rel).map_err(io_err(path))
    }

    /// The target, which must exist, opened as a directory.
    pub(super) fn open_dir(&self, t: &Target, path: &str) -> Result<OwnedFd, ToolError> {
        if !t.exists() {
            return Err(not_found(path));
        }
        self.walk_to_base(t, path)
    }

    /// The target, which must exist, opened as a regular file.
    pub(super) fn open_file(&self, t: &Target, path: &str) -> Result<std::fs::File, ToolError> {
        if !t.exists() {
            return Err(not_found(path));
        }
        let (dir, name) = self.parent_of(t, path)?;
        let name = name.ok_or_else(|| is_a_directory(path))?;
        fsops::open_file(dir.as_fd(), &name).map_err(io_err(path))
    }
}
