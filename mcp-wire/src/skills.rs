//! Skills (SEP-2640), what server and client share: a `SKILL.md`'s front
//! matter as JSON, and the digest a skill's index gives each file.

use oxmcp_types::JsonObject;
use serde_json::Value;

/// The front matter of a `SKILL.md`: the YAML between its leading `---`
/// lines, as a JSON object.
pub fn frontmatter(text: &str) -> Result<JsonObject, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or("it does not begin with a `---` line of YAML front matter")?;
    let end = rest
        .find("\n---")
        .ok_or("its front matter has no closing `---` line")?;
    let yaml = &rest[..end];
    let value: Value =
        serde_yaml_ng::from_str(yaml).map_err(|e| format!("its front matter is not YAML: {e}"))?;
    match value {
        Value::Object(map) => Ok(map),
        _ => Err("its front matter is not a mapping".into()),
    }
}

/// `sha256:` and the 64 lowercase hex digits of `bytes`' SHA-256.
pub fn digest(bytes: &[u8]) -> String {
    let digest = <sha2::Sha256 as sha2::Digest>::digest(bytes);
    let mut out = String::with_capacity(71);
    out.push_str("sha256:");
    for b in digest {
        use std::fmt::Write as _;
        let _ = write!(out, "{b:02x}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_and_digests() {
        let fm = frontmatter(
            "---\nname: pdf\ndescription: Reads PDFs\nmetadata:\n  version: 2\n---\n# PDF\n",
        )
        .unwrap();
        assert_eq!(fm["name"], "pdf");
        assert_eq!(fm["metadata"]["version"], 2);
        assert!(frontmatter("# no front matter").is_err());
        assert!(frontmatter("---\nname: [unclosed\n---\n").is_err());
        assert_eq!(digest(b"").len(), 71);
        assert_eq!(
            digest(b"abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
