//! Tool names the providers accept.
//!
//! MCP allows `[A-Za-z0-9_.-]{1,128}`; OpenAI and Anthropic accept
//! `^[a-zA-Z0-9_-]{1,64}$`. [`NameMap`] maps one to the other, reversibly
//! and deterministically:
//!
//! - a name the providers already accept maps to itself, so in the common
//!   case the model sees the real names;
//! - any other name maps to [`provider_name`]: its characters with `.` (and
//!   anything else outside the providers' alphabet) replaced by `_`, cut to
//!   fit, then `_` and eight base-36 digits of the FNV-1a 64-bit hash of the
//!   whole original name, so `a.b` and `a_b` never meet;
//! - when that derived name is already taken in the set (by a name that maps
//!   to itself, or by another derived name), a longer hash and then a counter
//!   are tried, the names being settled in sorted order, so the map depends
//!   only on the set of names, never on the order they were given in.
//!
//! ```
//! use oxmcp_agent::names::NameMap;
//!
//! let map = NameMap::new(["search", "files.read", "files_read"]);
//! assert_eq!(map.to_provider("search"), Some("search"));
//! assert_eq!(map.to_provider("files_read"), Some("files_read"));
//! let read = map.to_provider("files.read").unwrap();
//! assert!(read.starts_with("files_read_"));
//! assert_eq!(map.to_mcp(read), Some("files.read"));
//! ```

use std::collections::{BTreeSet, HashMap};

/// The longest name the providers accept.
const MAX_LEN: usize = 64;

/// Base-36 digits of the short hash suffix (about 41 bits).
const SHORT_HASH: usize = 8;

/// Base-36 digits of a whole 64-bit hash.
const LONG_HASH: usize = 13;

/// Whether the providers (OpenAI, Anthropic) accept `s` as a tool name:
/// 1 to 64 characters of `[a-zA-Z0-9_-]`.
pub fn is_provider_name(s: &str) -> bool {
    (1..=MAX_LEN).contains(&s.len()) && s.bytes().all(is_provider_byte)
}

/// The provider-safe form of one MCP name, derived from that name alone:
/// the name itself when the providers accept it, otherwise its characters
/// with every one outside `[a-zA-Z0-9_-]` (the MCP `.`) replaced by `_`,
/// cut to leave room, then `_` and 8 base-36 digits of the FNV-1a 64-bit
/// hash of the whole original name.
///
/// [`NameMap`] uses this unless the result collides with another name of
/// its set.
///
/// ```
/// use oxmcp_agent::names::{is_provider_name, provider_name};
///
/// assert_eq!(provider_name("get_weather"), "get_weather");
/// let derived = provider_name("weather.get");
/// assert!(derived.starts_with("weather_get_") && is_provider_name(&derived));
/// assert_ne!(provider_name("a.b"), provider_name("a_b"));
/// ```
pub fn provider_name(mcp_name: &str) -> String {
    if is_provider_name(mcp_name) {
        return mcp_name.to_owned();
    }
    derived(mcp_name, 0)
}

/// A two-way map between MCP tool names and provider-safe names, built for one
/// set of names.
///
/// Every provider name is valid for the providers ([`is_provider_name`]),
/// and no two MCP names share one.
#[derive(Debug, Clone, Default)]
pub struct NameMap {
    to_provider: HashMap<String, String>,
    to_mcp: HashMap<String, String>,
}

impl NameMap {
    /// Builds the map for these MCP names (duplicates count once; the order
    /// does not matter).
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> NameMap {
        let names: BTreeSet<&str> = names.into_iter().collect();
        let mut map = NameMap {
            to_provider: HashMap::with_capacity(names.len()),
            to_mcp: HashMap::with_capacity(names.len()),
        };
        // Names the providers accept keep themselves: they are distinct, so
        // they cannot collide with one another.
        for &name in names.iter().filter(|n| is_provider_name(n)) {
            map.insert(name, name.to_owned());
        }
        // The others take the first free derived name, in sorted order.
        for &name in names.iter().filter(|n| !is_provider_name(n)) {
            // Each attempt yields a new name and the map is finite: this ends.
            let mut attempt = 0;
            let mut provider = derived(name, attempt);
            while map.to_mcp.contains_key(&provider) {
                attempt += 1;
                provider = derived(name, attempt);
            }
            map.insert(name, provider);
        }
        map
    }

    fn insert(&mut self, mcp_name: &str, provider_name: String) {
        self.to_mcp
            .insert(provider_name.clone(), mcp_name.to_owned());
        self.to_provider.insert(mcp_name.to_owned(), provider_name);
    }

    /// The provider-safe name of an MCP name of this map.
    pub fn to_provider(&self, mcp_name: &str) -> Option<&str> {
        self.to_provider.get(mcp_name).map(String::as_str)
    }

