//! Legacy-era HTTP sessions: ids, the streams each one owns, idle expiry.

use oxmcp_types::ProtocolVersion;
use oxmcp_wire::sync::lock;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::dispatch::Session;
use crate::policy::TransportKind;

use super::sse::{EventStream, ReplayLimits};

/// A cryptographically random session id: 32 hex digits (128 bits), visible ASCII.
pub(crate) fn new_session_id() -> Result<String, getrandom::Error> {
    crate::common::random_hex_id()
}

/// How many finished streams a session keeps for late resumption.
const KEPT_STREAMS: usize = 8;

/// One legacy session on HTTP.
pub(crate) struct HttpSession {
    pub(crate) id: Arc<str>,
    pub(crate) session: Arc<Session>,
    streams: Mutex<Streams>,
    next_stream: AtomicU64,
    last_seen: Mutex<Instant>,
    /// The legacy HTTP+SSE transport's one stream, where every reply goes.
    pub(crate) legacy_out: std::sync::OnceLock<Arc<dyn crate::common::Outbound>>,
    /// Cancelled when the session ends (deleted, expired, its stream gone):
    /// the tasks that serve its streams stop with it.
    pub(crate) ended: tokio_util::sync::CancellationToken,
    /// Who opened it (with authorization): nobody else may use it.
    pub(crate) owner: Option<Owner>,
    /// The standalone GET stream: one at a time (a new GET replaces it).
    standalone: Mutex<Option<Arc<EventStream>>>,
    /// Where resumable streams copy their events (a shared store is configured).
    mirror: Option<Mirrors>,
    /// When this instance last refreshed the session's expiry in the store.
    pub(crate) stored_at: Mutex<Instant>,
    /// The store's bus generation this instance last saw the session in:
    /// after the bus was lost, the session is checked in the store again.
    pub(crate) generation: AtomicU64,
}

/// The writer of stream events to the shared store.
pub(crate) type Mirrors = tokio::sync::mpsc::UnboundedSender<super::shared::Logged>;

/// Who opened a session, when the server checks tokens: only a request
/// speaking for the same may use it. Whatever claims the token has, the
/// session has an owner: the subject at its issuer, else the client the
/// token was issued to, else the token itself. Kept as a digest, the same
/// on every instance (the shared store holds it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Owner([u8; 32]);

impl Owner {
    /// Whom a request speaks for: `None` when no token was verified (the
    /// server does not check tokens).
    pub(crate) fn of(extensions: &http::Extensions) -> Option<Owner> {
        let verified = extensions.get::<crate::auth::Verified>()?;
        Some(match verified.identity.principal() {
            Some(principal) => Owner::principal(&principal),
            None => Owner::token(&verified.token),
        })
    }

    /// The owner a principal (a subject or a client, at its issuer) names.
    pub(crate) fn principal(principal: &crate::auth::Principal) -> Owner {
        Owner::digest(b'p', principal.key().as_bytes())
    }

    /// The owner of a token with no subject and no client (its SHA-256).
    fn token(token_digest: &[u8; 32]) -> Owner {
        Owner::digest(b't', token_digest)
    }

    fn digest(domain: u8, bytes: &[u8]) -> Owner {
        use sha2::Digest as _;
        let mut h = sha2::Sha256::new();
        h.update([domain, 0]);
        h.update(bytes);
        Owner(h.finalize().into())
    }

    /// The digest, as hex.
    pub(crate) fn to_hex(self) -> String {
        crate::common::hex(&self.0)
    }

    /// An owner's digest from [`to_hex`](Self::to_hex).
    pub(crate) fn from_hex(hex: &str) -> Option<Owner> {
        crate::common::unhex(hex)?.try_into().ok().map(Owner)
    }
}

#[derive(Default)]
struct Streams {
    by_id: HashMap<u64, Arc<EventStream>>,
    order: VecDeque<u64>,
}

