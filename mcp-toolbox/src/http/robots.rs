//! robots.txt as RFC 9309 reads it (groups by `User-agent`, `Allow` and
//! `Disallow` rules with `*` and `$`, the longest match deciding), and the
//! reference fetch server's check before an autonomous fetch.

use bytes::Bytes;
use http::header::HeaderMap;
use http::Method;
use url::{Position, Url};

use super::client::{self, Limits, Request};

/// The most bytes of a robots.txt read (the rest is ignored, as RFC 9309
/// allows past 500 KiB).
pub(crate) const MAX_ROBOTS_BYTES: usize = 512 * 1024;

/// The most characters of a robots.txt quoted in a refusal.
const QUOTED_CHARS: usize = 10_000;

/// The reference's `check_may_autonomously_fetch_url`: fetches
/// `{scheme}://{host}[:{port}]/robots.txt` through the checked client
/// (same address rules, redirects and time limit; at most
/// [`MAX_ROBOTS_BYTES`]) and refuses with the reference's texts when it
/// forbids `url` to our user agent. 401 and 403 forbid, other 4xx allow,
/// any other answer is parsed (as the reference does); a failed request
/// is an error. URLs that are not `http` or `https` are left to the fetch
/// itself to refuse.
pub(crate) async fn check(limits: &Limits, url: &Url) -> Result<(), String> {
    if !matches!(url.scheme(), "http" | "https") || url.cannot_be_a_base() {
        return Ok(());
    }
    let mut robots_url = url.clone();
    robots_url.set_path("/robots.txt");
    robots_url.set_query(None);
    robots_url.set_fragment(None);
    let request = Request {
        method: Method::GET,
        url: robots_url.clone(),
        headers: HeaderMap::new(),
        body: Bytes::new(),
    };
    let cap = MAX_ROBOTS_BYTES.min(limits.max_response_bytes);
    let response = client::send_capped(limits, request, cap)
        .await
        .map_err(|e| {
            format!("Failed to fetch robots.txt {robots_url} due to a connection issue: {e}")
        })?;
    let status = response.status.as_u16();
    if matches!(status, 401 | 403) {
        return Err(format!(
            "When fetching robots.txt ({robots_url}), received status {status} so assuming that autonomous fetching is not allowed, the user can try fetching the page themselves"
        ));
    }
    if (400..500).contains(&status) {
        return Ok(());
    }
    let mut text = String::from_utf8_lossy(&response.body).into_owned();
    if response.truncated {
        // The last line may be cut short: drop it.
        text.truncate(text.rfind('\n').unwrap_or(0));
    }
    let path = &url[Position::BeforePath..Position::AfterQuery];
    if Robots::parse(&text).allows(&limits.user_agent, path) {
        return Ok(());
    }
    let mut quoted: String = text.chars().take(QUOTED_CHARS).collect();
    if quoted.len() < text.len() {
        quoted.push_str("\n(cut)");
    }
    Err(format!(
        "The sites robots.txt ({robots_url}), specifies that autonomous fetching of this page is not allowed, \
         <useragent>{agent}</useragent>\n\
         <url>{url}</url>\
         <robots>\n{quoted}\n</robots>\n\
         The assistant must let the user know that it failed to view the page. The assistant may provide further guidance based on the above information.\n\
         The assistant can tell the user that they can try fetching the page themselves.",
        agent = limits.user_agent
    ))
}

/// A parsed robots.txt: its groups in order.
#[derive(Debug, Default)]
pub(crate) struct Robots {
    groups: Vec<Group>,
}

#[derive(Debug, Default)]
struct Group {
    /// The `User-agent` tokens, lower-cased (`*` for any agent).
    agents: Vec<String>,
    rules: Vec<Rule>,
}

#[derive(Debug)]
struct Rule {
    allow: bool,
    /// The path pattern, percent-encoded as URLs are.
    pattern: Vec<u8>,
}

impl Robots {
    /// Parses `text` leniently: unknown lines, comments and rules before
    /// the first `User-agent` are ignored; an empty file allows everything.
    pub(crate) fn parse(text: &str) -> Robots {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut groups: Vec<Group> = Vec::new();
        // Whether the current group has had a rule (so a `User-agent`
        // line now starts a new group rather than joining it).
        let mut in_rules = true;
        for line in text.split(['\n', '\r']) {
            let line = line.split('#').next().unwrap_or_default();
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            let key = key.trim().to_ascii_lowercase();
            let value = value.trim();
            match key.as_str() {
                "user-agent" | "useragent" | "user agent" => {
                    if in_rules || groups.is_empty() {
                        groups.push(Group::default());
                        in_rules = false;
                    }
                    let token = agent_token(value);
                    if !token.is_empty() {
                        if let Some(group) = groups.last_mut() {
                            group.agents.push(token);
                        }
                    }
                }
                "allow" | "disallow" => {
                    let Some(group) = groups.last_mut() else {
                        continue;
                    };
                    in_rules = true;
                    if !value.is_empty() {
                        group.rules.push(Rule {
                            allow: key == "allow",
                            pattern: normalize(value),
                        });
                    }
                }
                _ => {}
            }
        }
        Robots { groups }
    }

