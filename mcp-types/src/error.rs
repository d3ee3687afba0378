//! Printing an error together with its causes.
//!
//! The errors of these crates follow the convention of `std` and `hyper`:
//! an error's `Display` says what went wrong at its own level only, and the
//! cause is returned by [`Error::source`], never also written into the
//! message. `{e}` therefore shows one level; [`Chain`] shows them all.

use std::error::Error;
use std::fmt;

/// An error and its causes (its [`Error::source`] chain), for people to read.
///
/// `{}` writes every level joined by `": "`; `{:#}` writes one level per
/// line, each cause after `caused by: `.
///
/// ```
/// use oxmcp_types::call::CallError;
/// use oxmcp_types::error::Chain;
///
/// let io = std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the pipe broke");
/// let e = CallError::transport(io);
/// assert_eq!(e.to_string(), "transport failed");
/// assert_eq!(Chain(&e).to_string(), "transport failed: the pipe broke");
/// assert_eq!(format!("{:#}", Chain(&e)), "transport failed\ncaused by: the pipe broke");
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Chain<'a>(pub &'a (dyn Error + 'a));

impl fmt::Display for Chain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let separator = if f.alternate() { "\ncaused by: " } else { ": " };
        write!(f, "{}", self.0)?;
        let mut source = self.0.source();
        while let Some(cause) = source {
            write!(f, "{separator}{cause}")?;
            source = cause.source();
        }
        Ok(())
    }
}

/// The `Display` text of each level of `e`'s chain, outermost first.
fn levels(e: &(dyn Error + '_)) -> Vec<String> {
    let mut levels = vec![e.to_string()];
    let mut source = e.source();
    while let Some(cause) = source {
        levels.push(cause.to_string());
        source = cause.source();
    }
    levels
}

/// Test support: panics unless every level of `e`'s chain says its own part
/// only (no level's text contains the text of a level below it), and
/// [`Chain`] renders exactly those levels joined by `": "`. Returns the
/// rendered chain.
#[doc(hidden)]
#[track_caller]
pub fn assert_each_level_once(e: &(dyn Error + '_)) -> String {
    let levels = levels(e);
    for (i, level) in levels.iter().enumerate() {
        assert!(!level.is_empty(), "level {i} of {levels:?} is empty");
        for below in &levels[i + 1..] {
            assert!(
                !level.contains(below.as_str()),
                "level {i} ({level:?}) repeats a cause's text ({below:?}); levels: {levels:?}"
            );
        }
    }
    let rendered = Chain(e).to_string();
    assert_eq!(rendered, levels.join(": "));
    assert_eq!(format!("{:#}", Chain(e)), levels.join("\ncaused by: "));
    rendered
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    use crate::call::CallError;
    use crate::jsonrpc::{DecodeError, ErrorObject};
    use crate::modern::MetaError;
    use crate::tool::CallToolResult;
    use crate::ContentBlock;

    #[derive(Debug)]
    struct Outer(std::io::Error);

    impl fmt::Display for Outer {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("reading the file failed")
        }
    }

    impl Error for Outer {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn chain_joins_levels_and_alternate_puts_one_per_line() {
        let e = Outer(std::io::Error::other("disk on fire"));
        assert_eq!(e.to_string(), "reading the file failed");
        assert_eq!(
            assert_each_level_once(&e),
            "reading the file failed: disk on fire"
        );
        assert_eq!(
            format!("{:#}", Chain(&e)),
            "reading the file failed\ncaused by: disk on fire"
        );
        let leaf = std::io::Error::other("alone");
        assert_eq!(Chain(&leaf).to_string(), "alone");
    }

    #[test]
    #[should_panic(expected = "repeats a cause's text")]
    fn the_check_catches_a_repeated_level() {
        #[derive(Debug)]
        struct Repeats(std::io::Error);
        impl fmt::Display for Repeats {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "failed: {}", self.0)
            }
        }
        impl Error for Repeats {
            fn source(&self) -> Option<&(dyn Error + 'static)> {
                Some(&self.0)
            }
        }
        assert_each_level_once(&Repeats(std::io::Error::other("cause")));
    }

    #[test]
    fn call_error_prints_each_level_once() {
        // A cause two levels deep under Transport.
        let e = CallError::transport(Outer(std::io::Error::other("disk on fire")));
        assert_eq!(e.to_string(), "transport failed");
        assert_eq!(
            assert_each_level_once(&e),
            "transport failed: reading the file failed: disk on fire"
        );
        // The server's error object is data, shown at this level.
        let e = CallError::Protocol(ErrorObject::invalid_params("no such city"));
        assert!(e.source().is_none());
        assert_eq!(
            assert_each_level_once(&e),
            "server error -32602: no such city"
        );
        let mut result = CallToolResult::default();
        result.content.push(ContentBlock::text("it broke"));
        let e = CallError::Tool(result);
        assert_eq!(
            assert_each_level_once(&e),
            "tool reported an error: it broke"
        );
        let e = CallError::Timeout(Duration::from_secs(2));
        assert_each_level_once(&e);
    }

    #[test]
    fn error_object_prints_each_level_once() {
        let e = ErrorObject::method_not_found("nope");
        assert!(e.source().is_none());
        assert_eq!(
            assert_each_level_once(&e),
            "method not found: nope (-32601)"
        );
    }

    #[test]
    fn decode_error_prints_each_level_once() {
        let e = crate::jsonrpc::Message::parse("{").unwrap_err();
        assert!(matches!(e, DecodeError::Parse(_)));
        assert!(e.source().is_none());
        assert!(assert_each_level_once(&e).starts_with("parse error: "));
    }

    #[test]
    fn meta_error_prints_each_level_once() {
        let e = MetaError("missing `_meta[\"x\"]`".to_owned());
        assert!(e.source().is_none());
        assert_eq!(assert_each_level_once(&e), "missing `_meta[\"x\"]`");
    }
}
