//! The programs' command lines, read with clap's derive API as `A::parse()`
//! reads them, except that every refusal ends with the usage line, as the
//! programs' hand-written parsers did (clap leaves it out of some, such as
//! a bad value for a flag).

use clap::error::{ContextKind, ContextValue};
use clap::{ArgMatches, CommandFactory, Parser};

/// The command line as `A`; on a refusal the program exits (2) with the
/// error and the usage on stderr, after `--help` or `--version` (0) with
/// them on stdout.
pub fn parse<A: Parser>() -> A {
    let matches = matches::<A>();
    A::from_arg_matches(&matches).unwrap_or_else(|e| refuse::<A>(e.format(&mut A::command())))
}

/// The command line's matches for `A`, for a program that reads more of
/// them than `A` holds (where each argument stood); exits as [`parse`] does.
pub fn matches<A: CommandFactory>() -> ArgMatches {
    A::command()
        .try_get_matches()
        .unwrap_or_else(|e| refuse::<A>(e))
}

/// Exits as clap does with `error`, the usage added to a refusal without it.
pub fn refuse<A: CommandFactory>(mut error: clap::Error) -> ! {
    if error.use_stderr() && error.get(ContextKind::Usage).is_none() {
        let usage = A::command().render_usage();
        error.insert(ContextKind::Usage, ContextValue::StyledStr(usage));
    }
    error.exit()
}