    /// The MCP name behind a provider-safe name of this map.
    pub fn to_mcp(&self, provider_name: &str) -> Option<&str> {
        self.to_mcp.get(provider_name).map(String::as_str)
    }

    /// How many names the map holds.
    pub fn len(&self) -> usize {
        self.to_provider.len()
    }

    /// Whether the map holds no name.
    pub fn is_empty(&self) -> bool {
        self.to_provider.is_empty()
    }

    /// The pairs `(MCP name, provider name)`, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
        self.to_provider
            .iter()
            .map(|(mcp, provider)| (mcp.as_str(), provider.as_str()))
    }
}

fn is_provider_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// The `attempt`-th derived name of `name`: attempt 0 has the short hash,
/// attempt 1 the whole hash, later ones the whole hash and a counter.
fn derived(name: &str, attempt: u64) -> String {
    let hash = fnv1a64(name.as_bytes());
    let suffix = match attempt {
        0 => base36(hash, SHORT_HASH),
        1 => base36(hash, LONG_HASH),
        n => format!("{}_{n}", base36(hash, LONG_HASH)),
    };
    // `_` + suffix at the end; the sanitized name fills what is left.
    let room = MAX_LEN.saturating_sub(suffix.len() + 1);
    let mut out = String::with_capacity(MAX_LEN);
    out.extend(name.bytes().take(room).map(|b| {
        if is_provider_byte(b) {
            char::from(b)
        } else {
            '_'
        }
    }));
    out.push('_');
    out.push_str(&suffix);
    out
}

/// FNV-1a, 64 bits: stable across platforms and releases (unlike `std`'s
/// `DefaultHasher`).
fn fnv1a64(bytes: &[u8]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes
        .iter()
        .fold(OFFSET, |hash, &b| (hash ^ u64::from(b)).wrapping_mul(PRIME))
}

