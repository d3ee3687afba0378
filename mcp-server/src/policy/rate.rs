//! Rate limits per caller: on tool calls (an `isError` result saying when
//! to retry; the tool does not run) and on HTTP requests (429 with
//! `Retry-After`). The buckets are governor's keyed limiters (GCRA, lock
//! free per key), one per rate.

use std::fmt;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use super::{CallOutcome, Caller, CallerKeyHook, Middleware, Next};
use crate::common::BoxFuture;
use crate::tool::ToolRequest;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota};
use oxmcp_types::CallToolResult;

/// How many calls, over what time, with how many at once.
///
/// ```
/// use oxmcp_server::policy::Rate;
///
/// let steady = Rate::per_second(10); // 10 at once, then one every 100 ms
/// let bursty = Rate::per_minute(60).burst(20);
/// # let _ = (steady, bursty);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    calls: u32,
    per: Duration,
    burst: Option<u32>,
}

impl Rate {
    /// `calls` a second.
    pub fn per_second(calls: u32) -> Rate {
        Rate::new(calls, Duration::from_secs(1))
    }

    /// `calls` a minute.
    pub fn per_minute(calls: u32) -> Rate {
        Rate::new(calls, Duration::from_secs(60))
    }

    /// `calls` an hour.
    pub fn per_hour(calls: u32) -> Rate {
        Rate::new(calls, Duration::from_secs(3600))
    }

    /// `calls` every `per`.
    pub fn new(calls: u32, per: Duration) -> Rate {
        Rate {
            calls,
            per,
            burst: None,
        }
    }

    /// How many calls may come at once after a quiet spell (default: the
    /// rate's `calls`).
    #[must_use]
    pub fn burst(mut self, calls: u32) -> Rate {
        self.burst = Some(calls);
        self
    }

    /// The quota, or why there is none: `setting` names the rate in the
    /// message.
    fn quota(self, setting: &str) -> Result<Quota, crate::Error> {
        let refuse = |why: String| Err(crate::Error::Config(format!("{setting}: {why}")));
        let Some(calls) = NonZeroU32::new(self.calls) else {
            return refuse(format!(
                "a rate of zero calls per {} ms would refuse every call; give at least 1 (or no limit)",
                self.per.as_millis()
            ));
        };
        if self.per.is_zero() || self.per > Duration::from_secs(24 * 3600) {
            return refuse(format!(
                "a rate over {} ms: give a period above zero and at most a day",
                self.per.as_millis()
            ));
        }
        let Some(burst) = NonZeroU32::new(self.burst.unwrap_or(self.calls)) else {
            return refuse("a burst of zero would refuse every call; give at least 1".to_owned());
        };
        let Some(quota) = Quota::with_period(self.per / calls.get()) else {
            return refuse("the period between calls rounds to zero".to_owned());
        };
        Ok(quota.allow_burst(burst))
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.per.as_secs() {
            1 => write!(f, "{} per second", self.calls),
            60 => write!(f, "{} per minute", self.calls),
            3600 => write!(f, "{} per hour", self.calls),
            _ => write!(f, "{} per {} ms", self.calls, self.per.as_millis()),
        }
    }
}

/// Rate limits per caller, set with
/// [`ServerBuilder::rate_limit`](crate::ServerBuilder::rate_limit): one
/// rate for every tool call, a rate of its own for some tools, and one for
/// the HTTP requests themselves.
///
/// A caller is the access token's subject (with authorization), else the
/// legacy session, else what the [`key`](Self::key) hook says, else on
/// stdio the connection. Callers nothing tells apart (the 2026-07-28 era
/// over HTTP without authorization or a hook) share one budget. Each caller
/// has its own buckets: one caller at its limit never slows another.
///
/// A tool call over its limit is answered with an `isError` result saying
/// when to retry, and the tool does not run; an HTTP request over the
/// [`http_requests`](Self::http_requests) limit is answered 429 with
/// `Retry-After`. The limits hold per instance.
///
/// ```
/// use oxmcp_server::policy::{Rate, RateLimit};
/// use oxmcp_server::Server;
///
/// let server = Server::builder("app", "1.0")
///     .rate_limit(
///         RateLimit::per_caller(Rate::per_second(10))
///             .tool("search", Rate::per_minute(30))
///             .http_requests(Rate::per_second(50))
///             .key(|caller| caller.header("x-api-key").map(str::to_owned)),
///     )
///     .build();
/// # let _ = server;
/// ```
#[derive(Clone)]
pub struct RateLimit {
    calls: Option<Rate>,
    tools: Vec<(String, Rate)>,
    http: Option<Rate>,
    key: Option<Arc<CallerKeyHook>>,
}

