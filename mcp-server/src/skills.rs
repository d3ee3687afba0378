//! Skills (SEP-2640, `io.modelcontextprotocol/skills`): a directory of
//! skills, each a folder with a `SKILL.md` (YAML front matter naming it and
//! saying what it is for, then instructions) and the files it uses, served
//! as `skill://<name>/<path>` resources, with the index the extension
//! defines (`skills/list`, `skills/get`: every file's SHA-256 digest and
//! size) and `resources/directory/read` over each skill's folders.
//!
//! The directory is read once, when the server is built: what is served is
//! what was checked (names, front matter, limits), and digests match the
//! bytes served. A symbolic link inside a skill's folder is refused (the
//! build fails naming it): a link could serve a file from outside the
//! folder. A link in the skills directory itself is not a skill folder and
//! is skipped.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use oxmcp_types::{JsonObject, Resource};
use serde_json::Value;

use crate::error::Error;
use crate::resource::ResourceEntry;

/// The skills extension's identifier.
pub(crate) const SKILLS: &str = "io.modelcontextprotocol/skills";
/// The MIME type of a directory in `resources/directory/read`.
pub(crate) const DIRECTORY: &str = "inode/directory";
/// The most files a skill may have, and their most bytes (SEP-2640's limits).
const MAX_FILES: usize = 512;
const MAX_BYTES: u64 = 16 * 1024 * 1024;

/// The skills a server serves.
#[derive(Debug)]
pub(crate) struct Skills {
    pub(crate) skills: Vec<Skill>,
}

/// One skill: its name (its folder's), its front matter, its files.
#[derive(Debug)]
pub(crate) struct Skill {
    pub(crate) name: String,
    pub(crate) frontmatter: JsonObject,
    /// `SKILL.md` first, then the others by path.
    pub(crate) files: Vec<SkillFile>,
}

/// One file of a skill.
#[derive(Debug)]
pub(crate) struct SkillFile {
    /// Its path inside the skill's folder, `/`-separated (`SKILL.md`, `scripts/run.py`).
    pub(crate) path: String,
    pub(crate) bytes: Arc<[u8]>,
    /// `sha256:` and 64 lowercase hex digits.
    pub(crate) digest: String,
}

impl Skill {
    /// The URI of the skill's `SKILL.md`, which names the skill.
    pub(crate) fn uri(&self) -> String {
        format!("skill://{}/SKILL.md", self.name)
    }

    fn file_uri(&self, file: &SkillFile) -> String {
        format!("skill://{}/{}", self.name, file.path)
    }

    /// The skill's entry in `skills/list` and `skills/get`.
    pub(crate) fn entry(&self) -> Value {
        let resources: Vec<Value> = self
            .files
            .iter()
            .map(|f| {
                serde_json::json!({
                    "uri": self.file_uri(f),
                    "digest": f.digest,
                    "size": f.bytes.len(),
                })
            })
            .collect();
        serde_json::json!({
            "uri": self.uri(),
            "frontmatter": self.frontmatter,
            "resources": resources,
        })
    }
}

/// The Agent Skills naming rule: 1 to 64 of `a-z`, `0-9` and `-`, with no
/// leading, trailing or doubled `-`.
fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

/// Why a skill's folder cannot be served: the message names the path,
/// relative to the skill's folder.
const LINK: &str = "is a symbolic link: a skill's files must be regular files inside its folder";

/// Every regular file under `dir`, as paths relative to `root`. A symbolic
/// link is refused, not followed: it could serve clients a file from
/// anywhere on the machine, and a skill's digests are of its own files.
/// Other kinds (sockets, pipes) are skipped. `Err` says what failed and
/// where (relative to `root`).
fn files_under(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let rel = |path: &Path| {
        path.strip_prefix(root)
            .unwrap_or(path)
            .display()
            .to_string()
    };
    let failed = |path: &Path, e: std::io::Error| format!("{}: {e}", rel(path));
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .and_then(Iterator::collect::<Result<_, _>>)
        .map_err(|e| failed(dir, e))?;
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let path = entry.path();
        // `file_type` does not follow links.
        let kind = entry.file_type().map_err(|e| failed(&path, e))?;
        if kind.is_symlink() {
            return Err(format!("{} {LINK}", rel(&path)));
        } else if kind.is_dir() {
            files_under(root, &path, out)?;
        } else if kind.is_file() {
            if let Ok(rel) = path.strip_prefix(root) {
                out.push(rel.to_path_buf());
            }
        }
    }
    Ok(())
}

