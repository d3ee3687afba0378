//! The wording for a key or a name the macro does not know: the keys
//! expected there, and the closest one when it looks like a typo ("did you
//! mean").

use super::path_text;
use crate::ctxt::Ctxt;
use crate::symbol::Symbol;

/// Reports `key`, unknown at `place`: the keys `expected` there, and the
/// closest of them when the key looks like a typo of it.
pub(super) fn unknown_key(cx: &Ctxt, key: &syn::Path, place: &str, expected: &[Symbol]) {
    let text = path_text(key);
    let list = expected
        .iter()
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let hint = match similar(&text, expected.iter().map(|s| s.0)) {
        Some(near) if expected.len() > 1 => format!("; did you mean `{near}`?"),
        _ => String::new(),
    };
    let one_of = if expected.len() == 1 { "" } else { "one of " };
    cx.error_spanned_by(
        key,
        format!("unknown key `{text}` in {place}: expected {one_of}{list}{hint}"),
    );
}

/// The candidate closest to `word`, if it is close enough to be a typo.
pub(crate) fn similar<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (edit_distance(word, c), c))
        .filter(|(d, c)| *d <= (c.len().max(word.len()) / 3).max(1) && *d < word.len())
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Edit distance counting a swap of two neighbours as one edit ("optimal
/// string alignment"), so `frist` is one edit from `first`.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::{edit_distance, similar};

    #[test]
    fn typos() {
        assert_eq!(edit_distance("frist", "first"), 1);
        assert_eq!(edit_distance("read_onyl", "read_only"), 1);
        assert_eq!(edit_distance("abc", "abc"), 0);
        assert_eq!(edit_distance("", "ab"), 2);
        assert_eq!(similar("defualt", ["default"]), Some("default"));
        assert_eq!(similar("c", ["a", "b"]), None);
        assert_eq!(similar("query", ["a", "b"]), None);
    }
}