    /// Whether `user_agent` (a whole `User-Agent` header) may fetch `path`
    /// (the URL's path and query, percent-encoded). The groups that apply
    /// are those whose `User-agent` is our product token (before the first
    /// `/` or space, any case), else those for `*`.
    pub(crate) fn allows(&self, user_agent: &str, path: &str) -> bool {
        if path == "/robots.txt" {
            return true;
        }
        let product = agent_token(user_agent);
        // The groups naming our product token (all of them, merged), else
        // those for `*`.
        let names = |g: &&Group, token: &str| g.agents.iter().any(|a| a == token);
        let token = if self.groups.iter().any(|g| names(&g, &product)) {
            product.as_str()
        } else {
            "*"
        };
        let chosen: Vec<&Group> = self.groups.iter().filter(|g| names(g, token)).collect();
        let path = normalize(path);
        // The longest matching pattern decides; on a tie, Allow wins.
        let mut verdict: Option<(usize, bool)> = None;
        for rule in chosen.iter().flat_map(|g| &g.rules) {
            if matches(&rule.pattern, &path) {
                let candidate = (rule.pattern.len(), rule.allow);
                verdict = verdict.max(Some(candidate));
            }
        }
        verdict.is_none_or(|(_, allow)| allow)
    }
}

/// The product token of a `User-Agent` value or robots.txt line,
/// lower-cased: `mcp-toolbox/1.0 (…)` is `oxmcp-toolbox`.
fn agent_token(agent: &str) -> String {
    agent
        .trim()
        .split(|c: char| c == '/' || c.is_whitespace())
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase()
}

/// Percent-encodes what URLs encode (non-ASCII, controls, spaces) and
/// upper-cases existing escapes, so patterns and paths compare alike.
fn normalize(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'%' && i + 2 < bytes.len() {
            let (h, l) = (bytes[i + 1], bytes[i + 2]);
            if h.is_ascii_hexdigit() && l.is_ascii_hexdigit() {
                out.extend_from_slice(&[b'%', h.to_ascii_uppercase(), l.to_ascii_uppercase()]);
                i += 3;
                continue;
            }
        }
        if b >= 0x80 || b <= b' ' || b == 0x7f {
            out.extend_from_slice(format!("%{b:02X}").as_bytes());
        } else {
            out.push(b);
        }
        i += 1;
    }
    out
}