impl Skills {
    /// Reads every skill under `dir`: each folder holding a `SKILL.md`.
    pub(crate) fn load(dir: &Path) -> Result<Skills, Error> {
        let fail = |what: String| Error::Config(format!("skills in {}: {what}", dir.display()));
        let mut folders: Vec<_> = std::fs::read_dir(dir)
            .map_err(|e| fail(format!("cannot read the directory: {e}")))?
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .collect();
        folders.sort_by_key(std::fs::DirEntry::file_name);
        let mut skills = Vec::new();
        for folder in folders {
            let root = folder.path();
            let name = folder.file_name().to_string_lossy().into_owned();
            // The manifest as it is, not what a link points to.
            match std::fs::symlink_metadata(root.join("SKILL.md")) {
                Ok(m) if m.file_type().is_symlink() => {
                    return Err(fail(format!("{name}/SKILL.md {LINK}")));
                }
                Ok(m) if m.is_file() => {}
                _ => continue,
            }
            if !valid_name(&name) {
                return Err(fail(format!(
                    "`{name}` is not a skill name: 1-64 lowercase letters, digits and single hyphens, not at either end"
                )));
            }
            let mut paths = Vec::new();
            files_under(&root, &root, &mut paths).map_err(|e| fail(format!("{name}/{e}")))?;
            if paths.len() > MAX_FILES {
                return Err(fail(format!("{name} has more than {MAX_FILES} files")));
            }
            let mut files = Vec::new();
            let mut total = 0u64;
            for rel in paths {
                let bytes = std::fs::read(root.join(&rel))
                    .map_err(|e| fail(format!("{name}/{}: {e}", rel.display())))?;
                total += bytes.len() as u64;
                let path = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/");
                files.push(SkillFile {
                    digest: oxmcp_wire::skills::digest(&bytes),
                    bytes: Arc::from(bytes),
                    path,
                });
            }
            if total > MAX_BYTES {
                return Err(fail(format!("{name} is larger than 16 MiB")));
            }
            files.sort_by_key(|f| (f.path != "SKILL.md", f.path.clone()));
            // Checked above, but read from what was listed: a folder changed
            // meanwhile is an error, not a panic nor another file's text.
            let Some(manifest) = files.first().filter(|f| f.path == "SKILL.md") else {
                return Err(fail(format!("{name}/SKILL.md is no longer a regular file")));
            };
            let text = std::str::from_utf8(&manifest.bytes)
                .map_err(|_| fail(format!("{name}/SKILL.md is not UTF-8")))?;
            let frontmatter = oxmcp_wire::skills::frontmatter(text)
                .map_err(|e| fail(format!("{name}/SKILL.md: {e}")))?;
            for field in ["name", "description"] {
                if frontmatter
                    .get(field)
                    .and_then(Value::as_str)
                    .is_none_or(str::is_empty)
                {
                    return Err(fail(format!(
                        "{name}/SKILL.md: its front matter has no `{field}`"
                    )));
                }
            }
            if frontmatter.get("name").and_then(Value::as_str) != Some(name.as_str()) {
                return Err(fail(format!(
                    "{name}/SKILL.md: its front matter names another skill; the folder's name must be the skill's"
                )));
            }
            skills.push(Skill {
                name,
                frontmatter,
                files,
            });
        }
        Ok(Skills { skills })
    }

