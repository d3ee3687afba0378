//! The rustdoc of a generated client and of its methods, from the
//! descriptions the model reads.

use proc_macro2::TokenStream;
use quote::quote;
use syn::ext::IdentExt;

use super::methods::Param;
use crate::ast::Tool;

/// A description as Markdown that shows it as written: `<` and `[` outside
/// code spans are escaped, so `Vec<Hit>` is not an HTML tag and `[x]` is
/// not a link.
pub(super) fn escape_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    // The length of the backtick run that opened the current code span.
    let mut code: Option<usize> = None;
    while let Some(c) = chars.next() {
        if c == '`' {
            let mut run = 1;
            while chars.peek() == Some(&'`') {
                chars.next();
                run += 1;
            }
            match code {
                None => code = Some(run),
                Some(open) if open == run => code = None,
                Some(_) => {}
            }
            out.extend(std::iter::repeat_n('`', run));
            continue;
        }
        if code.is_none() && matches!(c, '<' | '>' | '[' | ']') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The doc of one client method.
pub(super) fn method_doc(tool: &Tool, params: &[Param<'_>]) -> TokenStream {
    let description = tool
        .description
        .as_ref()
        .map(syn::LitStr::value)
        .unwrap_or_default();
    let mut lines = vec![format!(
        "Calls the tool `{}`: {}",
        tool.name(),
        escape_markdown(description.trim())
    )];
    if !params.is_empty() {
        lines.push(String::new());
        lines.push("Arguments:".to_owned());
        for p in params {
            let optional = if p.defaulted {
                " (optional: `None` leaves it out, and the server applies its default)"
            } else if p.optional {
                " (optional: `None` leaves it out)"
            } else {
                ""
            };
            // The argument's name in Rust, and its name on the wire when renamed.
            let rust = p.ident.unraw().to_string();
            let name = if rust == p.wire {
                format!("`{rust}`")
            } else {
                format!("`{rust}` (`{}` on the wire)", p.wire)
            };
            lines.push(format!(
                "- {name}{optional}: {}",
                escape_markdown(p.description.trim())
            ));
        }
    }
    lines.extend([
        String::new(),
        "Returns the tool's result, decoded as `ToolOutput` says for the tool's return type: \
         the text, the parsed number, the `Json<T>` payload, the content."
            .to_owned(),
        String::new(),
        "# Errors".to_owned(),
        String::new(),
        "`CallError::Tool` when the tool reports a failure (`isError`), \
         `CallError::Decode` when its result is not what this method returns, \
         and the caller's own errors (transport, protocol, timeout)."
            .to_owned(),
    ]);
    let docs = lines.iter().map(|line| {
        let line = if line.is_empty() {
            String::new()
        } else {
            format!(" {line}")
        };
        quote!(#[doc = #line])
    });
    quote!(#(#docs)*)
}

/// `#[doc]` attributes, one per line of `text`.
pub(super) fn doc_lines(text: &str) -> Vec<TokenStream> {
    text.lines()
        .map(|line| {
            let line = if line.is_empty() {
                String::new()
            } else {
                format!(" {line}")
            };
            quote!(#[doc = #line])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::escape_markdown;

    #[test]
    fn markdown_is_escaped_outside_code() {
        assert_eq!(
            escape_markdown("a Vec<Hit> of [x] and `Option<T>` or ``a ` [b]``"),
            "a Vec\\<Hit\\> of \\[x\\] and `Option<T>` or ``a ` [b]``"
        );
        assert_eq!(escape_markdown("plain"), "plain");
    }
}