impl HttpSession {
    /// A session over `session` (new, or rebuilt from the store), copying
    /// its streams' events to `mirror`.
    pub(crate) fn with(
        session: Arc<Session>,
        id: Arc<str>,
        owner: Option<Owner>,
        mirror: Option<Mirrors>,
    ) -> Arc<Self> {
        // Stream ids name the stream across instances: each instance's
        // sessions count from their own random start (even: the low bit
        // says whether a stream is standalone).
        let start = if mirror.is_some() {
            let mut bytes = [0u8; 8];
            let _ = getrandom::fill(&mut bytes);
            (u64::from_le_bytes(bytes) >> 12) & !1
        } else {
            2
        };
        Arc::new(HttpSession {
            session,
            id,
            streams: Mutex::new(Streams::default()),
            next_stream: AtomicU64::new(start),
            last_seen: Mutex::new(Instant::now()),
            legacy_out: std::sync::OnceLock::new(),
            ended: tokio_util::sync::CancellationToken::new(),
            owner,
            standalone: Mutex::new(None),
            mirror,
            stored_at: Mutex::new(Instant::now()),
            generation: AtomicU64::new(0),
        })
    }

    /// Whether a request with these extensions may use the session: it
    /// speaks for the owner (any request may, when nobody owns it: the
    /// server checks no tokens).
    pub(crate) fn owned_by(&self, extensions: &http::Extensions) -> bool {
        self.owner.is_none() || self.owner == Owner::of(extensions)
    }

    /// Makes `stream` the session's standalone stream, ending the one
    /// before (a session keeps one, however many GETs it sends).
    pub(crate) fn replace_standalone(&self, stream: &Arc<EventStream>) {
        let before = lock(&self.standalone).replace(Arc::clone(stream));
        if let Some(before) = before {
            before.finish();
        }
    }

    /// Ends the session: its calls are cancelled and its streams close.
    fn end(&self) {
        self.session.cancel_all();
        self.ended.cancel();
    }

    pub(crate) fn touch(&self) {
        *lock(&self.last_seen) = Instant::now();
    }

    /// Opens a new resumable stream on this session: a standalone (GET)
    /// one, or one answering a POST.
    pub(crate) fn open_stream(
        &self,
        limits: ReplayLimits,
        retry_ms: u64,
        standalone: bool,
    ) -> Arc<EventStream> {
        let id = self.next_stream.fetch_add(2, Ordering::Relaxed) | u64::from(standalone);
        let mirror = self.mirror.as_ref().map(|log| super::sse::Mirror {
            session: Arc::clone(&self.id),
            log: log.clone(),
            ended: self.ended.clone(),
        });
        let stream = EventStream::mirrored(id, true, limits, retry_ms, mirror);
        let mut streams = lock(&self.streams);
        streams.by_id.insert(id, Arc::clone(&stream));
        streams.order.push_back(id);
        // Forget the oldest finished streams beyond the budget.
        while streams.order.len() > KEPT_STREAMS {
            let Some(pos) = streams
                .order
                .iter()
                .position(|sid| streams.by_id.get(sid).is_none_or(|s| s.is_done()))
            else {
                break;
            };
            if let Some(old) = streams.order.remove(pos) {
                streams.by_id.remove(&old);
            }
        }
        stream
    }

    /// Primes a stream the client has attached to (an empty event with an id,
    /// so it can resume) when the session's revision has priming: it follows
    /// the negotiated revision, not the request header (clients may send any
    /// supported version there; conformance 0.1.16 sends 2025-03-26 inside
    /// 2025-11-25 sessions).
    pub(crate) fn prime(&self, stream: &EventStream) {
        if self
            .session
            .legacy_version()
            .is_some_and(|v| v >= ProtocolVersion::V2025_11_25)
        {
            stream.prime();
        }
    }

    pub(crate) fn stream(&self, id: u64) -> Option<Arc<EventStream>> {
        lock(&self.streams).by_id.get(&id).cloned()
    }

