//! Protocol revisions and version negotiation.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A protocol revision this crate speaks.
///
/// The first four are the legacy (handshake) era; [`ProtocolVersion::V2026_07_28`]
/// is the stateless modern era.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum ProtocolVersion {
    /// 2024-11-05: the first release (stdio and HTTP+SSE).
    V2024_11_05,
    /// 2025-03-26: Streamable HTTP, batching, tool annotations, audio.
    V2025_03_26,
    /// 2025-06-18: structured content, output schemas, elicitation; no batching.
    V2025_06_18,
    /// 2025-11-25: the last handshake revision (icons, SEP-1303, SSE priming).
    V2025_11_25,
    /// 2026-07-28: stateless; `server/discover`, `_meta` protocol fields, `resultType`.
    V2026_07_28,
}

impl ProtocolVersion {
    /// Every supported revision, oldest first.
    pub const ALL: [ProtocolVersion; 5] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2026_07_28,
    ];
    /// The legacy (handshake) revisions, oldest first.
    pub const LEGACY: [ProtocolVersion; 4] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
    ];
    /// The modern (stateless) revisions.
    pub const MODERN: [ProtocolVersion; 1] = [ProtocolVersion::V2026_07_28];
    /// The newest revision.
    pub const LATEST: ProtocolVersion = ProtocolVersion::V2026_07_28;
    /// The newest handshake revision: what `initialize` answers when it cannot echo.
    pub const LATEST_LEGACY: ProtocolVersion = ProtocolVersion::V2025_11_25;

    /// The revision's date string, as on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V2024_11_05 => "2024-11-05",
            ProtocolVersion::V2025_03_26 => "2025-03-26",
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
            ProtocolVersion::V2026_07_28 => "2026-07-28",
        }
    }

    /// Parses a wire version string; `None` for a revision this crate does not speak.
    pub fn parse(s: &str) -> Option<ProtocolVersion> {
        ProtocolVersion::ALL.into_iter().find(|v| v.as_str() == s)
    }

    /// Whether this is a handshake-era revision (anything before 2026-07-28).
    pub const fn is_legacy(self) -> bool {
        !matches!(self, ProtocolVersion::V2026_07_28)
    }

    /// The legacy `initialize` negotiation: echo the client's version when it is a
    /// supported handshake revision, otherwise offer the latest handshake revision
    /// (the client then decides whether to disconnect).
    pub fn negotiate_legacy(requested: &str) -> ProtocolVersion {
        match ProtocolVersion::parse(requested) {
            Some(v) if v.is_legacy() => v,
            _ => ProtocolVersion::LATEST_LEGACY,
        }
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ProtocolVersion {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ProtocolVersion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        ProtocolVersion::parse(&s).ok_or_else(|| {
            serde::de::Error::custom(format_args!("unsupported protocol version `{s}`"))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiation_echoes_supported_legacy_and_offers_latest_otherwise() {
        assert_eq!(
            ProtocolVersion::negotiate_legacy("2025-03-26"),
            ProtocolVersion::V2025_03_26
        );
        assert_eq!(
            ProtocolVersion::negotiate_legacy("1999-01-01"),
            ProtocolVersion::V2025_11_25
        );
        // A modern version is not a handshake revision.
        assert_eq!(
            ProtocolVersion::negotiate_legacy("2026-07-28"),
            ProtocolVersion::V2025_11_25
        );
    }

    #[test]
    fn round_trips_every_revision() {
        for v in ProtocolVersion::ALL {
            let json = serde_json::to_string(&v).unwrap();
            assert_eq!(serde_json::from_str::<ProtocolVersion>(&json).unwrap(), v);
        }
        assert!(serde_json::from_str::<ProtocolVersion>("\"2030-01-01\"").is_err());
    }
}
