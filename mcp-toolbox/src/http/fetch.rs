//! The reference fetch server's text: HTML as Markdown, paged by characters.

use std::fmt::Write as _;

/// The page as the model reads it, and the prefix naming what it is, as
/// the reference `fetch_url` returns them.
pub(crate) fn page_text(raw_page: &str, content_type: &str, force_raw: bool) -> (String, String) {
    let head: String = raw_page.chars().take(100).collect();
    let is_html =
        head.contains("<html") || content_type.contains("text/html") || content_type.is_empty();
    if is_html && !force_raw {
        return (markdown(raw_page), String::new());
    }
    (
        raw_page.to_owned(),
        format!(
            "Content type {content_type} cannot be simplified to markdown, but here is the raw content:\n"
        ),
    )
}

fn markdown(html: &str) -> String {
    let converter = htmd::HtmlToMarkdown::builder()
        .skip_tags(vec![
            "head", "script", "style", "noscript", "template", "iframe", "svg",
        ])
        .build();
    match converter.convert(html) {
        Ok(text) if !text.trim().is_empty() => text,
        _ => "<error>Page failed to be simplified from HTML</error>".to_owned(),
    }
}

/// `content[start_index..start_index + max_length]` in characters, with the
/// reference's notes when nothing is left or more remains.
pub(crate) fn page(content: &str, start_index: usize, max_length: usize) -> String {
    const NO_MORE: &str = "<error>No more content available.</error>";
    let original_length = content.chars().count();
    if start_index >= original_length {
        return NO_MORE.to_owned();
    }
    let mut out: String = content.chars().skip(start_index).take(max_length).collect();
    let actual = out.chars().count();
    if actual == 0 {
        return NO_MORE.to_owned();
    }
    let remaining = original_length - (start_index + actual);
    if actual == max_length && remaining > 0 {
        let next = start_index + actual;
        let _ = write!(
            out,
            "\n\n<error>Content truncated. Call the fetch tool with a start_index of {next} to get more content.</error>"
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_becomes_markdown_without_scripts_or_styles() {
        let html = "<html><head><title>T</title><style>p{}</style></head><body>\
                    <h1>Title</h1><p>Some <b>bold</b> text.</p><script>x()</script></body></html>";
        let (text, prefix) = page_text(html, "text/html; charset=utf-8", false);
        assert_eq!(prefix, "");
        assert!(text.contains("# Title"), "{text}");
        assert!(text.contains("Some **bold** text."), "{text}");
        assert!(!text.contains("x()") && !text.contains("p{}"), "{text}");
    }

    #[test]
    fn raw_or_non_html_content_comes_as_is_with_the_reference_prefix() {
        let (text, prefix) = page_text("<html><p>hi</p></html>", "text/html", true);
        assert_eq!(text, "<html><p>hi</p></html>");
        assert_eq!(
            prefix,
            "Content type text/html cannot be simplified to markdown, but here is the raw content:\n"
        );
        let (text, prefix) = page_text("{\"a\":1}", "application/json", false);
        assert_eq!(text, "{\"a\":1}");
        assert!(prefix.starts_with("Content type application/json cannot"));
        // No content type at all counts as HTML, as in the reference.
        let (text, _) = page_text("<p>x</p>", "", false);
        assert_eq!(text, "x");
    }

    #[test]
    fn paging_counts_characters_and_says_where_to_continue() {
        assert_eq!(
            page("héllo wörld", 0, 5),
            "héllo\n\n<error>Content truncated. Call the fetch tool with a start_index of 5 to get more content.</error>"
        );
        assert_eq!(page("héllo wörld", 6, 5), "wörld");
        assert_eq!(page("héllo wörld", 6, 100), "wörld");
        assert_eq!(
            page("héllo", 5, 5),
            "<error>No more content available.</error>"
        );
    }
}
