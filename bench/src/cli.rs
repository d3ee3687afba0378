//! The command line shared by the three modes: the run wrapper, the flag
//! loop (`--flag value` and `--flag=value`) and the value parsers.

use std::path::PathBuf;
use std::process::ExitCode;
use std::slice;
use std::time::Duration;

/// Runs one mode: `-h`/`--help` prints its usage; an option it cannot
/// parse prints the error and the usage and exits with 2; a run that fails
/// or reports a failed target exits with 1.
pub(crate) fn run_mode<O>(
    args: &[String],
    usage: &str,
    parse: impl FnOnce(&[String]) -> Result<O, String>,
    run: impl FnOnce(&O) -> Result<bool, String>,
) -> ExitCode {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        print!("{usage}");
        return ExitCode::SUCCESS;
    }
    let options = match parse(args) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("error: {message}\n\n{usage}");
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Calls `each` with every flag in `args`; `each` answers whether it knows
/// the flag, and an unknown one is an error naming it.
pub(crate) fn parse_flags<'a>(
    args: &'a [String],
    mut each: impl FnMut(&mut Flag<'a, '_>) -> Result<bool, String>,
) -> Result<(), String> {
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((name, value)) if name.starts_with("--") => (name, Some(value)),
            _ => (arg.as_str(), None),
        };
        let mut flag = Flag {
            name,
            inline,
            rest: &mut rest,
        };
        if !each(&mut flag)? {
            return Err(format!("unknown argument {arg:?}"));
        }
    }
    Ok(())
}

/// One flag on the command line; its value is the text after `=` or the
/// next argument.
#[derive(Debug)]
pub(crate) struct Flag<'a, 'r> {
    name: &'a str,
    inline: Option<&'a str>,
    rest: &'r mut slice::Iter<'a, String>,
}

impl<'a> Flag<'a, '_> {
    pub(crate) fn name(&self) -> &'a str {
        self.name
    }

    /// The flag's value as text.
    pub(crate) fn text(&mut self) -> Result<&'a str, String> {
        match self.inline.take() {
            Some(value) => Ok(value),
            None => self
                .rest
                .next()
                .map(String::as_str)
                .ok_or_else(|| format!("{} needs a value", self.name)),
        }
    }

    /// A positive integer.
    pub(crate) fn count(&mut self) -> Result<u64, String> {
        let text = self.text()?;
        self.parse_count(text, false)
    }

    /// A non-negative integer (0 turns something off).
    pub(crate) fn count_or_zero(&mut self) -> Result<u64, String> {
        let text = self.text()?;
        self.parse_count(text, true)
    }

    /// A positive integer that indexes memory (rounds).
    pub(crate) fn size(&mut self) -> Result<usize, String> {
        usize::try_from(self.count()?).map_err(|e| format!("{}: {e}", self.name))
    }

    /// A comma-separated list of positive integers, at least one.
    pub(crate) fn counts(&mut self) -> Result<Vec<u64>, String> {
        let text = self.text()?;
        let counts = list(text)
            .map(|item| self.parse_count(item, false))
            .collect::<Result<Vec<u64>, String>>()?;
        if counts.is_empty() {
            return Err(format!("{} needs at least one number", self.name));
        }
        Ok(counts)
    }

    /// A number of seconds, fractions allowed.
    pub(crate) fn seconds(&mut self) -> Result<Duration, String> {
        let text = self.text()?;
        text.parse::<f64>()
            .ok()
            .and_then(|secs| Duration::try_from_secs_f64(secs).ok())
            .ok_or_else(|| format!("{} needs a number of seconds, not {text:?}", self.name))
    }

    /// A comma-separated list of names; empty items are dropped.
    pub(crate) fn names(&mut self) -> Result<Vec<String>, String> {
        Ok(list(self.text()?).map(str::to_owned).collect())
    }

    /// `NAME=PATH`, both parts non-empty.
    pub(crate) fn name_and_path(&mut self) -> Result<(String, PathBuf), String> {
        let spec = self.text()?;
        spec.split_once('=')
            .filter(|(name, path)| !name.is_empty() && !path.is_empty())
            .map(|(name, path)| (name.to_owned(), PathBuf::from(path)))
            .ok_or_else(|| format!("{} needs NAME=PATH, not {spec:?}", self.name))
    }

    fn parse_count(&self, text: &str, zero: bool) -> Result<u64, String> {
        text.parse::<u64>()
            .ok()
            .filter(|&n| zero || n > 0)
            .ok_or_else(|| {
                let kind = if zero { "non-negative" } else { "positive" };
                format!("{} needs a {kind} integer, not {text:?}", self.name)
            })
    }
}

fn list(text: &str) -> impl Iterator<Item = &str> {
    text.split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
}

/// The targets a stdio or HTTP run was asked for: built-ins by name
/// (`--targets`, repeatable) and extra server binaries (`--target-cmd`).
#[derive(Debug, Default)]
pub(crate) struct TargetChoice {
    pub(crate) names: Option<Vec<String>>,
    pub(crate) cmds: Vec<(String, PathBuf)>,
}

impl TargetChoice {
    /// Takes `--targets` and `--target-cmd`; answers whether `flag` was one.
    pub(crate) fn accept(&mut self, flag: &mut Flag<'_, '_>) -> Result<bool, String> {
        match flag.name() {
            "--targets" => {
                let names = flag.names()?;
                self.names.get_or_insert_with(Vec::new).extend(names);
            }
            "--target-cmd" => self.cmds.push(flag.name_and_path()?),
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// The phase bounds every mode takes.
pub(crate) fn check_phases(min: Duration, max: Duration) -> Result<(), String> {
    if min > max {
        return Err("--min-phase-secs is above --max-phase-secs".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|&a| a.to_owned()).collect()
    }

    #[test]
    fn values_inline_or_next_and_errors_name_the_flag() {
        let argv = args(&["--n=3", "--d", "0.5", "--l", "1, 2,,3", "--t=a=b"]);
        let mut seen = Vec::new();
        parse_flags(&argv, |flag| {
            match flag.name() {
                "--n" => seen.push(format!("{}", flag.count()?)),
                "--d" => seen.push(format!("{:?}", flag.seconds()?)),
                "--l" => seen.push(format!("{:?}", flag.counts()?)),
                "--t" => seen.push(format!("{:?}", flag.name_and_path()?)),
                _ => return Ok(false),
            }
            Ok(true)
        })
        .unwrap();
        assert_eq!(seen, ["3", "500ms", "[1, 2, 3]", "(\"a\", \"b\")"]);

        let error = |list: &[&str]| {
            parse_flags(&args(list), |flag| match flag.name() {
                "--n" => flag.count().map(|_| true),
                "--z" => flag.count_or_zero().map(|_| true),
                _ => Ok(false),
            })
            .unwrap_err()
        };
        assert_eq!(error(&["--n"]), "--n needs a value");
        assert_eq!(
            error(&["--n", "0"]),
            "--n needs a positive integer, not \"0\""
        );
        assert_eq!(
            error(&["--z=-1"]),
            "--z needs a non-negative integer, not \"-1\""
        );
        assert_eq!(error(&["--what"]), "unknown argument \"--what\"");
    }
}
