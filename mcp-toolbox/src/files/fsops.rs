//! File operations relative to directory descriptors, never following a symlink.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::hash::{BuildHasher, Hasher};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use rustix::fs::{AtFlags, FileType, Mode, OFlags};

/// Flags that open a directory for walking: no symlink followed, no
/// descriptor leaked to children.
fn dir_flags() -> OFlags {
    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC
}

/// Opens the directory at `rel` (plain components) below `root`, one
/// component at a time, refusing symlinks: the walk sees exactly the
/// directories that were checked, or fails.
pub(crate) fn walk(root: BorrowedFd<'_>, rel: &Path) -> io::Result<OwnedFd> {
    let mut dir = rustix::fs::openat(root, ".", dir_flags(), Mode::empty())?;
    for c in rel.components() {
        let std::path::Component::Normal(name) = c else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "unexpected path component",
            ));
        };
        dir = open_dir(dir.as_fd(), name)?;
    }
    Ok(dir)
}

/// Opens the directory `name` in `dir`, refusing a symlink.
pub(crate) fn open_dir(dir: BorrowedFd<'_>, name: &OsStr) -> io::Result<OwnedFd> {
    Ok(rustix::fs::openat(dir, name, dir_flags(), Mode::empty())?)
}

/// Opens the regular file `name` in `dir` for reading, refusing a symlink,
/// and anything but a regular file (a FIFO would block, a device is no file).
pub(crate) fn open_file(dir: BorrowedFd<'_>, name: &OsStr) -> io::Result<File> {
    let fd = rustix::fs::openat(
        dir,
        name,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK,
        Mode::empty(),
    )?;
    let st = rustix::fs::fstat(&fd)?;
    match FileType::from_raw_mode(st.st_mode) {
        FileType::RegularFile => Ok(File::from(fd)),
        FileType::Directory => Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory, not a file",
        )),
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "is not a regular file",
        )),
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
/// replaced, not followed. An existing file's permission bits are kept.
pub(crate) fn replace(dir: BorrowedFd<'_>, name: &OsStr, bytes: &[u8]) -> io::Result<()> {
    let keep = match rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) => match FileType::from_raw_mode(st.st_mode) {
            FileType::Directory => {
                return Err(io::Error::new(
                    io::ErrorKind::IsADirectory,
                    "is a directory, not a file",
                ))
            }
            FileType::RegularFile => Some(Mode::from_raw_mode(st.st_mode & 0o7777)),
            _ => None,
        },
        Err(rustix::io::Errno::NOENT) => None,
        Err(e) => return Err(e.into()),
    };
    let mut attempts = 0;
    let (tmp, fd) = loop {
        let tmp = temp_name();
        match rustix::fs::openat(
            dir,
            &tmp,
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o666),
        ) {
            Ok(fd) => break (tmp, fd),
            Err(rustix::io::Errno::EXIST) if attempts < 8 => attempts += 1,
            Err(e) => return Err(e.into()),
        }
    };
    let written = (|| {
        if let Some(mode) = keep {
            rustix::fs::fchmod(&fd, mode)?;
        }
        let mut file = File::from(fd);
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        rustix::fs::renameat(dir, &tmp, dir, name)?;
        Ok(())
    })();
    if written.is_err() {
        let _ = rustix::fs::unlinkat(dir, &tmp, AtFlags::empty());
    }
    written
}

/// Creates the directories `names` below `dir`, one inside the other; one
/// that exists is entered (never through a symlink).
pub(crate) fn make_dirs(dir: OwnedFd, names: &[OsString]) -> io::Result<OwnedFd> {
    let mut dir = dir;
    for name in names {
        match rustix::fs::mkdirat(&dir, name.as_os_str(), Mode::from_raw_mode(0o777)) {
            Ok(()) | Err(rustix::io::Errno::EXIST) => {}
            Err(e) => return Err(e.into()),
        }
        dir = open_dir(dir.as_fd(), name)?;
    }
    Ok(dir)
}

/// Moves `from` in `from_dir` to `to` in `to_dir`, failing when `to` exists.
pub(crate) fn move_entry(
    from_dir: BorrowedFd<'_>,
    from: &OsStr,
    to_dir: BorrowedFd<'_>,
    to: &OsStr,
) -> io::Result<()> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        rustix::fs::renameat_with(
            from_dir,
            from,
            to_dir,
            to,
            rustix::fs::RenameFlags::NOREPLACE,
        )?;
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        // No atomic no-replace rename here: check, then rename.
        match rustix::fs::statat(to_dir, to, AtFlags::SYMLINK_NOFOLLOW) {
            Err(rustix::io::Errno::NOENT) => {}
            Ok(_) => return Err(rustix::io::Errno::EXIST.into()),
            Err(e) => return Err(e.into()),
        }
        rustix::fs::renameat(from_dir, from, to_dir, to)?;
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
pub(crate) fn list(dir: BorrowedFd<'_>) -> io::Result<Vec<Entry>> {
    let mut out = Vec::new();
    for entry in rustix::fs::Dir::read_from(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_bytes();
        if name == b"." || name == b".." {
            continue;
        }
        let name = OsStr::from_bytes(name).to_owned();
        let (kind, size) =
            match rustix::fs::statat(dir, name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW) {
                Ok(st) => (
                    kind_of(FileType::from_raw_mode(st.st_mode)),
                    u64::try_from(st.st_size).unwrap_or(0),
                ),
                // Gone since it was listed.
                Err(rustix::io::Errno::NOENT) => continue,
                Err(e) => return Err(e.into()),
            };
        out.push(Entry { name, kind, size });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

fn kind_of(t: FileType) -> Kind {
    match t {
        FileType::RegularFile => Kind::File,
        FileType::Directory => Kind::Dir,
        FileType::Symlink => Kind::Symlink,
        _ => Kind::Other,
    }
}

/// The metadata of `name` in `dir` (of `dir` itself when `None`), not
/// following a symlink.
pub(crate) fn metadata(dir: BorrowedFd<'_>, name: Option<&OsStr>) -> io::Result<std::fs::Metadata> {
    let fd = match name {
        None => rustix::fs::openat(dir, ".", dir_flags(), Mode::empty())?,
        Some(name) => rustix::fs::openat(dir, name, meta_flags(), Mode::empty())?,
    };
    File::from(fd).metadata()
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn meta_flags() -> OFlags {
    // O_PATH: no read permission needed, nothing opened but the name; with
    // O_NOFOLLOW it designates a symlink itself.
    OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn meta_flags() -> OFlags {
    OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK
}
