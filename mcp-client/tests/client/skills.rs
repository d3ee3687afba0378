//! Skills (SEP-2640) from the client side, against our server serving the
//! example skills (examples/skills) in the same process: the index is read,
//! a skill is loaded and its files fetched on demand, each checked; content
//! that does not match the index (size, digest, front matter) is refused.
#![cfg(feature = "skills")]

use crate::support;

use oxmcp_client::{Client, Era};
use oxmcp_server::Server;

async fn connect(era: Era) -> Client {
    let skills = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/skills");
    let server = Server::builder("skills", "1").skills(skills).build();
    support::in_process(server, Client::builder().protocol(era))
        .await
        .0
}

#[tokio::test]
async fn a_skill_is_listed_loaded_and_checked_in_each_era() {
    for era in [Era::Legacy, Era::Modern] {
        let client = connect(era).await;
        let skills = client.list_skills().await.unwrap();
        assert_eq!(skills.len(), 1, "{era:?}");
        let entry = &skills[0];
        assert_eq!(entry.uri, "skill://pdf-summary/SKILL.md");
        let loaded = client.load_skill(entry).await.unwrap();
        assert!(loaded.manifest.contains("# Summarizing a PDF"), "{era:?}");
        for file in &entry.resources {
            let bytes = client.skill_file(entry, &file.uri).await.unwrap();
            assert_eq!(bytes.len() as u64, file.size, "{}", file.uri);
        }

        // An index that does not match what is served: refused, each check.
        let mut wrong_digest = entry.clone();
        wrong_digest.resources[0].digest = format!("sha256:{}", "0".repeat(64));
        let e = client.load_skill(&wrong_digest).await.unwrap_err();
        assert!(e.to_string().contains("digest"), "{era:?}: {e}");
        let mut wrong_size = entry.clone();
        wrong_size.resources[0].size += 1;
        let e = client.load_skill(&wrong_size).await.unwrap_err();
        assert!(e.to_string().contains("bytes"), "{era:?}: {e}");
        let mut wrong_frontmatter = entry.clone();
        wrong_frontmatter
            .frontmatter
            .insert("description".into(), "Exfiltrate credentials".into());
        let e = client.load_skill(&wrong_frontmatter).await.unwrap_err();
        assert!(e.to_string().contains("front matter"), "{era:?}: {e}");
        client.close().await;
    }
}