    /// Whether a stream of this id is a standalone (GET) one.
    pub(crate) fn is_standalone(stream: u64) -> bool {
        stream & 1 == 1
    }

    fn idle_for(&self, now: Instant) -> Duration {
        now.saturating_duration_since(*lock(&self.last_seen))
    }
}

/// Every live session, with caps (in all, and per owner) and idle expiry.
pub(crate) struct Sessions {
    live: Mutex<Live>,
    last_sweep: Mutex<Instant>,
    pub(crate) max: usize,
    pub(crate) max_per_owner: usize,
    pub(crate) idle_timeout: Duration,
    /// Where new sessions' streams copy their events (a shared store).
    pub(crate) mirror: Option<Mirrors>,
}

#[derive(Default)]
struct Live {
    map: HashMap<Arc<str>, Arc<HttpSession>>,
    /// How many sessions each owner has.
    per_owner: HashMap<Owner, usize>,
}

impl Live {
    fn take(&mut self, id: &str) -> Option<Arc<HttpSession>> {
        let s = self.map.remove(id)?;
        if let Some(owner) = &s.owner {
            if let Some(n) = self.per_owner.get_mut(owner) {
                *n -= 1;
                if *n == 0 {
                    self.per_owner.remove(owner);
                }
            }
        }
        Some(s)
    }
}

/// Why no session was created.
#[derive(Debug)]
pub(crate) enum Refused {
    /// The server has as many sessions as it allows.
    Full,
    /// This owner has as many sessions as one may have.
    OwnerFull,
    /// No randomness for the id.
    Random(getrandom::Error),
}

impl Sessions {
    pub(crate) fn new(max: usize, max_per_owner: usize, idle_timeout: Duration) -> Self {
        Sessions {
            live: Mutex::new(Live::default()),
            last_sweep: Mutex::new(Instant::now()),
            max,
            max_per_owner,
            idle_timeout,
            mirror: None,
        }
    }

    /// The session of this id that this instance holds, if any (not
    /// refreshing its use).
    pub(crate) fn local(&self, id: &str) -> Option<Arc<HttpSession>> {
        lock(&self.live).map.get(id).cloned()
    }

    /// Adds a session rebuilt from the store (another instance opened it),
    /// unless this instance holds as many as it allows; the one already
    /// held, if another request rebuilt it meanwhile.
    pub(crate) fn adopt(&self, s: Arc<HttpSession>) -> Result<Arc<HttpSession>, Refused> {
        self.sweep();
        let mut live = lock(&self.live);
        if let Some(held) = live.map.get(&s.id) {
            return Ok(Arc::clone(held));
        }
        if live.map.len() >= self.max {
            return Err(Refused::Full);
        }
        if let Some(owner) = &s.owner {
            *live.per_owner.entry(*owner).or_default() += 1;
        }
        live.map.insert(Arc::clone(&s.id), Arc::clone(&s));
        Ok(s)
    }

    pub(crate) fn get(&self, id: &str) -> Option<Arc<HttpSession>> {
        // Expiry rides on traffic (at most one sweep a second), so no timer task is needed.
        self.sweep();
        let s = lock(&self.live).map.get(id).cloned();
        if let Some(s) = &s {
            s.touch();
        }
        s
    }

    /// Creates a session for `owner`, unless the server or the owner is at
    /// its cap.
    pub(crate) fn create(
        &self,
        kind: TransportKind,
        owner: Option<Owner>,
    ) -> Result<Arc<HttpSession>, Refused> {
        self.sweep();
        let id: Arc<str> = new_session_id().map_err(Refused::Random)?.into();
        let mut live = lock(&self.live);
        if live.map.len() >= self.max {
            return Err(Refused::Full);
        }
        if let Some(owner) = &owner {
            let n = live.per_owner.entry(*owner).or_default();
            if *n >= self.max_per_owner {
                return Err(Refused::OwnerFull);
            }
            *n += 1;
        }
        let s = HttpSession::with(
            Session::new(kind, Some(Arc::clone(&id))),
            Arc::clone(&id),
            owner,
            self.mirror.clone(),
        );
        live.map.insert(id, Arc::clone(&s));
        Ok(s)
    }

