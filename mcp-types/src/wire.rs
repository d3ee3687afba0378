//! Serde helpers for how values look on the wire.

use serde::{Deserialize, Deserializer, Serializer};
use serde_json::Value;

/// Integers within this bound are exact in an IEEE 754 double (2^53).
const EXACT: f64 = 9_007_199_254_740_992.0;

/// Writes an integral `f64` as a JSON integer (`50`, not `50.0`), the way
/// JavaScript and the spec's examples write numbers, so that a number read as
/// `50` is written back as `50`. Other values are written unchanged.
#[allow(clippy::trivially_copy_pass_by_ref)] // serde's `serialize_with` signature
pub(crate) fn number<S: Serializer>(v: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    if v.is_finite() && v.fract() == 0.0 && v.abs() < EXACT {
        #[allow(clippy::cast_possible_truncation)] // integral and below 2^53: exact
        return serializer.serialize_i64(*v as i64);
    }
    serializer.serialize_f64(*v)
}

/// [`number`] for an optional field (used with `skip_serializing_if`).
#[allow(clippy::ref_option)] // serde's `serialize_with` signature
pub(crate) fn opt_number<S: Serializer>(v: &Option<f64>, serializer: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(v) => number(v, serializer),
        None => serializer.serialize_none(),
    }
}

/// Reads a field whose value may be any JSON value, `null` included: a present
/// `null` becomes `Some(Value::Null)` (an absent field stays `None` through
/// `#[serde(default)]`), so it is written back rather than dropped.
pub(crate) fn any_value<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}
