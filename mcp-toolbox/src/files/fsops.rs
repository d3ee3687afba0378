//! File operations relative to directory handles, never following a symlink.
//!
//! The handles are cap-std's [`Dir`]s: on Linux, macOS and Windows an open
//! through one resolves inside it or fails, so even a path this module got
//! wrong could not lead out of its root. The walks below still name one
//! component at a time and refuse every symlink: the check decided where,
//! the handles make the use go exactly there.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::hash::{BuildHasher, Hasher};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;

use cap_fs_ext::{DirExt as _, FollowSymlinks, OpenOptionsFollowExt as _};
use cap_std::fs::{Dir, Metadata, OpenOptions};

/// Opens the directory at `rel` (plain components) below `root`, one
/// component at a time, refusing symlinks: the walk sees exactly the
/// directories that were checked, or fails.
pub(crate) fn walk(root: &Dir, rel: &Path) -> io::Result<Dir> {
    let mut dir = root.try_clone()?;
    for c in rel.components() {
        let std::path::Component::Normal(name) = c else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "unexpected path component",
            ));
        };
        dir = open_dir(&dir, name)?;
    }
    Ok(dir)
}

/// Opens the directory `name` in `dir`, refusing a symlink.
pub(crate) fn open_dir(dir: &Dir, name: &OsStr) -> io::Result<Dir> {
    dir.open_dir_nofollow(name)
}

/// Opens the regular file `name` in `dir` for reading, refusing a symlink,
/// and anything but a regular file (a FIFO would block, a device is no file).
pub(crate) fn open_file(dir: &Dir, name: &OsStr) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true).follow(FollowSymlinks::No);
    // A FIFO's open would wait for a writer: open without waiting, then
    // refuse it below. Windows has no FIFO in the file system.
    #[cfg(unix)]
    {
        use cap_std::fs::OpenOptionsExt as _;
        // The flag's bits (0o4000 or 0x4) fit an `i32`, as `open` takes them.
        #[allow(clippy::cast_possible_wrap)]
        options.custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32);
    }
    let file = dir.open_with(name, &options)?.into_std();
    let meta = file.metadata()?;
    if meta.is_file() {
        Ok(file)
    } else if meta.is_dir() {
        Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory, not a file",
        ))
    } else {
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "is not a regular file",
        ))
    }
}

/// Reads at most `limit` bytes of an open file, failing when it holds more.
pub(crate) fn read_all(file: &mut File, limit: u64) -> io::Result<Vec<u8>> {
    let size = file.metadata()?.len();
    if size > limit {
        return Err(too_large(size, limit));
    }
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(bytes.len() as u64, limit));
    }
    Ok(bytes)
}

/// The first `lines` lines, reading no more than `limit` bytes.
pub(crate) fn read_head(file: &mut File, lines: u64, limit: u64) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut chunk = [0u8; 8192];
    let mut seen = 0u64;
    let mut reader = file.take(limit);
    loop {
        let n = reader.read(&mut chunk)?;
        if n == 0 {
            return Ok(out);
        }
        for (i, &b) in chunk[..n].iter().enumerate() {
            if b == b'\n' {
                seen += 1;
                if seen >= lines {
                    out.extend_from_slice(&chunk[..i]);
                    return Ok(out);
                }
            }
        }
        out.extend_from_slice(&chunk[..n]);
    }
}

/// The last `limit` bytes at most (from the start of a line when cut).
pub(crate) fn read_tail_window(file: &mut File, limit: u64) -> io::Result<Vec<u8>> {
    let size = file.metadata()?.len();
    let start = size.saturating_sub(limit);
    file.seek(SeekFrom::Start(start))?;
    let mut bytes = Vec::new();
    file.take(limit).read_to_end(&mut bytes)?;
    if start > 0 {
        // The first line was cut: drop it.
        let cut = bytes
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |i| i + 1);
        bytes.drain(..cut);
    }
    Ok(bytes)
}

fn too_large(size: u64, limit: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::FileTooLarge,
        format!("the file has {size} bytes, over the limit of {limit} bytes"),
    )
}

