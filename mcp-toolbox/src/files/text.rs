//! The texts the tools answer with, shaped like the reference server's: sizes, diffs, globs, times.

use std::fmt::Write as _;

use globset::{Glob, GlobMatcher};
use oxmcp_server::ToolError;

use super::Edit;

/// `1.50 KB`, as the reference server writes sizes.
pub(crate) fn format_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut unit = 0;
    let mut scaled = bytes;
    while scaled >= 1024 && unit < UNITS.len() - 1 {
        scaled /= 1024;
        unit += 1;
    }
    #[allow(
        clippy::cast_precision_loss,
        clippy::cast_possible_truncation,
        clippy::cast_possible_wrap
    )]
    let value = bytes as f64 / 1024f64.powi(unit as i32);
    format!("{value:.2} {}", UNITS[unit])
}

/// `\r\n` as `\n`.
pub(crate) fn normalize_line_endings(text: &str) -> String {
    text.replace("\r\n", "\n")
}

/// Applies `edits` in order, each to the text the previous ones left: the
/// first exact occurrence of `oldText`, or else (as the reference server
/// does) a run of lines equal to its lines once their surrounding
/// whitespace is trimmed, re-indented like the line it replaces.
pub(crate) fn apply_edits(content: &str, edits: &[Edit]) -> Result<String, ToolError> {
    let mut text = normalize_line_endings(content);
    for edit in edits {
        let old = normalize_line_endings(&edit.old_text);
        let new = normalize_line_endings(&edit.new_text);
        if old.is_empty() {
            return Err(ToolError::new("Invalid edit: oldText is empty"));
        }
        if let Some(at) = text.find(&old) {
            text.replace_range(at..at + old.len(), &new);
            continue;
        }
        text = replace_trimmed_lines(&text, &old, &new).ok_or_else(|| {
            ToolError::new(format!(
                "Could not find exact match for edit:\n{}",
                edit.old_text
            ))
        })?;
    }
    Ok(text)
}

fn replace_trimmed_lines(text: &str, old: &str, new: &str) -> Option<String> {
    let old_lines: Vec<&str> = old.split('\n').collect();
    let mut lines: Vec<String> = text.split('\n').map(str::to_owned).collect();
    if old_lines.len() > lines.len() {
        return None;
    }
    let start = (0..=lines.len() - old_lines.len()).find(|&i| {
        old_lines
            .iter()
            .zip(&lines[i..])
            .all(|(o, l)| o.trim() == l.trim())
    })?;
    let indent = leading_whitespace(&lines[start]).to_owned();
    let replacement: Vec<String> = new
        .split('\n')
        .enumerate()
        .map(|(j, line)| {
            if j == 0 {
                return format!("{indent}{}", line.trim_start());
            }
            let old_indent = old_lines.get(j).map_or("", |l| leading_whitespace(l));
            let new_indent = leading_whitespace(line);
            if !old_indent.is_empty() && !new_indent.is_empty() {
                let relative = new_indent.len().saturating_sub(old_indent.len());
                format!("{indent}{}{}", " ".repeat(relative), line.trim_start())
            } else {
                line.to_owned()
            }
        })
        .collect();
    lines.splice(start..start + old_lines.len(), replacement);
    Some(lines.join("\n"))
}

fn leading_whitespace(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

/// The unified diff of `old` and `new`, headed as `diff`'s `createTwoFilesPatch`
/// heads it, in a fenced block longer than any run of backticks inside.
pub(crate) fn fenced_diff(old: &str, new: &str, path: &str) -> String {
    let old = normalize_line_endings(old);
    let new = normalize_line_endings(new);
    let diff = similar::TextDiff::from_lines(&old, &new);
    let mut out = format!("Index: {path}\n{}\n", "=".repeat(67));
    let _ = write!(
        out,
        "{}",
        diff.unified_diff()
            .context_radius(4)
            .header(&format!("{path}\toriginal"), &format!("{path}\tmodified"))
    );
    if !out.ends_with('\n') {
        out.push('\n');
    }
    let mut ticks = 3;
    while out.contains(&"`".repeat(ticks)) {
        ticks += 1;
    }
    let fence = "`".repeat(ticks);
    format!("{fence}diff\n{out}{fence}\n\n")
}

/// A glob as `minimatch` with `{dot: true}` reads it: `*` stays within one
/// path component, `**` crosses them, dotfiles match.
pub(crate) fn glob(pattern: &str) -> Result<GlobMatcher, ToolError> {
    globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map(|g: Glob| g.compile_matcher())
        .map_err(|e| ToolError::new(format!("Invalid pattern {pattern:?}: {e}")))
}

/// `directory_tree`'s exclusion: a pattern with `*` matches the relative
/// path; a plain name also matches as any component or any directory's content.
pub(crate) fn tree_excludes(patterns: &[String]) -> Result<Vec<GlobMatcher>, ToolError> {
    let mut out = Vec::new();
    for p in patterns {
        out.push(glob(p)?);
        if !p.contains('*') {
            out.push(glob(&format!("**/{p}"))?);
            out.push(glob(&format!("**/{p}/**"))?);
        }
    }
    Ok(out)
}

/// `2026-11-27T10:00:00.000Z`: a time in UTC, RFC 3339.
pub(crate) use oxmcp_wire::time::rfc3339;

pub(super) fn file_info(meta: &cap_std::fs::Metadata) -> String {
    let time = |t: std::io::Result<cap_std::time::SystemTime>| {
        t.map_or_else(|_| "unknown".to_owned(), |t| rfc3339(t.into_std()))
    };
    [
        format!("size: {}", meta.len()),
        format!("created: {}", time(meta.created())),
        format!("modified: {}", time(meta.modified())),
        format!("accessed: {}", time(meta.accessed())),
        format!("isDirectory: {}", meta.is_dir()),
        format!("isFile: {}", meta.is_file()),
        format!("permissions: {:03o}", permission_bits(meta)),
    ]
    .join("\n")
}

/// The permission bits, as the reference server prints them: the mode on
/// Unix; on Windows, as Node reports them there, 444 for a read-only file
/// and 666 for any other.
fn permission_bits(meta: &cap_std::fs::Metadata) -> u32 {
    #[cfg(unix)]
    {
        use cap_std::fs::PermissionsExt as _;
        meta.permissions().mode() & 0o777
    }
    #[cfg(not(unix))]
    {
        if meta.permissions().readonly() {
            0o444
        } else {
            0o666
        }
    }
}

/// The MIME type the reference server gives an extension.
pub(super) fn mime_type(path: &std::path::Path) -> &'static str {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "bmp" => "image/bmp",
        "svg" => "image/svg+xml",
        "mp3" => "audio/mpeg",
        "wav" => "audio/wav",
        "ogg" => "audio/ogg",
        "flac" => "audio/flac",
        _ => "application/octet-stream",
    }
}
