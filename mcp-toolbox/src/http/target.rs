//! From a URL to the checked socket addresses it may be fetched from.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use url::{Host, Url};

use super::address::{canonical, non_public};

/// A host (and maybe a port) that may be reached whatever its addresses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AllowedHost {
    host: Host<String>,
    port: Option<u16>,
}

impl AllowedHost {
    /// `host` as a URL would name it (so `127.1` is `127.0.0.1` and a
    /// name is lower-cased); a host that does not parse matches nothing.
    pub(crate) fn new(host: &str, port: Option<u16>) -> Self {
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        let parsed = if bare.contains(':') {
            Host::parse(&format!("[{bare}]"))
        } else {
            Host::parse(bare)
        };
        let host = parsed.unwrap_or_else(|_| Host::Domain(format!("invalid host {host:?}")));
        AllowedHost { host, port }
    }

    /// `HOST` or `HOST:PORT`, an IPv6 address in brackets (`[::1]:8080`).
    pub(crate) fn parse(spec: &str) -> Result<Self, String> {
        let invalid = || format!("`{spec}` is not HOST or HOST:PORT");
        let (host, port) = if let Some(rest) = spec.strip_prefix('[') {
            let (inside, after) = rest.split_once(']').ok_or_else(invalid)?;
            let port = match after {
                "" => None,
                _ => Some(after.strip_prefix(':').ok_or_else(invalid)?),
            };
            (format!("[{inside}]"), port)
        } else {
            match spec.rsplit_once(':') {
                Some((host, _)) if host.contains(':') => (format!("[{spec}]"), None),
                Some((host, port)) => (host.to_owned(), Some(port)),
                None => (spec.to_owned(), None),
            }
        };
        let port = port
            .map(|p| p.parse::<u16>().map_err(|_| invalid()))
            .transpose()?;
        Host::parse(&host).map_err(|e| format!("`{spec}`: {e}"))?;
        Ok(AllowedHost::new(&host, port))
    }

    fn matches(&self, host: &Host<String>, port: u16) -> bool {
        self.host == *host && self.port.is_none_or(|p| p == port)
    }
}

/// Refuses every scheme but `http` and `https`, and URLs without a host.
pub(crate) fn check_scheme(url: &Url) -> Result<(), String> {
    match url.scheme() {
        "http" | "https" if url.host().is_some() => Ok(()),
        "http" | "https" => Err(format!("refused: {url} has no host")),
        other => Err(format!(
            "refused: only http and https URLs are fetched, not {other}: ({url})"
        )),
    }
}

