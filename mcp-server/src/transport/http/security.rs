//! DNS-rebinding protection: `Host` and `Origin` must name an allowed host
//! (`Origin` from the explicit lists only).

use http::{HeaderMap, StatusCode, Uri, Version};

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
    /// Whether `Host` (or the request's authority) may name `host`.
    fn host_allowed(&self, host: &str) -> bool {
        self.any_host || self.listed(host)
    }

    /// Whether `host` is one of the hosts listed (never "any").
    fn listed(&self, host: &str) -> bool {
        self.hosts.iter().any(|h| h.eq_ignore_ascii_case(host))
    }

    /// Checks where a request says it is going. `Err` carries the status
    /// (400 for a request that names its host ambiguously, 403 for a host or
    /// origin that is not allowed) and the reason.
    pub(crate) fn check(
        &self,
        version: Version,
        uri: &Uri,
        headers: &HeaderMap,
    ) -> Result<(), (StatusCode, String)> {
        let forbidden = |reason: String| Err((StatusCode::FORBIDDEN, reason));
        // RFC 9112 §3.2: exactly one Host in HTTP/1.1, at most one otherwise.
        let mut hosts = headers.get_all(http::header::HOST).iter();
        let host = hosts.next();
        if hosts.next().is_some() {
            return Err((StatusCode::BAD_REQUEST, "more than one Host header".into()));
        }
        if host.is_none() && version == Version::HTTP_11 {
            return Err((
                StatusCode::BAD_REQUEST,
                "an HTTP/1.1 request must have a Host header".into(),
            ));
        }
        // An absolute-form target (RFC 9112 §3.2.2) or HTTP/2's :authority
        // is where the request goes, whatever Host says; both must pass.
        if let Some(authority) = uri.authority() {
            if !self.host_allowed(host_of(authority.as_str())) {
                return forbidden(format!("invalid Host: {authority}"));
            }
        }
        match host.map(|h| h.to_str()) {
            Some(Ok(h)) if self.host_allowed(host_of(h)) => {}
            Some(Ok(h)) => return forbidden(format!("invalid Host header: {h}")),
            Some(Err(_)) => return forbidden("invalid Host header".into()),
            None => {}
        }
        let mut origins = headers.get_all(http::header::ORIGIN).iter();
        if let Some(origin) = origins.next() {
            if origins.next().is_some() {
                return Err((
                    StatusCode::BAD_REQUEST,
                    "more than one Origin header".into(),
                ));
            }
            let Ok(origin) = origin.to_str() else {
                return forbidden("invalid Origin header".into());
            };
            if self.origins.iter().any(|o| o.eq_ignore_ascii_case(origin)) {
                return Ok(());
            }
            let authority = origin
                .strip_prefix("http://")
                .or_else(|| origin.strip_prefix("https://"));
            // An Origin is what a browser says the page came from: the
            // explicit lists decide, never `any_host` (which only says that
            // a proxy in front checks Host). A DNS-rebinding page sends
            // both Host and Origin with the attacker's name.
            match authority {
                Some(a) if self.listed(host_of(a)) => {}
                _ => return forbidden(format!("invalid Origin header: {origin}")),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(
                http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                v.parse().unwrap(),
            );
        }
        h
    }

    impl HostPolicy {
        fn check_headers(&self, headers: &HeaderMap) -> Result<(), (StatusCode, String)> {
            self.check(Version::HTTP_11, &Uri::from_static("/mcp"), headers)
        }
    }

    #[test]
    fn localhost_names_pass_and_others_do_not() {
        let p = HostPolicy::default();
        assert!(p
            .check_headers(&headers(&[("host", "localhost:3000")]))
            .is_ok());
        assert!(p
            .check_headers(&headers(&[
                ("host", "127.0.0.1:1"),
                ("origin", "http://localhost:5173")
            ]))
            .is_ok());
        assert!(p.check_headers(&headers(&[("host", "[::1]:8080")])).is_ok());
        assert!(p
            .check_headers(&headers(&[("host", "evil.example.com")]))
            .is_err());
        assert!(p
            .check_headers(&headers(&[
                ("host", "localhost"),
                ("origin", "http://evil.example.com")
            ]))
            .is_err());
        assert!(p
            .check_headers(&headers(&[("host", "localhost"), ("origin", "null")]))
            .is_err());
        assert!(p
            .check_headers(&headers(&[("host", "localhost.evil.com")]))
            .is_err());
        let custom = HostPolicy {
            hosts: vec!["mcp.example.com".into()],
            origins: vec!["https://app.example.com".into()],
            any_host: false,
        };
        assert!(custom
            .check_headers(&headers(&[
                ("host", "mcp.example.com"),
                ("origin", "https://app.example.com")
            ]))
            .is_ok());
    }

    #[test]
    fn any_host_never_widens_origin() {
        let p = HostPolicy {
            any_host: true,
            ..HostPolicy::default()
        };
        let status = |r: Result<(), (StatusCode, String)>| r.map_err(|(s, _)| s);
        assert_eq!(
            status(p.check_headers(&headers(&[("host", "evil.example")]))),
            Ok(()),
            "any Host passes"
        );
        assert_eq!(
            status(p.check_headers(&headers(&[
                ("host", "evil.example"),
                ("origin", "http://evil.example")
            ]))),
            Err(StatusCode::FORBIDDEN),
            "a rebinding page's Origin does not"
        );
        assert_eq!(
            status(p.check_headers(&headers(&[
                ("host", "evil.example"),
                ("origin", "http://localhost:5173")
            ]))),
            Ok(())
        );
    }

    #[test]
    fn the_host_must_be_named_once_and_everywhere_allowed() {
        let p = HostPolicy::default();
        let status = |r: Result<(), (StatusCode, String)>| r.map_err(|(s, _)| s);
        assert_eq!(
            status(p.check_headers(&headers(&[]))),
            Err(StatusCode::BAD_REQUEST)
        );
        assert_eq!(
            status(p.check(Version::HTTP_10, &Uri::from_static("/mcp"), &headers(&[]))),
            Ok(())
        );
        assert_eq!(
            status(p.check_headers(&headers(&[("host", "localhost"), ("host", "evil.example")]))),
            Err(StatusCode::BAD_REQUEST)
        );
        let absolute = Uri::from_static("http://evil.example/mcp");
        assert_eq!(
            status(p.check(
                Version::HTTP_11,
                &absolute,
                &headers(&[("host", "localhost")])
            )),
            Err(StatusCode::FORBIDDEN)
        );
        let h2 = Uri::from_static("http://localhost:3000/mcp");
        assert_eq!(status(p.check(Version::HTTP_2, &h2, &headers(&[]))), Ok(()));
    }
}
