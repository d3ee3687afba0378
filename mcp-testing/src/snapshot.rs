//! The tool listing kept in a JSON file beside the tests: a description or
//! a schema that changes without the file changing with it fails the test,
//! the difference shown, until the change is accepted (as trybuild and
//! insta do, with an environment variable).

use std::path::Path;

use crate::TestClient;

/// The environment variable that accepts a changed listing:
/// `MCP_SNAPSHOTS=overwrite cargo test` writes the listing to the file.
pub const SNAPSHOTS_ENV: &str = "MCP_SNAPSHOTS";

impl TestClient {
    /// Compares the server's tool listing (names, descriptions, input and
    /// output schemas, annotations: every field, as pretty JSON) with the
    /// file at `path` (relative paths are from the package's directory,
    /// where `cargo test` runs tests).
    ///
    /// A missing file is written, and the test passes (commit the file),
    /// except where `CI` is set: there a snapshot must have been committed.
    /// With `MCP_SNAPSHOTS=overwrite`, a file that differs is rewritten.
    ///
    /// # Panics
    ///
    /// If the listing differs from the file (the message shows the
    /// difference and how to accept it), if the listing cannot be read, or
    /// if the file cannot be read or written.
    pub async fn assert_tools_snapshot(&self, path: impl AsRef<Path>) {
        let path = path.as_ref();
        let tools = match self.list_tools().await {
            Ok(tools) => tools,
            Err(e) => panic!("listing the tools failed: {e}"),
        };
        let mut actual = serde_json::to_string_pretty(&tools)
            .unwrap_or_else(|e| panic!("the tool listing is not JSON: {e}"));
        actual.push('\n');
        let overwrite = std::env::var(SNAPSHOTS_ENV).is_ok_and(|v| v == "overwrite");
        let expected = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                assert!(
                    overwrite || std::env::var_os("CI").is_none(),
                    "no tool snapshot at {}: run `{SNAPSHOTS_ENV}=overwrite cargo test` \
                     and commit the file",
                    path.display()
                );
                write(path, &actual);
                eprintln!("oxmcp-testing: wrote the tool snapshot {}", path.display());
                return;
            }
            Err(e) => panic!("cannot read the tool snapshot {}: {e}", path.display()),
        };
        // Line endings as git may check them out on Windows.
        if expected.replace("\r\n", "\n") == actual {
            return;
        }
        if overwrite {
            write(path, &actual);
            eprintln!(
                "oxmcp-testing: updated the tool snapshot {}",
                path.display()
            );
            return;
        }
        let diff = similar::TextDiff::from_lines(expected.as_str(), actual.as_str());
        let shown = diff
            .unified_diff()
            .context_radius(3)
            .header("snapshot", "server")
            .to_string();
        panic!(
            "the tool listing differs from the snapshot {}:\n{shown}\n\
             If the change is intended, run `{SNAPSHOTS_ENV}=overwrite cargo test` and commit the file.",
            path.display()
        );
    }
}

/// Writes the snapshot, creating its directory.
fn write(path: &Path, text: &str) {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    }
    std::fs::write(path, text)
        .unwrap_or_else(|e| panic!("cannot write the tool snapshot {}: {e}", path.display()));
}
