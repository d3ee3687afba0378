//! What the commands print: `--json` (one JSON document on stdout, for
//! scripts), or text for people, in colour only when stdout is a terminal
//! and `NO_COLOR` is not set (<https://no-color.org>).

use std::io::{IsTerminal, Write};

use serde_json::Value;

/// The output option every command that prints data takes.
#[derive(Debug, clap::Args)]
pub(crate) struct Format {
    /// Print one JSON document on stdout (for scripts) instead of text.
    #[arg(long)]
    json: bool,
}

/// How to print.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Output {
    pub(crate) json: bool,
    colour: bool,
}

impl Output {
    /// `--json` or text; colour decided from stdout and `NO_COLOR`.
    pub(crate) fn new(format: &Format) -> Self {
        let json = format.json;
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Output {
            json,
            colour: !json && !no_color && std::io::stdout().is_terminal(),
        }
    }

    /// `text` in bold (names), when colour is on.
    pub(crate) fn name(self, text: &str) -> String {
        self.paint(text, anstyle::Style::new().bold())
    }

    /// `text` dimmed (types, notes), when colour is on.
    pub(crate) fn dim(self, text: &str) -> String {
        self.paint(
            text,
            anstyle::Style::new().fg_color(Some(anstyle::AnsiColor::Cyan.into())),
        )
    }

    fn paint(self, text: &str, style: anstyle::Style) -> String {
        if self.colour {
            format!("{style}{text}{style:#}")
        } else {
            text.to_owned()
        }
    }

    /// Prints `value` as the command's JSON document.
    pub(crate) fn json(value: &Value) -> Result<(), String> {
        let text = serde_json::to_string_pretty(value).map_err(|e| e.to_string())?;
        line(&text)
    }
}

/// Writes `text` and a newline to stdout; a closed pipe (`| head`) ends quietly.
pub(crate) fn line(text: &str) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}") {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(format!("cannot write to stdout: {e}"))
        }
        _ => Ok(()),
    }
}

/// The elements of the array `value[key]` (none when it is missing or not an array).
pub(crate) fn items<'a>(value: &'a Value, key: &str) -> impl Iterator<Item = &'a Value> {
    value
        .get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

/// The text people read for content blocks (a tool result, a prompt
/// message): text as it is, images and audio named with their type and
/// size, links and embedded resources by URI.
pub(crate) fn content_text(block: &Value) -> String {
    let kind = block.get("type").and_then(Value::as_str).unwrap_or("");
    let str_of = |key: &str| block.get(key).and_then(Value::as_str).unwrap_or("");
    match kind {
        "text" => str_of("text").to_owned(),
        "image" | "audio" => format!(
            "[{kind} {}, {} bytes]",
            str_of("mimeType"),
            base64_len(str_of("data"))
        ),
        "resource_link" => format!("[link {} {}]", str_of("uri"), str_of("name")),
        "resource" => block
            .get("resource")
            .map_or_else(String::new, resource_text),
        other => format!("[{other} content]"),
    }
}

/// The text of resource contents: the text, or a blob named with its size.
pub(crate) fn resource_text(contents: &Value) -> String {
    let str_of = |key: &str| contents.get(key).and_then(Value::as_str);
    match (str_of("text"), str_of("blob")) {
        (Some(text), _) => text.to_owned(),
        (None, Some(blob)) => format!(
            "[blob {} {}, {} bytes]",
            str_of("uri").unwrap_or(""),
            str_of("mimeType").unwrap_or("application/octet-stream"),
            base64_len(blob)
        ),
        (None, None) => String::new(),
    }
}

/// The number of bytes base64 `data` decodes to.
fn base64_len(data: &str) -> usize {
    let padding = data.bytes().rev().take_while(|b| *b == b'=').count();
    (data.len() / 4 * 3).saturating_sub(padding)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn images_are_named_with_type_and_size() {
        let block = json!({"type": "image", "mimeType": "image/png", "data": "AAAA"});
        assert_eq!(content_text(&block), "[image image/png, 3 bytes]");
        let block = json!({"type": "audio", "mimeType": "audio/wav", "data": "AA=="});
        assert_eq!(content_text(&block), "[audio audio/wav, 1 bytes]");
    }

    #[test]
    fn embedded_resources_show_their_text() {
        let block = json!({"type": "resource", "resource": {"uri": "a://b", "text": "hi"}});
        assert_eq!(content_text(&block), "hi");
    }
}