    pub(crate) fn remove(&self, id: &str) -> Option<Arc<HttpSession>> {
        let s = lock(&self.live).take(id);
        if let Some(s) = &s {
            s.end();
        }
        s
    }

    pub(crate) fn len(&self) -> usize {
        lock(&self.live).map.len()
    }

    /// Drops sessions idle for longer than the timeout (at most once a second).
    fn sweep(&self) {
        let now = Instant::now();
        {
            let mut last = lock(&self.last_sweep);
            if now.duration_since(*last) < Duration::from_secs(1) {
                return;
            }
            *last = now;
        }
        let expired: Vec<Arc<HttpSession>> = {
            let mut live = lock(&self.live);
            let ids: Vec<Arc<str>> = live
                .map
                .iter()
                .filter(|(_, s)| s.idle_for(now) > self.idle_timeout)
                .map(|(id, _)| Arc::clone(id))
                .collect();
            ids.iter().filter_map(|id| live.take(id)).collect()
        };
        for s in expired {
            tracing::debug!(session = %s.id, "session expired");
            s.end();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_random_visible_ascii() {
        let a = new_session_id().unwrap();
        let b = new_session_id().unwrap();
        assert_ne!(a, b);
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| (0x21..=0x7e).contains(&c)));
    }

    #[test]
    fn idle_sessions_expire() {
        let s = Sessions::new(10, 10, Duration::ZERO);
        let a = s.create(TransportKind::StreamableHttp, None).unwrap();
        *lock(&s.last_sweep) -= Duration::from_secs(2);
        std::thread::sleep(Duration::from_millis(5));
        assert!(s.get(&a.id).is_none(), "an idle session is gone");
        assert_eq!(s.len(), 0);
    }

    #[test]
    fn cap_and_removal() {
        let s = Sessions::new(2, 2, Duration::from_secs(60));
        let a = s.create(TransportKind::StreamableHttp, None).unwrap();
        let _b = s.create(TransportKind::StreamableHttp, None).unwrap();
        assert!(matches!(
            s.create(TransportKind::StreamableHttp, None),
            Err(Refused::Full)
        ));
        assert!(s.remove(&a.id).is_some());
        assert!(s.get(&a.id).is_none());
        assert!(s.create(TransportKind::StreamableHttp, None).is_ok());
    }

    #[test]
    fn each_owner_has_its_own_cap() {
        let s = Sessions::new(10, 2, Duration::from_secs(60));
        let owner = |name: &str| {
            Owner::principal(&crate::auth::Principal::Subject {
                issuer: Some("https://as".into()),
                subject: name.into(),
            })
        };
        let kind = TransportKind::StreamableHttp;
        let a1 = s.create(kind, Some(owner("alice"))).unwrap();
        let _a2 = s.create(kind, Some(owner("alice"))).unwrap();
        assert!(matches!(
            s.create(kind, Some(owner("alice"))),
            Err(Refused::OwnerFull)
        ));
        // Another subject, or the same name at another issuer, is another owner.
        assert!(s.create(kind, Some(owner("bob"))).is_ok());
        let elsewhere = Owner::principal(&crate::auth::Principal::Subject {
            issuer: Some("https://other".into()),
            subject: "alice".into(),
        });
        assert_eq!(Owner::from_hex(&elsewhere.to_hex()), Some(elsewhere));
        assert!(s.create(kind, Some(elsewhere)).is_ok());
        // A session ended frees its place.
        s.remove(&a1.id);
        assert!(s.create(kind, Some(owner("alice"))).is_ok());
        assert_eq!(s.len(), 4);
    }
}
