//! The report of `mcp-bench build`: one line per round and project as the
//! run goes, then the medians of every project and the ratios ours / rmcp
//! of every pair.

use std::fmt::Write as _;

use super::{Sample, Spec};
use crate::stats;

/// The ratio ours / rmcp every measure of a like-for-like pair should reach.
const GOAL: f64 = 0.75;

/// A pair compared: a title, ours, rmcp, and whether the goal applies.
type Pair = (&'static str, &'static str, &'static str, bool);

/// The pairs compared. `ours-all` brings more (OAuth, validation, skills)
/// than any rmcp build here, so its ratio to `rmcp-http` has no goal.
const PAIRS: [Pair; 3] = [
    ("stdio", "ours-stdio", "rmcp-stdio", true),
    ("http", "ours-http", "rmcp-http", true),
    ("all features", "ours-all", "rmcp-http", false),
];

/// The rows of the tables: name, decimals, whether the goal applies; in the
/// order of `Sample::values`.
const MEASURES: [(&str, usize, bool); 6] = [
    ("clean release build, s", 1, true),
    ("release rebuild after an edit, s", 2, true),
    ("dev rebuild after an edit, s", 2, true),
    ("release binary, bytes", 0, true),
    ("stripped release binary, bytes", 0, true),
    ("clean dev build (no goal), s", 1, false),
];

/// The measures of one round, in the order of `MEASURES`.
type Values = [Option<f64>; 6];

impl Sample {
    fn values(&self) -> Values {
        let [size, stripped] = [Some(self.size), self.stripped].map(|b| b.map(stats::to_f64));
        let times = [self.clean_release, self.release_rebuild, self.dev_rebuild];
        let [clean, rebuild, dev_rebuild] = times.map(Some);
        [
            clean,
            rebuild,
            dev_rebuild,
            size,
            stripped,
            Some(self.dev_build),
        ]
    }
}

/// One round of one project, as the run prints it.
pub(super) fn raw(s: &Sample) -> String {
    let stripped = s.stripped.map_or_else(|| "-".into(), |b| b.to_string());
    format!(
        "clean release {:.1} s, release rebuild {:.2} s, dev build {:.1} s, dev rebuild {:.2} s, \
         {} bytes ({stripped} stripped)",
        s.clean_release, s.release_rebuild, s.dev_build, s.dev_rebuild, s.size
    )
}

fn cell(value: f64, decimals: usize) -> String {
    if value.is_finite() {
        format!("{value:.decimals$}")
    } else {
        "-".into()
    }
}

/// The tables: the medians of every project (`samples[i]` holds the rounds
/// of `specs[i]`), then the median of the per-round ratios ours / rmcp of
/// every pair whose projects were both built, with the goal where it
/// applies.
pub(super) fn report(specs: &[&Spec], samples: &[Vec<Sample>], strip: Option<&str>) -> String {
    let values: Vec<Vec<Values>> = samples
        .iter()
        .map(|runs| runs.iter().map(Sample::values).collect())
        .collect();
    let rounds = samples.first().map_or(0, Vec::len);
    let mut out = format!("\nmedians of {rounds} rounds\n");
    out.push_str(&medians(specs, &values));
    let index = |name: &str| specs.iter().position(|s| s.name == name);
    let pairs: Vec<(&Pair, usize, usize)> = PAIRS
        .iter()
        .filter_map(|pair| Some((pair, index(pair.1)?, index(pair.2)?)))
        .collect();
    if !pairs.is_empty() {
        let _ = writeln!(
            out,
            "\nours/rmcp: the median of the per-round ratios; `met` says whether it is \
             ≤ {GOAL:.2}, the goal of a like-for-like pair"
        );
        out.push_str(&ratios(&values, &pairs));
    }
    let strip = strip.map_or_else(
        || "not available".into(),
        |s| format!("`strip` ({s}), all symbols"),
    );
    let _ = writeln!(
        out,
        "\nstripped: {strip}. The clean dev build is the build before the dev rebuild \
         (after the release builds, which share nothing with it)."
    );
    out
}

/// One column per project: the median of each measure.
fn medians(specs: &[&Spec], values: &[Vec<Values>]) -> String {
    let mut header = vec!["measure".to_owned()];
    header.extend(specs.iter().map(|s| s.name.to_owned()));
    let mut rows = vec![header];
    for (i, (name, decimals, _)) in MEASURES.into_iter().enumerate() {
        let mut row = vec![name.to_owned()];
        for runs in values {
            let median = stats::median(runs.iter().map(|v| v[i].unwrap_or(f64::NAN)));
            row.push(cell(median, decimals));
        }
        rows.push(row);
    }
    crate::table(&[1, specs.len()], &["", "medians"], &rows)
}

/// One group per pair (`values` indexed as `specs`): the median of the
/// per-round ratios, and whether the goal is met when it applies.
fn ratios(values: &[Vec<Values>], pairs: &[(&Pair, usize, usize)]) -> String {
    let mut groups = vec![1];
    let mut titles = vec![""];
    let mut header = vec!["measure".to_owned()];
    for &(&(title, ours, rmcp, goal), ..) in pairs {
        groups.push(1 + usize::from(goal));
        titles.push(title);
        header.push(format!("{ours}/{rmcp}"));
        if goal {
            header.push("met".to_owned());
        }
    }
    let mut rows = vec![header];
    for (i, (name, _, measure_goal)) in MEASURES.into_iter().enumerate() {
        let mut row = vec![name.to_owned()];
        for &(&(.., goal), ours, rmcp) in pairs {
            let per_round = values[ours]
                .iter()
                .zip(&values[rmcp])
                .map(|(a, b)| a[i].zip(b[i]).map_or(f64::NAN, |(a, b)| a / b));
            let ratio = stats::median(per_round);
            row.push(cell(ratio, 2));
            if goal {
                let met = match (measure_goal, ratio.is_finite()) {
                    (false, _) => "",
                    (true, false) => "-",
                    (true, true) if ratio <= GOAL => "yes",
                    (true, true) => "NO",
                };
                row.push(met.to_owned());
            }
        }
        rows.push(row);
    }
    crate::table(&groups, &titles, &rows)
}

#[cfg(test)]
mod tests {
    use super::super::SPECS;
    use super::*;

    fn sample(scale: f64) -> Sample {
        Sample {
            clean_release: 40.0 * scale,
            release_rebuild: 2.0 * scale,
            dev_build: 30.0 * scale,
            dev_rebuild: 0.5 * scale,
            size: 1000,
            stripped: None,
        }
    }

    #[test]
    fn a_pair_is_shown_when_both_projects_were_built() {
        let by_name = |name: &str| SPECS.iter().find(|s| s.name == name).unwrap();
        let specs = [
            by_name("ours-stdio"),
            by_name("rmcp-stdio"),
            by_name("ours-all"),
        ];
        let samples = [0.5, 1.0, 2.0].map(|scale| vec![sample(scale)]);
        let out = report(&specs, &samples, None);
        let lines: Vec<String> = out
            .lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect();
        let rows = |start: &str| -> Vec<&str> {
            let rows = lines.iter().filter(|l| l.starts_with(start));
            rows.map(String::as_str).collect()
        };
        assert!(out.contains("ours-stdio/rmcp-stdio met"), "{out}");
        assert!(!out.contains("rmcp-http"), "{out}");
        let clean = "clean release build, s |";
        let expected = [
            format!("{clean} 20.0 40.0 80.0"),
            format!("{clean} 0.50 yes"),
        ];
        assert_eq!(rows(clean), expected, "{out}");
        let size = "release binary, bytes |";
        let expected = [format!("{size} 1000 1000 1000"), format!("{size} 1.00 NO")];
        assert_eq!(rows(size), expected, "{out}");
        assert_eq!(
            rows("stripped release")[1],
            "stripped release binary, bytes | - -"
        );

        let alone = report(&specs[2..], &samples[2..], None);
        assert!(!alone.contains("ours/rmcp"), "{alone}");
    }
}