impl fmt::Debug for RateLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RateLimit")
            .field("calls", &self.calls)
            .field("tools", &self.tools)
            .field("http", &self.http)
            .field("key", &self.key.is_some())
            .finish()
    }
}

impl RateLimit {
    /// Every tool call, at most `rate` per caller.
    pub fn per_caller(rate: Rate) -> RateLimit {
        RateLimit {
            calls: Some(rate),
            ..RateLimit::none()
        }
    }

    /// No limit on calls in general (add [`tool`](Self::tool) or
    /// [`http_requests`](Self::http_requests) limits).
    pub fn none() -> RateLimit {
        RateLimit {
            calls: None,
            tools: Vec::new(),
            http: None,
            key: None,
        }
    }

    /// Calls of tool `name` get a budget of their own, `rate` per caller
    /// (instead of the general one).
    #[must_use]
    pub fn tool(mut self, name: impl Into<String>, rate: Rate) -> RateLimit {
        self.tools.push((name.into(), rate));
        self
    }

    /// HTTP requests (every method and message) are limited too, `rate`
    /// per caller, and answered 429 with `Retry-After` beyond it.
    #[must_use]
    pub fn http_requests(mut self, rate: Rate) -> RateLimit {
        self.http = Some(rate);
        self
    }

    /// Tells callers apart where the token and the session do not.
    #[must_use]
    pub fn key(mut self, hook: impl Fn(&Caller) -> Option<String> + Send + Sync + 'static) -> Self {
        self.key = Some(Arc::new(hook));
        self
    }

    /// The limiters, or why the limits are refused.
    pub(crate) fn build(self) -> Result<Limiters, crate::Error> {
        let calls = self
            .calls
            .map(|rate| Bucket::new(rate, "rate_limit: the rate of every tool call"))
            .transpose()?;
        let mut tools = Vec::with_capacity(self.tools.len());
        for (name, rate) in self.tools {
            if tools.iter().any(|(n, _): &(String, Bucket)| *n == name) {
                return Err(crate::Error::Config(format!(
                    "rate_limit: tool `{name}` is given two rates; keep one"
                )));
            }
            let bucket = Bucket::new(rate, &format!("rate_limit: the rate of tool `{name}`"))?;
            tools.push((name, bucket));
        }
        let http = self
            .http
            .map(|rate| Bucket::new(rate, "rate_limit: the rate of HTTP requests"))
            .transpose()?;
        Ok(Limiters {
            calls,
            tools,
            http,
            key: self.key,
        })
    }
}

/// One rate's buckets, one per caller.
struct Bucket {
    rate: Rate,
    limiter: DefaultKeyedRateLimiter<String>,
}

impl Bucket {
    fn new(rate: Rate, setting: &str) -> Result<Bucket, crate::Error> {
        let quota = rate.quota(setting)?;
        Ok(Bucket {
            rate,
            limiter: DefaultKeyedRateLimiter::keyed(quota),
        })
    }

    /// Takes a call from `caller`'s bucket, or says how long until one is free.
    fn take(&self, caller: &str) -> Result<(), Duration> {
        // Forget callers whose buckets are full again, so the map stays
        // bounded by the active ones.
        if self.limiter.len() > 10_000 {
            self.limiter.retain_recent();
        }
        self.limiter
            .check_key(&caller.to_owned())
            .map_err(|not_until| not_until.wait_time_from(DefaultClock::default().now()))
    }
}

