//! When to retry a request and how long to wait first: rate limits (429),
//! overloads (Anthropic's 529, 503) are retried, after the wait the provider
//! asked for (`retry-after-ms`, `Retry-After` in seconds or as an HTTP date)
//! or else an exponential backoff from 500 ms.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use http::HeaderMap;

/// The first backoff when the provider gave no `Retry-After`; it doubles with
/// each retry.
const FIRST_BACKOFF: Duration = Duration::from_millis(500);

/// How many times and how long a request may be retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RetryPolicy {
    /// Retries after the first attempt.
    pub(crate) max_retries: u32,
    /// The longest single wait; a provider asking for more is not waited for.
    pub(crate) max_wait: Duration,
}

/// Whether an HTTP status is worth retrying: rate limited (429), unavailable
/// (503), overloaded (Anthropic's 529).
pub(crate) fn is_retryable(status: u16) -> bool {
    matches!(status, 429 | 503 | 529)
}

impl RetryPolicy {
    /// How long to wait before retrying after `attempt` failed attempts
    /// (1 for the first) ended in `status`; `None` means give up.
    pub(crate) fn delay(
        &self,
        status: u16,
        attempt: u32,
        retry_after: Option<Duration>,
    ) -> Option<Duration> {
        if !is_retryable(status) || attempt > self.max_retries {
            return None;
        }
        match retry_after {
            Some(wait) if wait > self.max_wait => None,
            Some(wait) => Some(wait),
            None => Some(backoff(attempt, self.max_wait)),
        }
    }
}

/// 500 ms, 1 s, 2 s, ... for attempts 1, 2, 3, ..., at most `cap` (and a
/// day), each scaled by a random factor in [0.5, 1] so that clients limited
/// together do not retry together.
fn backoff(attempt: u32, cap: Duration) -> Duration {
    let doubled = 2u32
        .checked_pow(attempt.saturating_sub(1))
        .and_then(|factor| FIRST_BACKOFF.checked_mul(factor))
        .unwrap_or(Duration::MAX)
        .min(cap)
        .min(Duration::from_secs(86_400));
    let random = RandomState::new().build_hasher().finish();
    let fraction = f64::from(u32::try_from(random >> 32).unwrap_or(0)) / f64::from(u32::MAX);
    doubled.mul_f64(0.5 + fraction / 2.0)
}

/// The wait the provider asked for: `retry-after-ms` (api.openai.com), else
/// `Retry-After` as (possibly fractional) seconds or as an HTTP date (a date
/// in the past means no wait).
pub(crate) fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(wait) = header("retry-after-ms").and_then(|ms| seconds(ms, 1000.0)) {
        return Some(wait);
    }
    let value = header("retry-after")?;
    seconds(value, 1.0).or_else(|| {
        let at = http_date(value)?;
        Some(at.duration_since(now).unwrap_or(Duration::ZERO))
    })
}

/// A non-negative decimal number of `1/scale` seconds.
fn seconds(text: &str, scale: f64) -> Option<Duration> {
    let value: f64 = text.parse().ok()?;
    if !value.is_finite() || value < 0.0 {
        return None;
    }
    Duration::try_from_secs_f64(value / scale).ok()
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the HTTP date format
/// servers send.
fn http_date(text: &str) -> Option<SystemTime> {
    let (_weekday, rest) = text.split_once(", ")?;
    let parts: Vec<&str> = rest.split(' ').collect();
    let [day, month, year, time, "GMT"] = parts.as_slice() else {
        return None;
    };
    if day.len() != 2 || year.len() != 4 {
        return None;
    }
    let day: u32 = day.parse().ok()?;
    let month = u32::try_from(MONTHS.iter().position(|m| m == month)? + 1).ok()?;
    let year: i64 = year.parse().ok()?;
    let hms: Vec<u64> = time
        .split(':')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    let [hour, minute, second] = hms.as_slice() else {
        return None;
    };
    if !(1..=31).contains(&day) || *hour > 23 || *minute > 59 || *second > 60 {
        return None;
    }
    let days = u64::try_from(days_since_epoch(year, month, day)).ok()?;
    let secs = days * 86_400 + hour * 3600 + minute * 60 + second;
    UNIX_EPOCH.checked_add(Duration::from_secs(secs))
}

/// Days from 1970-01-01 to a date of the proleptic Gregorian calendar
/// (Howard Hinnant's `days_from_civil`).
fn days_since_epoch(year: i64, month: u32, day: u32) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year.rem_euclid(400);
    let month_from_march = i64::from((month + 9) % 12);
    let day_of_year = (153 * month_from_march + 2) / 5 + i64::from(day) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn parses_retry_after_forms() {
        let now = UNIX_EPOCH + Duration::from_secs(784_111_770); // Sun, 06 Nov 1994 08:49:30 GMT
        let wait = |pairs| retry_after(&headers(pairs), now);
        assert_eq!(wait(&[("retry-after", "7")]), Some(Duration::from_secs(7)));
        assert_eq!(
            wait(&[("retry-after", "1.5")]),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            wait(&[("retry-after", "3"), ("retry-after-ms", "250")]),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            wait(&[("retry-after", "Sun, 06 Nov 1994 08:49:37 GMT")]),
            Some(Duration::from_secs(7))
        );
        assert_eq!(
            wait(&[("retry-after", "Sat, 05 Nov 1994 08:49:37 GMT")]),
            Some(Duration::ZERO)
        );
        assert_eq!(wait(&[("retry-after", "-1")]), None);
        assert_eq!(wait(&[("retry-after", "soon")]), None);
        assert_eq!(
            wait(&[("retry-after", "Sun, 06 Nov 1994 25:49:37 GMT")]),
            None
        );
        assert_eq!(wait(&[]), None);
        let huge = "Sun, 06 Nov 99999999999999999 08:49:37 GMT";
        assert_eq!(wait(&[("retry-after", huge)]), None);
    }

    #[test]
    fn dates_count_from_the_epoch() {
        assert_eq!(days_since_epoch(1970, 1, 1), 0);
        assert_eq!(days_since_epoch(2000, 3, 1), 11_017);
        assert_eq!(http_date("Thu, 01 Jan 1970 00:00:00 GMT"), Some(UNIX_EPOCH));
    }

    #[test]
    fn delays_follow_the_policy() {
        let policy = RetryPolicy {
            max_retries: 2,
            max_wait: Duration::from_secs(60),
        };
        assert_eq!(policy.delay(500, 1, None), None);
        assert_eq!(
            policy.delay(429, 1, Some(Duration::ZERO)),
            Some(Duration::ZERO)
        );
        assert_eq!(policy.delay(529, 3, Some(Duration::ZERO)), None);
        assert_eq!(policy.delay(503, 1, Some(Duration::from_secs(61))), None);
        let first = policy.delay(429, 1, None).unwrap();
        assert!(first >= Duration::from_millis(250) && first <= Duration::from_millis(500));
        let second = policy.delay(429, 2, None).unwrap();
        assert!(second >= Duration::from_millis(500) && second <= Duration::from_secs(1));
        assert!(backoff(40, Duration::MAX) <= Duration::from_secs(86_400));
    }
}
