//! A command line into words, as a POSIX shell would split it, refusing the shell syntax no shell will act on.

use std::fmt;

/// Why a command line was refused before anything ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// A newline, carriage return or NUL: one command, on one line.
    ControlCharacter,
    /// Shell syntax outside quotes (or `$`/`` ` `` inside double quotes).
    ShellSyntax {
        /// The character, as written.
        found: char,
        /// Its place in the command, counted in characters from 1.
        at: usize,
        /// What a shell would have done with it.
        meaning: &'static str,
    },
    /// A quote left open.
    Unterminated,
    /// Nothing to run.
    Empty,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::ControlCharacter => f.write_str(
                "refused: the command holds a newline, carriage return or NUL; \
                 exec runs one command, written on one line",
            ),
            Refusal::ShellSyntax { found, at, meaning } => write!(
                f,
                "refused: `{found}` at character {at} is shell syntax ({meaning}), \
                 but exec runs one program with its arguments and no shell, so it would do \
                 nothing; run one command per call, and quote the character ('{found}') \
                 to pass it to the program literally",
            ),
            Refusal::Unterminated => f.write_str("refused: a quote is left open"),
            Refusal::Empty => f.write_str("refused: the command is empty"),
        }
    }
}

/// Splits `command` into words with `shell-words` (quotes and backslashes
/// as in a POSIX shell), after refusing what a shell would interpret beyond
/// quoting: command separators, pipes, redirections, substitutions,
/// expansions, globs and comments, unless quoted.
pub(crate) fn words(command: &str) -> Result<Vec<String>, Refusal> {
    if command.contains(['\n', '\r', '\0']) {
        return Err(Refusal::ControlCharacter);
    }
    check_syntax(command)?;
    let words = shell_words::split(command).map_err(|_| Refusal::Unterminated)?;
    if words.is_empty() {
        return Err(Refusal::Empty);
    }
    Ok(words)
}

/// Where the scanner stands, the states of `shell_words::split`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// Between words.
    Delimiter,
    /// Inside an unquoted word.
    Unquoted,
    /// After a backslash outside quotes: the next character is literal.
    Escaped,
    /// Inside '...': everything is literal.
    SingleQuoted,
    /// Inside "...": `$`, `` ` `` and `\` keep their meaning in a shell.
    DoubleQuoted,
    /// After a backslash inside "...".
    DoubleQuotedEscaped,
}

/// Finds the first character a POSIX shell would act on (other than
/// quoting and word splitting).
fn check_syntax(command: &str) -> Result<(), Refusal> {
    let mut state = State::Delimiter;
    for (i, c) in command.chars().enumerate() {
        let refuse = |meaning| {
            Err(Refusal::ShellSyntax {
                found: c,
                at: i + 1,
                meaning,
            })
        };
        state = match state {
            State::Delimiter | State::Unquoted => match c {
                '\'' => State::SingleQuoted,
                '"' => State::DoubleQuoted,
                '\\' => State::Escaped,
                ' ' | '\t' => State::Delimiter,
                '#' if state == State::Delimiter => return refuse("a comment"),
                '~' if state == State::Delimiter => return refuse("home directory expansion"),
                c => match unquoted_meaning(c) {
                    Some(meaning) => return refuse(meaning),
                    None => State::Unquoted,
                },
            },
            State::Escaped => State::Unquoted,
            State::SingleQuoted => match c {
                '\'' => State::Unquoted,
                _ => State::SingleQuoted,
            },
            State::DoubleQuoted => match c {
                '"' => State::Unquoted,
                '\\' => State::DoubleQuotedEscaped,
                '$' => return refuse("an expansion, even inside double quotes"),
                '`' => return refuse("command substitution, even inside double quotes"),
                _ => State::DoubleQuoted,
            },
            State::DoubleQuotedEscaped => State::DoubleQuoted,
        };
    }
    Ok(())
}

/// What an unquoted character means to a POSIX shell, if anything.
fn unquoted_meaning(c: char) -> Option<&'static str> {
    Some(match c {
        ';' => "a command separator",
        '&' => "a background job or `&&`",
        '|' => "a pipe or `||`",
        '<' | '>' => "a redirection",
        '(' | ')' => "a subshell",
        '$' => "an expansion or command substitution",
        '`' => "command substitution",
        '*' | '?' | '[' => "a glob",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused_char(command: &str) -> char {
        match words(command) {
            Err(Refusal::ShellSyntax { found, .. }) => found,
            other => panic!("{command:?} gave {other:?}"),
        }
    }

    #[test]
    fn quotes_and_backslashes_split_as_a_posix_shell_would() {
        assert_eq!(
            words(r#"echo "hello world" 'a b' c\ d "x\"y" 'it'\''s'"#).unwrap(),
            ["echo", "hello world", "a b", "c d", "x\"y", "it's"]
        );
    }

    #[test]
    fn unquoted_operators_are_refused_wherever_they_stand() {
        for (command, c) in [
            ("echo a; touch m", ';'),
            ("echo a ; touch m", ';'),
            ("echo a | touch m", '|'),
            ("echo a && touch m", '&'),
            ("echo a || touch m", '|'),
            ("sleep 9 &", '&'),
            ("echo a > m", '>'),
            ("echo a>>m", '>'),
            ("cat < m", '<'),
            ("echo $(touch m)", '$'),
            ("echo $HOME", '$'),
            ("echo `touch m`", '`'),
            ("ls *", '*'),
            ("ls ?.rs", '?'),
            ("ls [ab]", '['),
            ("(touch m)", '('),
            ("echo a # b", '#'),
            ("ls ~/x", '~'),
        ] {
            assert_eq!(refused_char(command), c, "{command}");
        }
    }

    #[test]
    fn substitutions_inside_double_quotes_are_refused_because_a_shell_would_run_them() {
        assert_eq!(refused_char(r#"echo "$(touch m)""#), '$');
        assert_eq!(refused_char(r#"echo "`touch m`""#), '`');
    }

    #[test]
    fn quoted_or_escaped_syntax_reaches_the_program_literally() {
        assert_eq!(
            words(r#"echo 'a; b | c && $(d) `e` > f *' "g; h > *" \; \$x a#b"#).unwrap(),
            [
                "echo",
                "a; b | c && $(d) `e` > f *",
                "g; h > *",
                ";",
                "$x",
                "a#b"
            ]
        );
        assert_eq!(words(r#"echo "\$x""#).unwrap(), ["echo", "$x"]);
    }

    #[test]
    fn newlines_are_refused_even_inside_quotes() {
        for command in [
            "echo a\ntouch m",
            "echo 'a\ntouch m'",
            "echo a\rb",
            "echo a\0b",
        ] {
            assert_eq!(
                words(command),
                Err(Refusal::ControlCharacter),
                "{command:?}"
            );
        }
    }

    #[test]
    fn open_quotes_and_empty_commands_are_refused() {
        assert_eq!(words("echo 'a"), Err(Refusal::Unterminated));
        assert_eq!(words("echo \"a"), Err(Refusal::Unterminated));
        assert_eq!(words("   "), Err(Refusal::Empty));
        assert_eq!(words(""), Err(Refusal::Empty));
    }

    #[test]
    fn the_refusal_names_the_character_and_how_to_quote_it() {
        let message = words("echo a; b").unwrap_err().to_string();
        assert!(message.contains("`;` at character 7"), "{message}");
        assert!(message.contains("no shell"), "{message}");
        assert!(message.contains("(';')"), "{message}");
    }
}
