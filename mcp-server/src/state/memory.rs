//! [`MemoryStore`]: the [`Store`] seam in one process.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use oxmcp_wire::sync::lock;
use tokio::sync::mpsc;

use super::{Append, BusEvent, Store, StoreResult, StreamLog};
use crate::common::BoxFuture;

/// How many bus messages may wait for a subscriber that is not reading;
/// beyond that it misses some and hears [`BusEvent::Resubscribed`].
const BUS_BACKLOG: usize = 4096;
/// How often, at most, the expired sessions, claims and tasks are swept
/// out: a sweep visits every entry, so doing it on every write would make
/// each claim (one per `requestState` retry and DPoP proof) cost as much
/// as the claims alive.
const SWEEP_EVERY: Duration = Duration::from_secs(1);

/// A [`Store`] in this process: several services in one process share
/// sessions, replay and notifications through it as separate processes do
/// through Redis. Expiry is checked when an entry is read, and expired
/// entries are swept out at most once a second, on a write.
#[derive(Clone, Default)]
pub struct MemoryStore {
    inner: Arc<Mutex<State>>,
}

impl std::fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let st = lock(&self.inner);
        f.debug_struct("MemoryStore")
            .field("sessions", &st.sessions.len())
            .field("streams", &st.streams.len())
            .finish_non_exhaustive()
    }
}

#[derive(Default)]
struct State {
    sessions: HashMap<String, (Bytes, Instant)>,
    streams: HashMap<(String, u64), Log>,
    subscribers: Vec<Subscriber>,
    claims: HashMap<String, Instant>,
    tasks: HashMap<String, (Bytes, Instant)>,
    cached: HashMap<String, (Bytes, Instant)>,
    /// When the next sweep is due (none yet: at the first write).
    next_sweep: Option<Instant>,
}

impl State {
    /// Drops expired sessions, claims, tasks and cached results, when a
    /// sweep is due.
    fn sweep(&mut self, now: Instant) {
        if self.next_sweep.is_some_and(|due| now < due) {
            return;
        }
        self.next_sweep = Some(now + SWEEP_EVERY);
        self.sessions.retain(|_, (_, expires)| *expires > now);
        self.claims.retain(|_, expires| *expires > now);
        self.cached.retain(|_, (_, expires)| *expires > now);
        self.tasks.retain(|_, (_, expires)| *expires > now);
    }
}

struct Subscriber {
    tx: mpsc::Sender<BusEvent>,
    /// Messages were dropped: tell it before the next one.
    lagged: bool,
}

struct Log {
    events: VecDeque<(u64, Bytes)>,
    ended: bool,
    expires: Instant,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }

    /// How many sessions are alive in the store.
    pub fn session_count(&self) -> usize {
        let now = Instant::now();
        lock(&self.inner)
            .sessions
            .values()
            .filter(|(_, expires)| *expires > now)
            .count()
    }
}

fn ready<T: Send + 'static>(value: T) -> BoxFuture<'static, StoreResult<T>> {
    Box::pin(std::future::ready(Ok(value)))
}

/// A map of values that expire.
type Expiring = HashMap<String, (Bytes, Instant)>;

impl MemoryStore {
    /// Puts `value` under `key` in the map `pick` names, for `ttl`.
    fn put_expiring(
        &self,
        pick: fn(&mut State) -> &mut Expiring,
        key: &str,
        value: Bytes,
        ttl: Duration,
    ) -> BoxFuture<'static, StoreResult<()>> {
        let now = Instant::now();
        let mut st = lock(&self.inner);
        st.sweep(now);
        pick(&mut st).insert(key.to_owned(), (value, now + ttl));
        ready(())
    }

    /// The value under `key` in the map `pick` names, unless it expired.
    fn get_expiring(
        &self,
        pick: fn(&State) -> &Expiring,
        key: &str,
    ) -> BoxFuture<'static, StoreResult<Option<Bytes>>> {
        let now = Instant::now();
        let st = lock(&self.inner);
        let found = pick(&st)
            .get(key)
            .filter(|(_, expires)| *expires > now)
            .map(|(value, _)| value.clone());
        ready(found)
    }
}