/// The limits as the server applies them.
pub(crate) struct Limiters {
    calls: Option<Bucket>,
    tools: Vec<(String, Bucket)>,
    http: Option<Bucket>,
    key: Option<Arc<CallerKeyHook>>,
}

impl fmt::Debug for Limiters {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Limiters").finish_non_exhaustive()
    }
}

/// Whom a caller nothing tells apart counts as.
const ANONYMOUS: &str = "anonymous";

impl Limiters {
    /// Whether tool calls are limited (else only HTTP requests are).
    pub(crate) fn limits_calls(&self) -> bool {
        self.calls.is_some() || !self.tools.is_empty()
    }

    /// Whether HTTP requests are limited.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn limits_requests(&self) -> bool {
        self.http.is_some()
    }

    /// Takes a call of tool `name` by `caller`, or answers it.
    fn admit_call(&self, name: &str, caller: &Caller) -> Result<(), CallToolResult> {
        let bucket = match self.tools.iter().find(|(n, _)| n == name) {
            Some((_, bucket)) => bucket,
            None => match &self.calls {
                Some(bucket) => bucket,
                None => return Ok(()),
            },
        };
        let who = caller.owner(self.key.as_deref());
        bucket
            .take(who.as_deref().unwrap_or(ANONYMOUS))
            .map_err(|wait| {
                CallToolResult::error(format!(
                    "rate limit: tool `{name}` takes at most {} from one caller; retry in {} ms",
                    bucket.rate,
                    wait.as_millis().max(1)
                ))
            })
    }

    /// Takes an HTTP request by `caller` (built from the request), or says
    /// how long until one is free.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn admit_request(&self, caller: &Caller) -> Result<(), Duration> {
        let Some(bucket) = &self.http else {
            return Ok(());
        };
        let who = caller.owner(self.key.as_deref());
        bucket.take(who.as_deref().unwrap_or(ANONYMOUS))
    }
}

/// The limits on tool calls, as a middleware (inside the builder's layers).
pub(crate) struct CallLimit(pub(crate) Arc<Limiters>);

impl Middleware for CallLimit {
    fn call(&self, call: ToolRequest, next: Next) -> BoxFuture<'static, CallOutcome> {
        match self.0.admit_call(&call.name, &call.caller) {
            Ok(()) => next.run(call),
            Err(answer) => Box::pin(async move { Ok(answer) }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_rates_and_bursts_are_refused_naming_the_setting() {
        let refused = |limit: RateLimit| limit.build().unwrap_err().to_string();
        let e = refused(RateLimit::per_caller(Rate::per_second(0)));
        assert!(
            e.contains("the rate of every tool call: a rate of zero"),
            "{e}"
        );
        let e = refused(RateLimit::none().tool("search", Rate::per_minute(5).burst(0)));
        assert!(
            e.contains("the rate of tool `search`: a burst of zero"),
            "{e}"
        );
        let e = refused(RateLimit::none().http_requests(Rate::new(3, Duration::ZERO)));
        assert!(
            e.contains("the rate of HTTP requests: a rate over 0 ms"),
            "{e}"
        );
        let e = refused(
            RateLimit::none()
                .tool("a", Rate::per_second(1))
                .tool("a", Rate::per_second(2)),
        );
        assert!(e.contains("tool `a` is given two rates"), "{e}");
    }

    #[test]
    fn each_caller_has_its_own_bucket() {
        let limits = RateLimit::per_caller(Rate::per_second(2)).build().unwrap();
        let bucket = limits.calls.as_ref().unwrap();
        assert!(bucket.take("a").is_ok());
        assert!(bucket.take("a").is_ok());
        assert!(bucket.take("b").is_ok(), "callers are separate");
        let wait = bucket.take("a").unwrap_err();
        assert!(wait <= Duration::from_millis(500), "{wait:?}");
    }
}