/// A temporary name for a file in the making: unpredictable enough not to
/// collide; exclusive creation makes a planted name fail, never followed.
fn temp_name() -> OsString {
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.write_u32(std::process::id());
    OsString::from(format!(".mcp-write-{:016x}.tmp", h.finish()))
}

/// Replaces (or creates) `name` in `dir` with `bytes`: a new file created
/// exclusively under a random name in `dir`, written, synced, then renamed
/// over `name`. The final name is never opened, so a symlink there is
/// replaced, not followed. An existing file's permissions are kept.
pub(crate) fn replace(dir: &Dir, name: &OsStr, bytes: &[u8]) -> io::Result<()> {
    let keep = match dir.symlink_metadata(name) {
        Ok(meta) if meta.is_dir() => {
            return Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                "is a directory, not a file",
            ))
        }
        Ok(meta) if meta.is_file() => Some(meta.permissions()),
        Ok(_) => None,
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    let mut attempts = 0;
    let (tmp, file) = loop {
        let tmp = temp_name();
        // `create_new` is O_CREAT | O_EXCL: it fails on any existing name,
        // a symlink included, which is never followed.
        match dir.open_with(&tmp, OpenOptions::new().write(true).create_new(true)) {
            Ok(file) => break (tmp, file),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempts < 8 => attempts += 1,
            Err(e) => return Err(e),
        }
    };
    let written = (|| {
        if let Some(permissions) = keep {
            file.set_permissions(permissions)?;
        }
        let mut file = file.into_std();
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        dir.rename(&tmp, dir, name)
    })();
    if written.is_err() {
        let _ = dir.remove_file(&tmp);
    }
    written
}

/// Creates the directories `names` below `dir`, one inside the other; one
/// that exists is entered (never through a symlink).
pub(crate) fn make_dirs(dir: Dir, names: &[OsString]) -> io::Result<Dir> {
    let mut dir = dir;
    for name in names {
        match dir.create_dir(name) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
        dir = open_dir(&dir, name)?;
    }
    Ok(dir)
}

/// Moves `from` in `from_dir` to `to` in `to_dir`, failing when `to` exists.
pub(crate) fn move_entry(from_dir: &Dir, from: &OsStr, to_dir: &Dir, to: &OsStr) -> io::Result<()> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        // One system call: an existing destination is refused atomically.
        use std::os::fd::AsFd as _;
        rustix::fs::renameat_with(
            from_dir.as_fd(),
            from,
            to_dir.as_fd(),
            to,
            rustix::fs::RenameFlags::NOREPLACE,
        )?;
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        // No atomic no-replace rename here: check, then rename.
        match to_dir.symlink_metadata(to) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Ok(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    "the destination exists",
                ))
            }
            Err(e) => return Err(e),
        }
        from_dir.rename(from, to_dir, to)?;
    }
    Ok(())
}

/// What a directory entry is, as listings show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    File,
    Dir,
    Symlink,
    Other,
}

/// One entry of a directory (its type and size from `lstat`: a symlink is
/// not followed).
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub(crate) name: OsString,
    pub(crate) kind: Kind,
    pub(crate) size: u64,
}

/// The entries of the open directory `dir`, sorted by name.
pub(crate) fn list(dir: &Dir) -> io::Result<Vec<Entry>> {
    let mut out = Vec::new();
    for entry in dir.entries()? {
        let name = entry?.file_name();
        if name == "." || name == ".." {
            continue;
        }
        let (kind, size) = match dir.symlink_metadata(&name) {
            Ok(meta) => (kind_of(&meta), meta.len()),
            // Gone since it was listed.
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        out.push(Entry { name, kind, size });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

fn kind_of(meta: &Metadata) -> Kind {
    let t = meta.file_type();
    if t.is_file() {
        Kind::File
    } else if t.is_dir() {
        Kind::Dir
    } else if t.is_symlink() {
        Kind::Symlink
    } else {
        Kind::Other
    }
}

/// The metadata of `name` in `dir` (of `dir` itself when `None`), not
/// following a symlink; no read permission on it is needed.
pub(crate) fn metadata(dir: &Dir, name: Option<&OsStr>) -> io::Result<Metadata> {
    match name {
        None => dir.dir_metadata(),
        Some(name) => dir.symlink_metadata(name),
    }
}
