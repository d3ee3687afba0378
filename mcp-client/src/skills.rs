//! Skills (SEP-2640) from the client side: the index a server offers
//! (`skills/list`), and a skill's files fetched when they are needed, never
//! before, each checked against the index before it is used: its size, its
//! SHA-256 digest, and for `SKILL.md` its front matter, field by field.

use oxmcp_types::call::CallError;
use oxmcp_types::{ErrorObject, JsonObject, ResourceContents};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::client::Client;

/// One skill as a server's index lists it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SkillEntry {
    /// The URI of its `SKILL.md`.
    pub uri: String,
    /// Its front matter, as the server read it.
    pub frontmatter: JsonObject,
    /// Its files, each with the digest and size to check (empty when the
    /// server publishes no manifest: `"dynamic"`).
    #[serde(deserialize_with = "files")]
    pub resources: Vec<SkillFileEntry>,
}

/// One file of a skill as the index lists it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct SkillFileEntry {
    /// Its resource URI.
    pub uri: String,
    /// `sha256:` and 64 lowercase hex digits.
    pub digest: String,
    /// Its length in bytes.
    pub size: u64,
}

/// `resources`: an array of files, or `"dynamic"` (no manifest).
fn files<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<SkillFileEntry>, D::Error> {
    match Value::deserialize(d)? {
        Value::String(s) if s == "dynamic" => Ok(Vec::new()),
        listed @ Value::Array(_) => {
            serde_json::from_value(listed).map_err(serde::de::Error::custom)
        }
        _ => Err(serde::de::Error::custom(
            "`resources` is neither a list of files nor \"dynamic\"",
        )),
    }
}

/// A skill loaded for use: its `SKILL.md`, checked against the index.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedSkill {
    /// The index's entry.
    pub entry: SkillEntry,
    /// `SKILL.md`, as fetched and checked.
    pub manifest: String,
}

impl Client {
    /// The skills the server offers (`skills/list`, every page). Nothing
    /// of a skill is fetched until it is [loaded](Self::load_skill).
    pub async fn list_skills(&self) -> Result<Vec<SkillEntry>, CallError> {
        let mut skills = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let params = match &cursor {
                Some(c) => json!({ "cursor": c }),
                None => json!({}),
            };
            let page = self.request("skills/list", params).await?;
            let entries: Vec<SkillEntry> = page
                .get("skills")
                .cloned()
                .map(serde_json::from_value)
                .transpose()
                .map_err(|e| malformed(&format!("a skills/list result: {e}")))?
                .unwrap_or_default();
            skills.extend(entries);
            match page.get("nextCursor").and_then(Value::as_str) {
                Some(next) if cursor.as_deref() != Some(next) => cursor = Some(next.to_owned()),
                _ => return Ok(skills),
            }
        }
    }

    /// Loads a skill for use: fetches its `SKILL.md` and checks its size
    /// and digest against the index, then that its front matter is the
    /// index's, field by field. Content that fails a check is not used: the
    /// error says which check.
    pub async fn load_skill(&self, entry: &SkillEntry) -> Result<LoadedSkill, CallError> {
        let bytes = self.skill_file(entry, &entry.uri).await?;
        let manifest = String::from_utf8(bytes)
            .map_err(|_| refused(&entry.uri, "its SKILL.md is not UTF-8"))?;
        let read = oxmcp_wire::skills::frontmatter(&manifest)
            .map_err(|e| refused(&entry.uri, &format!("its SKILL.md: {e}")))?;
        if read != entry.frontmatter {
            return Err(refused(
                &entry.uri,
                "its SKILL.md's front matter is not the one the index lists",
            ));
        }
        Ok(LoadedSkill {
            entry: entry.clone(),
            manifest,
        })
    }

    /// Fetches one file a skill's index lists (when the skill needs it),
    /// checked against the index's size and digest.
    pub async fn skill_file(&self, entry: &SkillEntry, uri: &str) -> Result<Vec<u8>, CallError> {
        let listed = entry.resources.iter().find(|f| f.uri == uri);
        let read = self.read_resource(uri).await?;
        let bytes = match read.contents.into_iter().next() {
            Some(ResourceContents::Text(t)) => t.text.into_bytes(),
            Some(ResourceContents::Blob(b)) => oxmcp_wire::header::base64::decode(&b.blob)
                .ok_or_else(|| malformed("a blob that is not base64"))?,
            _ => return Err(malformed("no contents")),
        };
        let Some(listed) = listed else {
            // A server with no manifest ("dynamic"): nothing to check against.
            return Ok(bytes);
        };
        if bytes.len() as u64 != listed.size {
            return Err(refused(
                uri,
                &format!(
                    "{} bytes, where the index lists {}",
                    bytes.len(),
                    listed.size
                ),
            ));
        }
        if oxmcp_wire::skills::digest(&bytes) != listed.digest {
            return Err(refused(
                uri,
                "its content does not match the index's digest",
            ));
        }
        Ok(bytes)
    }
}

fn malformed(what: &str) -> CallError {
    CallError::Protocol(ErrorObject::invalid_params(format!(
        "the server answered with {what}"
    )))
}

fn refused(uri: &str, why: &str) -> CallError {
    CallError::Protocol(ErrorObject::invalid_params(format!(
        "skill file {uri} refused: {why}"
    )))
}