/// The `digits` least significant base-36 digits of `n`, zero-padded,
/// lowercase (13 digits hold any `u64`).
fn base36(mut n: u64, digits: usize) -> String {
    const ALPHABET: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = vec![b'0'; digits];
    for slot in out.iter_mut().rev() {
        // `n % 36` is below 36: the cast cannot truncate.
        #[allow(clippy::cast_possible_truncation)]
        let digit = (n % 36) as usize;
        *slot = ALPHABET[digit];
        n /= 36;
    }
    out.into_iter().map(char::from).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxmcp_types::tool::is_valid_tool_name;

    /// The MCP tool-name alphabet.
    const MCP_ALPHABET: &[u8] =
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-";

    /// Checks the map's invariants for `names`: every name maps to a valid
    /// provider name that maps back, no two names share one, names the
    /// providers accept map to themselves.
    fn check(names: &[&str]) -> NameMap {
        let map = NameMap::new(names.iter().copied());
        let mut seen = HashMap::new();
        for &name in names {
            let provider = map.to_provider(name).expect("every name is mapped");
            assert!(is_provider_name(provider), "{provider:?} for {name:?}");
            assert_eq!(map.to_mcp(provider), Some(name), "round trip of {name:?}");
            if let Some(other) = seen.insert(provider.to_owned(), name) {
                assert_eq!(other, name, "{other:?} and {name:?} share {provider:?}");
            }
            if is_provider_name(name) {
                assert_eq!(provider, name);
            }
        }
        assert_eq!(map.len(), seen.len());
        map
    }

    /// A deterministic linear congruential generator (Knuth's MMIX constants).
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            self.0 >> 33
        }

        fn below(&mut self, n: usize) -> usize {
            usize::try_from(self.next()).unwrap() % n
        }

        fn name(&mut self) -> String {
            // Mostly short names, some up to the MCP limit, with plenty of
            // dots so that many need deriving.
            let len = if self.below(4) == 0 {
                1 + self.below(128)
            } else {
                1 + self.below(12)
            };
            (0..len)
                .map(|_| {
                    if self.below(5) == 0 {
                        '.'
                    } else {
                        char::from(MCP_ALPHABET[self.below(MCP_ALPHABET.len())])
                    }
                })
                .collect()
        }
    }

    #[test]
    fn provider_names_map_to_themselves() {
        let map = check(&["get_weather", "search", "A-b_9", &"x".repeat(64)]);
        assert_eq!(map.to_provider("get_weather"), Some("get_weather"));
        assert_eq!(map.to_mcp("search"), Some("search"));
        assert_eq!(map.to_provider("missing"), None);
        assert_eq!(map.to_mcp("missing"), None);
    }

    #[test]
    fn validity() {
        assert!(is_provider_name("a"));
        assert!(is_provider_name("A-z_0"));
        assert!(is_provider_name(&"x".repeat(64)));
        assert!(!is_provider_name(&"x".repeat(65)));
        assert!(!is_provider_name(""));
        assert!(!is_provider_name("a.b"));
        assert!(!is_provider_name("a b"));
        assert!(!is_provider_name("é"));
    }

    #[test]
    fn derivation_is_stable() {
        // Pinned: a change here renames tools for every user.
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(base36(0, 3), "000");
        assert_eq!(base36(35, 2), "0z");
        assert_eq!(base36(u64::MAX, 13), "3w5e11264sgsf");
        let derived = provider_name("a.b");
        assert_eq!(derived, format!("a_b_{}", base36(fnv1a64(b"a.b"), 8)));
        assert_eq!(provider_name("a.b"), derived);
    }

    #[test]
    fn long_names() {
        let long_valid = "a".repeat(128);
        let long_dotted = format!("{}.{}", "b".repeat(63), "c".repeat(64));
        let map = check(&[&long_valid, &long_dotted, &"d".repeat(65)]);
        for name in [&long_valid, &long_dotted] {
            assert_eq!(map.to_provider(name).map(str::len), Some(64));
        }
        // Names sharing their first 55 characters still differ.
        let a = format!("{}1", "x".repeat(127));
        let b = format!("{}2", "x".repeat(127));
        assert_ne!(provider_name(&a), provider_name(&b));
        check(&[&a, &b]);
    }

    #[test]
    fn dots_at_the_ends_and_punctuation_only() {
        let names = [
            ".a", "a.", ".a.", "..", ".", "-", "_", "--", "__", ".-_", "_-.", "-.-", "...",
        ];
        let map = check(&names);
        assert_eq!(map.to_provider("-"), Some("-"));
        assert_eq!(map.to_provider("_"), Some("_"));
    }

    #[test]
    fn dot_and_underscore_do_not_collide() {
        let names = ["a.b", "a_b", "a.b.c", "a_b.c", "a.b_c", "a_b_c"];
        let map = check(&names);
        assert_eq!(map.to_provider("a_b"), Some("a_b"));
        assert_ne!(map.to_provider("a.b"), Some("a_b"));
        // Alone, each still gets its own distinct derived name.
        assert_ne!(provider_name("a.b.c"), provider_name("a_b.c"));
        assert_ne!(provider_name("a.b_c"), provider_name("a_b.c"));
    }

    #[test]
    fn every_single_character_name() {
        let names: Vec<String> = MCP_ALPHABET
            .iter()
            .map(|&b| char::from(b).to_string())
            .collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        assert!(names.iter().all(|n| is_valid_tool_name(n)));
        check(&names);
        for name in &names {
            check(&[name]);
        }
    }

    #[test]
    fn random_names_round_trip() {
        let mut rng = Lcg(0x5eed);
        let names: Vec<String> = (0..4000).map(|_| rng.name()).collect();
        assert!(names.iter().all(|n| is_valid_tool_name(n)));
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        // One big set, then many small ones.
        check(&refs);
        for chunk in refs.chunks(7) {
            check(chunk);
        }
        for name in &refs {
            assert!(is_provider_name(&provider_name(name)), "{name:?}");
        }
    }

    #[test]
    fn order_does_not_matter() {
        let mut rng = Lcg(42);
        let mut names: Vec<String> = (0..300).map(|_| rng.name()).collect();
        // Force collisions into the set too.
        let forced: Vec<String> = names.iter().take(20).map(|n| provider_name(n)).collect();
        names.extend(forced);
        let forward: Vec<&str> = names.iter().map(String::as_str).collect();
        let mut backward = forward.clone();
        backward.reverse();
        let mut shuffled = forward.clone();
        for i in (1..shuffled.len()).rev() {
            let j = rng.below(i + 1);
            shuffled.swap(i, j);
        }
        let a = check(&forward);
        let b = check(&backward);
        let c = check(&shuffled);
        for name in &forward {
            assert_eq!(a.to_provider(name), b.to_provider(name));
            assert_eq!(a.to_provider(name), c.to_provider(name));
        }
    }

    #[test]
    fn forced_collision_is_resolved() {
        // A provider-valid name equal to what `a.b` derives to: it keeps its
        // name, and `a.b` takes the longer hash.
        let taken = provider_name("a.b");
        let map = check(&["a.b", &taken]);
        assert_eq!(map.to_provider(&taken), Some(taken.as_str()));
        let moved = map.to_provider("a.b").unwrap();
        assert_ne!(moved, taken);
        assert_eq!(moved, derived("a.b", 1));

        // Both the short and the long forms taken: the counter.
        let long = derived("a.b", 1);
        let map = check(&["a.b", &taken, &long]);
        assert_eq!(map.to_provider("a.b"), Some(derived("a.b", 2).as_str()));

        // Duplicates count once.
        let map = check(&["a.b", "a.b", "x"]);
        assert_eq!(map.len(), 2);
    }

    #[test]
    fn empty_map() {
        let map = NameMap::new([]);
        assert!(map.is_empty());
        assert_eq!(map.iter().count(), 0);
        assert_eq!(NameMap::default().to_mcp("x"), None);
    }
}
