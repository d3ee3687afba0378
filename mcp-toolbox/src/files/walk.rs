//! The walks of `directory_tree` and `search_files`: bounded in entries and
//! depth, through directory handles, never following a symbolic link.

use std::io;
use std::path::{Path, PathBuf};

use cap_std::fs::Dir;
use serde::Serialize;

use super::fsops::{self, Kind};
use super::{MAX_WALK_DEPTH, MAX_WALK_ENTRIES};

/// One entry of `directory_tree`.
#[derive(Serialize)]
pub(super) struct TreeEntry {
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

pub(super) fn tree(
    dir: &Dir,
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
            Some(tree(&sub, &child, excludes, visited)?)
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
pub(super) struct Search<'a> {
    pub(super) root: PathBuf,
    pub(super) matcher: &'a globset::GlobMatcher,
    pub(super) excludes: &'a [globset::GlobMatcher],
}

impl Search<'_> {
    pub(super) fn run(
        &self,
        dir: &Dir,
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
                self.run(&sub, &child, found, visited)?;
            }
        }
        Ok(())
    }
}