/// The addresses `url` may be fetched from: every address its host has,
/// each of them public, unless the host (and port) is allowed. The caller
/// connects to these and nothing else.
pub(crate) async fn resolve(
    url: &Url,
    allowed: &[AllowedHost],
    timeout: Duration,
) -> Result<Vec<SocketAddr>, String> {
    check_scheme(url)?;
    let host = url
        .host()
        .map(|h| h.to_owned())
        .ok_or_else(|| format!("refused: {url} has no host"))?;
    let port = url
        .port_or_known_default()
        .ok_or_else(|| format!("refused: {url} has no port"))?;
    let addrs: Vec<SocketAddr> = match &host {
        Host::Ipv4(ip) => vec![SocketAddr::new(IpAddr::V4(*ip), port)],
        Host::Ipv6(ip) => vec![SocketAddr::new(IpAddr::V6(*ip), port)],
        Host::Domain(name) => {
            let lookup = tokio::net::lookup_host((name.as_str(), port));
            match tokio::time::timeout(timeout, lookup).await {
                Ok(Ok(found)) => found.collect(),
                Ok(Err(e)) => return Err(format!("cannot resolve {name}: {e}")),
                Err(_) => return Err(format!("resolving {name} timed out")),
            }
        }
    };
    if addrs.is_empty() {
        return Err(format!("cannot resolve {host}: no addresses"));
    }
    if !allowed.iter().any(|a| a.matches(&host, port)) {
        for addr in &addrs {
            if let Some(reason) = non_public(addr.ip()) {
                return Err(format!(
                    "refused: {host} is {ip}, which is not a public address ({reason}); \
                     only hosts on the allow list may reach such addresses",
                    ip = addr.ip()
                ));
            }
        }
    }
    Ok(addrs
        .into_iter()
        .map(|a| SocketAddr::new(canonical(a.ip()), a.port()))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host_of(url: &str) -> String {
        Url::parse(url).unwrap().host_str().unwrap().to_owned()
    }

    #[test]
    fn numeric_and_short_ipv4_forms_parse_to_the_address_they_mean() {
        for url in [
            "http://2130706433/",
            "http://0x7f000001/",
            "http://0x7f.1/",
            "http://0177.0.0.1/",
            "http://127.1/",
            "http://127.0.1/",
            "http://0x7F.0.0.1/",
        ] {
            assert_eq!(host_of(url), "127.0.0.1", "{url}");
        }
        assert_eq!(host_of("http://[::ffff:127.0.0.1]/"), "[::ffff:7f00:1]");
    }

    #[test]
    fn only_http_and_https_urls_with_a_host_are_accepted() {
        for url in ["http://example.com/", "https://example.com:8443/x?y"] {
            assert!(check_scheme(&Url::parse(url).unwrap()).is_ok(), "{url}");
        }
        for url in [
            "file:///etc/passwd",
            "ftp://example.com/",
            "gopher://example.com/",
            "data:text/plain,hi",
            "javascript:alert(1)",
        ] {
            let error = check_scheme(&Url::parse(url).unwrap()).unwrap_err();
            assert!(error.starts_with("refused"), "{url}: {error}");
        }
    }

    #[tokio::test]
    async fn loopback_in_any_spelling_is_refused_without_an_allow_entry() {
        for url in [
            "http://127.0.0.1/",
            "http://2130706433/",
            "http://0x7f.1/",
            "http://[::1]/",
            "http://[::ffff:127.0.0.1]/",
            "http://0.0.0.0/",
            "http://localhost/",
        ] {
            let error = resolve(&Url::parse(url).unwrap(), &[], Duration::from_secs(5))
                .await
                .unwrap_err();
            assert!(error.contains("not a public address"), "{url}: {error}");
        }
    }

    #[tokio::test]
    async fn an_allow_entry_opens_its_host_and_port_and_nothing_else() {
        let allowed = [AllowedHost::parse("127.0.0.1:8080").unwrap()];
        let t = Duration::from_secs(5);
        let ok = resolve(&Url::parse("http://127.1:8080/").unwrap(), &allowed, t).await;
        assert_eq!(ok.unwrap(), vec!["127.0.0.1:8080".parse().unwrap()]);
        for url in [
            "http://127.0.0.1:8081/",
            "http://127.0.0.2:8080/",
            "http://[::1]:8080/",
        ] {
            assert!(
                resolve(&Url::parse(url).unwrap(), &allowed, t)
                    .await
                    .is_err(),
                "{url}"
            );
        }
        let any_port = [AllowedHost::parse("[::1]").unwrap()];
        let ok = resolve(&Url::parse("http://[::1]:9/").unwrap(), &any_port, t).await;
        assert_eq!(ok.unwrap(), vec!["[::1]:9".parse().unwrap()]);
    }

    #[test]
    fn allow_entries_parse_names_addresses_and_ports() {
        assert_eq!(
            AllowedHost::parse("API.example.com").unwrap(),
            AllowedHost::new("api.example.com", None)
        );
        assert_eq!(
            AllowedHost::parse("localhost:8080").unwrap(),
            AllowedHost::new("localhost", Some(8080))
        );
        assert_eq!(
            AllowedHost::parse("[::1]:80").unwrap(),
            AllowedHost::new("::1", Some(80))
        );
        assert_eq!(
            AllowedHost::parse("::1").unwrap(),
            AllowedHost::new("[::1]", None)
        );
        for bad in ["host:port", "host:70000", "[::1", "[::1]x", "a b"] {
            assert!(AllowedHost::parse(bad).is_err(), "{bad}");
        }
    }
}
