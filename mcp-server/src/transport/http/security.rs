//! DNS-rebinding protection: `Host` and `Origin` must name an allowed host.

use http::HeaderMap;

/// Which `Host` and `Origin` values the server accepts.
#[derive(Debug, Clone)]
pub(crate) struct HostPolicy {
    /// Host names (no port) accepted in `Host` and in `Origin`.
    pub(crate) hosts: Vec<String>,
    /// Full origins (`scheme://host[:port]`) accepted in addition.
    pub(crate) origins: Vec<String>,
    /// Accept any host (when the operator opts out, e.g. behind a proxy that checks).
    pub(crate) any_host: bool,
}

impl Default for HostPolicy {
    fn default() -> Self {
        HostPolicy {
            hosts: vec!["localhost".into(), "127.0.0.1".into(), "[::1]".into()],
            origins: Vec::new(),
            any_host: false,
        }
    }
}

/// The host part of `host[:port]` (IPv6 literals keep their brackets).
fn host_of(authority: &str) -> &str {
    if authority.starts_with('[') {
        return match authority.find(']') {
            Some(end) => &authority[..=end],
            None => authority,
        };
    }
    match authority.rsplit_once(':') {
        Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
        _ => authority,
    }
}

impl HostPolicy {
    fn host_allowed(&self, host: &str) -> bool {
        self.any_host || self.hosts.iter().any(|h| h.eq_ignore_ascii_case(host))
    }

    /// `Ok` or the reason for a 403.
    pub(crate) fn check(&self, headers: &HeaderMap) -> Result<(), String> {
        match headers.get(http::header::HOST).map(|h| h.to_str()) {
            Some(Ok(host)) if self.host_allowed(host_of(host)) => {}
            Some(Ok(host)) => return Err(format!("invalid Host header: {host}")),
            Some(Err(_)) => return Err("invalid Host header".into()),
            // HTTP/2 carries the authority in the URI instead; checked by the caller.
            None => {}
        }
        if let Some(origin) = headers.get(http::header::ORIGIN) {
            let Ok(origin) = origin.to_str() else {
                return Err("invalid Origin header".into());
            };
            if self.origins.iter().any(|o| o.eq_ignore_ascii_case(origin)) {
                return Ok(());
            }
            let authority = origin
                .strip_prefix("http://")
                .or_else(|| origin.strip_prefix("https://"));
            match authority {
                Some(a) if self.host_allowed(host_of(a)) => {}
                _ => return Err(format!("invalid Origin header: {origin}")),
            }
        }
        Ok(())
    }

    /// Checks an HTTP/2 `:authority` (no `Host` header).
    pub(crate) fn check_authority(&self, authority: &str) -> Result<(), String> {
        if self.host_allowed(host_of(authority)) {
            Ok(())
        } else {
            Err(format!("invalid Host: {authority}"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(
                http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                v.parse().unwrap(),
            );
        }
        h
    }

    #[test]
    fn localhost_names_pass_and_others_do_not() {
        let p = HostPolicy::default();
        assert!(p.check(&headers(&[("host", "localhost:3000")])).is_ok());
        assert!(p
            .check(&headers(&[
                ("host", "127.0.0.1:1"),
                ("origin", "http://localhost:5173")
            ]))
            .is_ok());
        assert!(p.check(&headers(&[("host", "[::1]:8080")])).is_ok());
        assert!(p.check(&headers(&[("host", "evil.example.com")])).is_err());
        assert!(p
            .check(&headers(&[
                ("host", "localhost"),
                ("origin", "http://evil.example.com")
            ]))
            .is_err());
        assert!(p
            .check(&headers(&[("host", "localhost"), ("origin", "null")]))
            .is_err());
        assert!(p
            .check(&headers(&[("host", "localhost.evil.com")]))
            .is_err());
        let custom = HostPolicy {
            hosts: vec!["mcp.example.com".into()],
            origins: vec!["https://app.example.com".into()],
            any_host: false,
        };
        assert!(custom
            .check(&headers(&[
                ("host", "mcp.example.com"),
                ("origin", "https://app.example.com")
            ]))
            .is_ok());
    }
}
