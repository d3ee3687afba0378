//! Small statistics helpers.

use std::time::{Duration, Instant};

/// `u64` to `f64`; exact below 2^53, which every count here is.
#[allow(clippy::cast_precision_loss)]
pub(crate) fn to_f64(value: u64) -> f64 {
    value as f64
}

/// The `q` quantile (0.0..=1.0) of sorted samples, nearest rank; zero when
/// there are none.
pub(crate) fn percentile(sorted: &[Duration], q: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let rank = (q * to_f64(sorted.len() as u64)).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// The median of the values (mean of the two middle ones for an even count);
/// NaN when there are none. NaNs in the input are ignored.
pub(crate) fn median(values: impl IntoIterator<Item = f64>) -> f64 {
    let mut values: Vec<f64> = values.into_iter().filter(|v| !v.is_nan()).collect();
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_unstable_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        f64::midpoint(values[mid - 1], values[mid])
    }
}

/// What one phase measured.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Phase {
    /// Completed (and checked) calls.
    pub(crate) calls: u64,
    /// Wall time of the phase.
    pub(crate) elapsed: Duration,
    /// Median round-trip latency, µs.
    pub(crate) p50_us: f64,
    /// 99th percentile round-trip latency, µs.
    pub(crate) p99_us: f64,
    /// Server utime + stime during the phase, in clock ticks.
    pub(crate) cpu_ticks: u64,
}

impl Phase {
    pub(crate) fn calls_per_sec(&self) -> f64 {
        to_f64(self.calls) / self.elapsed.as_secs_f64()
    }

    pub(crate) fn cpu_us_per_call(&self, ticks_per_sec: u64) -> f64 {
        to_f64(self.cpu_ticks) * 1e6 / to_f64(ticks_per_sec) / to_f64(self.calls)
    }
}

/// When a phase stops.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub(crate) calls: u64,
    pub(crate) min: Duration,
    pub(crate) max: Duration,
}

impl Limits {
    /// Whether to issue more requests, `done` having been issued since `start`.
    pub(crate) fn more(&self, done: u64, start: Instant) -> bool {
        let elapsed = start.elapsed();
        (done < self.calls || elapsed < self.min) && elapsed < self.max
    }
}

/// A phase from its measurements; sorts `latencies`.
/// One run's sequential phase and its phase with many calls in flight, as
/// the progress line of the stdio and client modes shows them.
pub(crate) fn two_phases(seq: &Phase, in_flight: &Phase, ticks_per_sec: u64) -> String {
    format!(
        "seq {:>8.0}/s p50 {:>7.1} p99 {:>7.1} µs cpu {:>6.1} µs | in flight {:>8.0}/s p50 {:>7.1} p99 {:>7.1} µs cpu {:>6.1} µs",
        seq.calls_per_sec(),
        seq.p50_us,
        seq.p99_us,
        seq.cpu_us_per_call(ticks_per_sec),
        in_flight.calls_per_sec(),
        in_flight.p50_us,
        in_flight.p99_us,
        in_flight.cpu_us_per_call(ticks_per_sec),
    )
}

pub(crate) fn phase(
    calls: u64,
    elapsed: Duration,
    latencies: &mut [Duration],
    cpu_ticks: u64,
) -> Phase {
    latencies.sort_unstable();
    Phase {
        calls,
        elapsed,
        p50_us: percentile(latencies, 0.50).as_secs_f64() * 1e6,
        p99_us: percentile(latencies, 0.99).as_secs_f64() * 1e6,
        cpu_ticks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_use_nearest_rank() {
        let samples: Vec<Duration> = (1..=100).map(Duration::from_micros).collect();
        assert_eq!(percentile(&samples, 0.5), Duration::from_micros(50));
        assert_eq!(percentile(&samples, 0.99), Duration::from_micros(99));
        assert_eq!(percentile(&samples[..1], 0.99), Duration::from_micros(1));
        assert_eq!(percentile(&[], 0.5), Duration::ZERO);
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert!((median([3.0, 1.0, 2.0]) - 2.0).abs() < 1e-12);
        assert!((median([4.0, 1.0, 2.0, 3.0]) - 2.5).abs() < 1e-12);
        assert!(median([]).is_nan());
    }
}