    /// Every file of every skill, as a resource to read.
    pub(crate) fn resources(self: &Arc<Self>) -> Result<Vec<ResourceEntry>, Error> {
        let mut entries = Vec::new();
        for (s, skill) in self.skills.iter().enumerate() {
            for (f, file) in skill.files.iter().enumerate() {
                let is_manifest = file.path == "SKILL.md";
                let text = |key: &str| {
                    skill
                        .frontmatter
                        .get(key)
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                };
                let def = Resource {
                    uri: skill.file_uri(file),
                    name: if is_manifest {
                        skill.name.clone()
                    } else {
                        format!("{}/{}", skill.name, file.path)
                    },
                    title: None,
                    description: if is_manifest {
                        text("description")
                    } else {
                        None
                    },
                    mime_type: Some(mime_type(&file.path).to_owned()),
                    size: Some(file.bytes.len() as u64),
                    icons: None,
                    annotations: None,
                    meta: None,
                };
                let skills = Arc::clone(self);
                entries.push(ResourceEntry::dynamic(def, move |_reading, _ctx| {
                    let bytes = Arc::clone(&skills.skills[s].files[f].bytes);
                    async move {
                        match std::str::from_utf8(&bytes) {
                            Ok(text) => FileContent::Text(text.to_owned()),
                            Err(_) => FileContent::Binary(bytes.to_vec()),
                        }
                    }
                })?);
            }
        }
        Ok(entries)
    }

    /// The skill whose `SKILL.md` is at `uri`.
    pub(crate) fn find(&self, uri: &str) -> Option<&Skill> {
        self.skills.iter().find(|s| s.uri() == uri)
    }

    /// The direct children of the directory at `uri` (`skill://<name>` or a
    /// folder inside it), or `None` when `uri` names no directory.
    pub(crate) fn directory(&self, uri: &str) -> Option<Vec<Resource>> {
        let rest = uri.strip_prefix("skill://")?.trim_end_matches('/');
        let (name, inside) = rest.split_once('/').unwrap_or((rest, ""));
        let skill = self.skills.iter().find(|s| s.name == name)?;
        let prefix = if inside.is_empty() {
            String::new()
        } else {
            format!("{inside}/")
        };
        let mut children: Vec<Resource> = Vec::new();
        let mut folders: Vec<String> = Vec::new();
        let mut any = false;
        for file in &skill.files {
            let Some(below) = file.path.strip_prefix(&prefix) else {
                continue;
            };
            any = true;
            match below.split_once('/') {
                Some((folder, _)) => {
                    if !folders.iter().any(|f| f == folder) {
                        folders.push(folder.to_owned());
                    }
                }
                None => children.push(Resource {
                    uri: skill.file_uri(file),
                    name: below.to_owned(),
                    title: None,
                    description: None,
                    mime_type: Some(mime_type(&file.path).to_owned()),
                    size: Some(file.bytes.len() as u64),
                    icons: None,
                    annotations: None,
                    meta: None,
                }),
            }
        }
        if !any {
            return None;
        }
        for folder in folders {
            children.push(Resource {
                uri: format!("skill://{}/{prefix}{folder}", skill.name),
                name: folder,
                title: None,
                description: None,
                mime_type: Some(DIRECTORY.to_owned()),
                size: None,
                icons: None,
                annotations: None,
                meta: None,
            });
        }
        Some(children)
    }
}

/// A skill file's content as `resources/read` returns it.
enum FileContent {
    Text(String),
    Binary(Vec<u8>),
}

impl crate::resource::IntoReadResult for FileContent {
    fn into_read_result(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<oxmcp_types::ReadResourceResult, crate::RequestError> {
        match self {
            FileContent::Text(text) => text.into_read_result(uri, mime_type),
            FileContent::Binary(bytes) => bytes.into_read_result(uri, mime_type),
        }
    }
}

/// A MIME type from a file name's extension.
fn mime_type(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, ext)| ext) {
        Some("md") => "text/markdown",
        Some("txt") => "text/plain",
        Some("py") => "text/x-python",
        Some("sh") => "text/x-shellscript",
        Some("json") => "application/json",
        Some("yaml" | "yml") => "application/yaml",
        Some("html") => "text/html",
        Some("csv") => "text/csv",
        Some("png") => "image/png",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_rules() {
        for good in ["pdf", "pdf-summary", "a1-b2"] {
            assert!(valid_name(good), "{good}");
        }
        for bad in [
            "",
            "-pdf",
            "pdf-",
            "pd--f",
            "PDF",
            "pdf_summary",
            &"a".repeat(65),
        ] {
            assert!(!valid_name(bad), "{bad}");
        }
    }
}