/// Whether `pattern` matches the start of `path`: `*` is any run of
/// bytes, a final `$` anchors the end.
fn matches(pattern: &[u8], path: &[u8]) -> bool {
    let (pattern, anchored) = match pattern.strip_suffix(b"$") {
        Some(p) => (p, true),
        None => (pattern, false),
    };
    // Glob matching with one backtrack point: linear in practice, at
    // worst pattern × path.
    let (mut p, mut s) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    loop {
        if p == pattern.len() && (!anchored || s == path.len()) {
            return true;
        }
        if p < pattern.len() && pattern[p] == b'*' {
            star = Some((p, s));
            p += 1;
            continue;
        }
        if p < pattern.len() && s < path.len() && pattern[p] == path[s] {
            p += 1;
            s += 1;
            continue;
        }
        match star {
            Some((sp, ss)) if ss < path.len() => {
                star = Some((sp, ss + 1));
                p = sp + 1;
                s = ss + 1;
            }
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const UA: &str = "oxmcp-toolbox/0.1.0 (Autonomous; MCP http toolbox)";

    fn allows(robots: &str, path: &str) -> bool {
        Robots::parse(robots).allows(UA, path)
    }

    #[test]
    fn a_missing_or_empty_file_allows_everything() {
        assert!(allows("", "/anything"));
        assert!(allows("\n\n# only a comment\n", "/anything"));
        assert!(allows("Sitemap: https://a.example/s.xml\n", "/"));
        // Rules before any User-agent belong to no group.
        assert!(allows("Disallow: /\n", "/x"));
        // An empty Disallow allows.
        assert!(allows("User-agent: *\nDisallow:\n", "/x"));
    }

    #[test]
    fn disallow_is_a_prefix_and_the_longest_match_wins_allow_on_ties() {
        let robots = "User-agent: *\nDisallow: /private\nAllow: /private/public\n";
        assert!(!allows(robots, "/private"));
        assert!(!allows(robots, "/private/x?y=1"));
        assert!(!allows(robots, "/privately"));
        assert!(allows(robots, "/private/public/page"));
        assert!(allows(robots, "/other"));
        let robots = "User-agent: *\nAllow: /page\nDisallow: /\n";
        assert!(allows(robots, "/page.html"));
        assert!(!allows(robots, "/other"));
        let tie = "User-agent: *\nDisallow: /same\nAllow: /same\n";
        assert!(allows(tie, "/same"));
        assert!(!allows("User-agent: *\nDisallow: /\n", "/"));
        // robots.txt itself is always allowed.
        assert!(allows("User-agent: *\nDisallow: /\n", "/robots.txt"));
    }

    #[test]
    fn wildcards_match_any_run_and_dollar_anchors_the_end() {
        let robots = "User-agent: *\nDisallow: /*.pdf$\nDisallow: /a*/secret\n";
        assert!(!allows(robots, "/docs/file.pdf"));
        assert!(allows(robots, "/docs/file.pdf?download=1"));
        assert!(allows(robots, "/docs/file.pdfx"));
        assert!(!allows(robots, "/abc/def/secret/x"));
        assert!(!allows(robots, "/a/secret"));
        assert!(allows(robots, "/b/secret"));
        let end = "User-agent: *\nDisallow: /$\n";
        assert!(!allows(end, "/"));
        assert!(allows(end, "/x"));
        // `*` in a longer pattern counts toward its length.
        let robots = "User-agent: *\nDisallow: /*/private\nAllow: /shop\n";
        assert!(!allows(robots, "/shop/private"));
        assert!(allows(robots, "/shop/open"));
        // Many stars stay cheap.
        let stars = format!("User-agent: *\nDisallow: /{}b\n", "*a".repeat(200));
        assert!(allows(&stars, &format!("/{}", "a".repeat(5000))));
    }

    #[test]
    fn the_most_specific_agent_group_applies_else_the_star_group() {
        let robots = "User-agent: *\nDisallow: /\n\n\
                      User-agent: mcp\nDisallow: /mcp-only\n\n\
                      User-agent: OxMCP-Toolbox\nDisallow: /ours\n";
        // Ours names our product token exactly: the star group and the
        // `mcp` one (a mere prefix) do not apply.
        assert!(allows(robots, "/anything"));
        assert!(allows(robots, "/mcp-only"));
        assert!(!allows(robots, "/ours"));
        // Another agent falls back to `*`.
        let other = Robots::parse(robots);
        assert!(!other.allows("SomeBot/2.0", "/anything"));
        // Only the star group: it applies to us.
        assert!(!allows("User-agent: *\nDisallow: /x\n", "/x/y"));
        // A group for another agent only: we are unrestricted.
        assert!(allows("User-agent: googlebot\nDisallow: /\n", "/x"));
        // A version in the line is ignored, case too.
        assert!(!allows("User-agent: Oxmcp-Toolbox/9\nDisallow: /\n", "/x"));
        // A prefix or another word of our User-Agent is not our token.
        assert!(allows("User-agent: mcp\nDisallow: /\n", "/x"));
        assert!(allows("User-agent: Autonomous\nDisallow: /\n", "/x"));
        assert!(!allows(
            "User-agent: mcp\nDisallow: /\nUser-agent: *\nDisallow: /y\n",
            "/y"
        ));
        // The configured agent is matched the same way.
        let custom = Robots::parse("User-agent: MyBot\nDisallow: /\n");
        assert!(!custom.allows("mybot/2.1 (+https://example.com)", "/x"));
        assert!(custom.allows("OtherBot", "/x"));
    }

    #[test]
    fn groups_share_rules_across_consecutive_agent_lines_and_merge_by_name() {
        let robots = "User-agent: a\nUser-agent: oxmcp-toolbox\nDisallow: /one # comment\n\
                      Crawl-delay: 5\nDisallow: /two\n\
                      User-agent: b\nDisallow: /three\n\
                      user-agent: oxmcp-toolbox\r\ndisallow: /four\r\n";
        assert!(!allows(robots, "/one"));
        assert!(!allows(robots, "/two"));
        assert!(allows(robots, "/three"));
        assert!(!allows(robots, "/four"));
        assert!(!Robots::parse(robots).allows("a", "/one"));
        assert!(Robots::parse(robots).allows("a", "/four"));
    }

    #[test]
    fn paths_and_patterns_compare_percent_encoded() {
        let robots = "User-agent: *\nDisallow: /caf\u{e9}\nDisallow: /a%2fb\n";
        assert!(!allows(robots, "/caf%C3%A9/menu"));
        assert!(!allows(robots, "/a%2Fb"));
        assert!(allows(robots, "/cafe"));
    }
}