impl Store for MemoryStore {
    fn name(&self) -> &'static str {
        "memory store"
    }

    fn put_session(
        &self,
        id: &str,
        record: Bytes,
        ttl: Duration,
    ) -> BoxFuture<'static, StoreResult<()>> {
        let now = Instant::now();
        let mut st = lock(&self.inner);
        st.sweep(now);
        st.sessions.insert(id.to_owned(), (record, now + ttl));
        ready(())
    }

    fn get_session(
        &self,
        id: &str,
        ttl: Duration,
    ) -> BoxFuture<'static, StoreResult<Option<Bytes>>> {
        let now = Instant::now();
        let mut st = lock(&self.inner);
        let found = match st.sessions.get_mut(id) {
            Some((record, expires)) if *expires > now => {
                *expires = now + ttl;
                Some(record.clone())
            }
            Some(_) => {
                st.sessions.remove(id);
                None
            }
            None => None,
        };
        ready(found)
    }

    fn touch_session(&self, id: &str, ttl: Duration) -> BoxFuture<'static, StoreResult<bool>> {
        let now = Instant::now();
        let mut st = lock(&self.inner);
        let alive = match st.sessions.get_mut(id) {
            Some((_, expires)) if *expires > now => {
                *expires = now + ttl;
                true
            }
            _ => false,
        };
        if alive {
            for ((session, _), log) in &mut st.streams {
                if session == id {
                    log.expires = now + ttl;
                }
            }
        }
        ready(alive)
    }

    fn remove_session(&self, id: &str) -> BoxFuture<'static, StoreResult<bool>> {
        let now = Instant::now();
        let mut st = lock(&self.inner);
        let was = st
            .sessions
            .remove(id)
            .is_some_and(|(_, expires)| expires > now);
        st.streams.retain(|(session, _), _| session != id);
        ready(was)
    }

    fn append_events(
        &self,
        appends: Vec<Append>,
        max_events: usize,
        ttl: Duration,
    ) -> BoxFuture<'static, StoreResult<()>> {
        let now = Instant::now();
        let mut st = lock(&self.inner);
        st.streams.retain(|_, log| log.expires > now);
        for append in appends {
            let log = st
                .streams
                .entry((append.session, append.stream))
                .or_insert_with(|| Log {
                    events: VecDeque::new(),
                    ended: false,
                    expires: now + ttl,
                });
            log.events.extend(append.events);
            while log.events.len() > max_events {
                log.events.pop_front();
            }
            log.ended |= append.ended;
            log.expires = now + ttl;
        }
        ready(())
    }

    fn read_events(
        &self,
        session: &str,
        stream: u64,
        after: u64,
    ) -> BoxFuture<'static, StoreResult<Option<StreamLog>>> {
        let now = Instant::now();
        let st = lock(&self.inner);
        let found = st
            .streams
            .get(&(session.to_owned(), stream))
            .filter(|log| log.expires > now)
            .map(|log| StreamLog {
                events: log
                    .events
                    .iter()
                    .filter(|(seq, _)| *seq > after)
                    .cloned()
                    .collect(),
                ended: log.ended,
            });
        ready(found)
    }

    fn put_task(
        &self,
        id: &str,
        record: Bytes,
        ttl: Duration,
    ) -> BoxFuture<'static, StoreResult<()>> {
        self.put_expiring(|st| &mut st.tasks, id, record, ttl)
    }

    fn get_task(&self, id: &str) -> BoxFuture<'static, StoreResult<Option<Bytes>>> {
        self.get_expiring(|st| &st.tasks, id)
    }

    fn put_cached(
        &self,
        key: &str,
        result: Bytes,
        ttl: Duration,
    ) -> BoxFuture<'static, StoreResult<()>> {
        self.put_expiring(|st| &mut st.cached, key, result, ttl)
    }

    fn get_cached(&self, key: &str) -> BoxFuture<'static, StoreResult<Option<Bytes>>> {
        self.get_expiring(|st| &st.cached, key)
    }

    fn claim(&self, key: &str, ttl: Duration) -> BoxFuture<'static, StoreResult<bool>> {
        let now = Instant::now();
        let mut st = lock(&self.inner);
        st.sweep(now);
        let first = st.claims.get(key).is_none_or(|expires| *expires <= now);
        if first {
            st.claims.insert(key.to_owned(), now + ttl);
        }
        ready(first)
    }

    fn publish(&self, message: Bytes) -> BoxFuture<'static, StoreResult<()>> {
        let mut st = lock(&self.inner);
        st.subscribers.retain_mut(|s| {
            if s.lagged && s.tx.try_send(BusEvent::Resubscribed).is_ok() {
                s.lagged = false;
            }
            match s.tx.try_send(BusEvent::Message(message.clone())) {
                Ok(()) => true,
                Err(mpsc::error::TrySendError::Full(_)) => {
                    s.lagged = true;
                    true
                }
                Err(mpsc::error::TrySendError::Closed(_)) => false,
            }
        });
        ready(())
    }

    fn subscribe(&self) -> BoxFuture<'static, StoreResult<mpsc::Receiver<BusEvent>>> {
        let (tx, rx) = mpsc::channel(BUS_BACKLOG);
        lock(&self.inner)
            .subscribers
            .push(Subscriber { tx, lagged: false });
        ready(rx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn sessions_expire_unless_used_and_logs_are_bounded() {
        let s = MemoryStore::new();
        let ttl = Duration::from_millis(50);
        s.put_session("a", Bytes::from_static(b"{}"), ttl)
            .await
            .unwrap();
        assert!(s.get_session("a", ttl).await.unwrap().is_some());
        tokio::time::sleep(Duration::from_millis(80)).await;
        assert!(s.get_session("a", ttl).await.unwrap().is_none());

        let append = |events: Vec<(u64, Bytes)>, ended| Append {
            session: "b".into(),
            stream: 3,
            events,
            ended,
        };
        let ev = |n: u64| (n, Bytes::from(n.to_string()));
        let ttl = Duration::from_secs(60);
        s.append_events(vec![append((0..5).map(ev).collect(), false)], 3, ttl)
            .await
            .unwrap();
        let log = s.read_events("b", 3, 2).await.unwrap().unwrap();
        assert_eq!(log.events, vec![ev(3), ev(4)]);
        assert!(!log.ended);
        s.append_events(vec![append(vec![ev(5)], true)], 3, ttl)
            .await
            .unwrap();
        let log = s.read_events("b", 3, 0).await.unwrap().unwrap();
        assert_eq!(log.events, vec![ev(3), ev(4), ev(5)]);
        assert!(log.ended);
        assert!(s.read_events("b", 4, 0).await.unwrap().is_none());
        assert!(!s.remove_session("b").await.unwrap());
        assert!(s.read_events("b", 3, 0).await.unwrap().is_none());
    }

    #[tokio::test]
    async fn a_claim_holds_until_it_expires_even_before_a_sweep() {
        let s = MemoryStore::new();
        let ttl = Duration::from_millis(30);
        assert!(s.claim("k", ttl).await.unwrap());
        assert!(!s.claim("k", ttl).await.unwrap());
        tokio::time::sleep(Duration::from_millis(50)).await;
        // Expired, though no sweep has run since (they run once a second).
        assert!(s.claim("k", ttl).await.unwrap());
    }

    #[test]
    fn a_sweep_drops_what_expired_and_runs_at_most_once_a_second() {
        let mut st = State::default();
        let now = Instant::now();
        let gone = now.checked_sub(Duration::from_millis(1)).unwrap_or(now);
        let later = now + Duration::from_secs(60);
        st.claims.insert("old".into(), gone);
        st.claims.insert("new".into(), later);
        st.tasks.insert("old".into(), (Bytes::new(), gone));
        st.sessions.insert("old".into(), (Bytes::new(), gone));
        st.sweep(now);
        assert_eq!(st.claims.keys().collect::<Vec<_>>(), ["new"]);
        assert!(st.tasks.is_empty() && st.sessions.is_empty());
        // Within the second: no sweep, the entry stays (reads check expiry).
        st.claims.insert("old".into(), gone);
        st.sweep(now + Duration::from_millis(500));
        assert_eq!(st.claims.len(), 2);
        st.sweep(now + SWEEP_EVERY);
        assert_eq!(st.claims.len(), 1);
    }

    #[tokio::test]
    async fn the_bus_reaches_every_subscriber() {
        let s = MemoryStore::new();
        let mut a = s.subscribe().await.unwrap();
        let mut b = s.subscribe().await.unwrap();
        s.publish(Bytes::from_static(b"hi")).await.unwrap();
        for rx in [&mut a, &mut b] {
            assert_eq!(
                rx.recv().await,
                Some(BusEvent::Message(Bytes::from_static(b"hi")))
            );
        }
    }
}
