//! Server-Sent Events: framing, resumable event streams, and the per-request
//! sink that decides between a JSON response and an SSE stream.

use oxmcp_wire::sync::lock;
use std::collections::VecDeque;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use tokio::sync::mpsc;

use crate::common::Outbound;

pub(crate) use oxmcp_wire::sse::event;

/// How many events may wait for a client that is not reading its stream.
/// Beyond this the connection is dropped (a legacy client may resume from the
/// replay log); memory stays bounded either way.
pub(crate) const SINK_CAPACITY: usize = 512;

/// Sends without waiting; `false` when the client is gone or too far behind.
pub(crate) fn offer(sink: &mpsc::Sender<Bytes>, ev: Bytes) -> bool {
    match sink.try_send(ev) {
        Ok(()) => true,
        Err(mpsc::error::TrySendError::Full(_)) => {
            tracing::warn!("a client is not reading its SSE stream; dropping the connection");
            false
        }
        Err(mpsc::error::TrySendError::Closed(_)) => false,
    }
}

/// Limits of one resumable stream's replay log.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReplayLimits {
    pub(crate) max_events: usize,
    pub(crate) max_bytes: usize,
}

/// One logical SSE stream. In the legacy era it is resumable: events get ids
/// `<stream>_<seq>`, are kept (bounded) for replay, and the stream outlives
/// any one HTTP connection; a client reconnects with `Last-Event-ID`.
/// In the modern era it is a plain pipe into one response.
pub(crate) struct EventStream {
    pub(crate) id: u64,
    resumable: bool,
    limits: ReplayLimits,
    retry_ms: u64,
    state: Mutex<StreamState>,
    /// Where the stream's events are copied for other instances (a shared
    /// store is configured): a stream dropped here resumes on any instance.
    mirror: Option<Mirror>,
}

/// Copies a resumable stream's events to the shared store, in order,
/// while its session lasts.
pub(crate) struct Mirror {
    pub(crate) session: Arc<str>,
    pub(crate) log: mpsc::UnboundedSender<super::shared::Logged>,
    /// The session's end (`HttpSession::ended`).
    pub(crate) ended: tokio_util::sync::CancellationToken,
}

struct StreamState {
    next_seq: u64,
    log: VecDeque<(u64, Bytes)>,
    log_bytes: usize,
    sink: Option<mpsc::Sender<Bytes>>,
    done: bool,
}

impl EventStream {
    pub(crate) fn new(id: u64, resumable: bool, limits: ReplayLimits, retry_ms: u64) -> Arc<Self> {
        Self::mirrored(id, resumable, limits, retry_ms, None)
    }

    /// A stream whose events are also copied to `mirror`.
    pub(crate) fn mirrored(
        id: u64,
        resumable: bool,
        limits: ReplayLimits,
        retry_ms: u64,
        mirror: Option<Mirror>,
    ) -> Arc<Self> {
        Arc::new(EventStream {
            id,
            resumable,
            limits,
            retry_ms,
            mirror,
            state: Mutex::new(StreamState {
                next_seq: 0,
                log: VecDeque::new(),
                log_bytes: 0,
                sink: None,
                done: false,
            }),
        })
    }

    /// Attaches a new connection, replaying what came after `after` (a
    /// sequence number from `Last-Event-ID`), and returns its receiver.
    /// A finished stream replays and closes at once.
    pub(crate) fn attach(&self, after: Option<u64>) -> mpsc::Receiver<Bytes> {
        self.attach_after(Vec::new(), after)
    }

    /// [`attach`](Self::attach), with `earlier` events (of another stream
    /// the connection resumes) sent first.
    pub(crate) fn attach_after(
        &self,
        earlier: Vec<Bytes>,
        after: Option<u64>,
    ) -> mpsc::Receiver<Bytes> {
        let (tx, rx) =
            mpsc::channel(SINK_CAPACITY.max(self.limits.max_events + 16) + earlier.len());
        for ev in earlier {
            let _ = tx.try_send(ev);
        }
        let mut st = lock(&self.state);
        if let Some(after) = after {
            for (seq, ev) in &st.log {
                if *seq > after {
                    let _ = tx.try_send(ev.clone());
                }
            }
        }
        if !st.done {
            st.sink = Some(tx);
        }
        rx
    }

    /// Sends the priming event (an id and a `retry` hint with empty data),
    /// which lets the client resume even before the first real event.
    pub(crate) fn prime(&self) {
        let mut st = lock(&self.state);
        let seq = st.next_seq;
        st.next_seq += 1;
        let mut ev = String::new();
        let _ = write!(
            ev,
            "id: {}_{seq}\nretry: {}\ndata: \n\n",
            self.id, self.retry_ms
        );
        let ev = Bytes::from(ev);
        self.record(&mut st, seq, ev);
    }

    /// Sends one JSON-RPC message as an event.
    pub(crate) fn push(&self, message: &[u8]) {
        let mut st = lock(&self.state);
        if st.done {
            return;
        }
        let seq = st.next_seq;
        st.next_seq += 1;
        let ev = if self.resumable {
            event(
                Some(&format!("{}_{seq}", self.id)),
                Some("message"),
                message,
            )
        } else {
            event(None, Some("message"), message)
        };
        self.record(&mut st, seq, ev);
    }

    fn record(&self, st: &mut StreamState, seq: u64, ev: Bytes) {
        if let Some(sink) = &st.sink {
            if !offer(sink, ev.clone()) {
                st.sink = None;
            }
        }
        if let Some(mirror) = &self.mirror {
            mirror.copy(self.id, Some((seq, ev.clone())), false);
        }
        if self.resumable {
            st.log_bytes += ev.len();
            st.log.push_back((seq, ev));
            while st.log.len() > self.limits.max_events || st.log_bytes > self.limits.max_bytes {
                match st.log.pop_front() {
                    Some((_, old)) => st.log_bytes -= old.len(),
                    None => break,
                }
            }
        }
    }

    /// The last message was sent: close the connection (the response is complete).
    pub(crate) fn finish(&self) {
        let mut st = lock(&self.state);
        if !st.done {
            if let Some(mirror) = &self.mirror {
                mirror.copy(self.id, None, true);
            }
        }
        st.done = true;
        st.sink = None;
    }

    /// Ends the current connection but not the stream: the client reconnects
    /// after `retry` and resumes.
    pub(crate) fn disconnect(&self) {
        let mut st = lock(&self.state);
        if let Some(sink) = st.sink.take() {
            let _ = sink.try_send(oxmcp_wire::sse::retry(self.retry_ms));
        }
    }

    /// Sends an SSE comment to keep intermediaries from closing an idle
    /// stream; `false` when no client is attached any more.
    pub(crate) fn ping(&self) -> bool {
        let mut st = lock(&self.state);
        match &st.sink {
            Some(sink) if offer(sink, Bytes::from_static(oxmcp_wire::sse::KEEP_ALIVE)) => true,
            _ => {
                st.sink = None;
                false
            }
        }
    }

    pub(crate) fn is_done(&self) -> bool {
        lock(&self.state).done
    }
}

impl Mirror {
    fn copy(&self, stream: u64, event: Option<(u64, Bytes)>, ended: bool) {
        // Once the session has ended, what its streams still do (their
        // end, above all, which comes after the session's) is not copied:
        // a DELETE has removed the session's logs from the store, and a
        // copy now would write them back until the replay TTL; an expired
        // session's logs expire with it.
        if self.ended.is_cancelled() {
            return;
        }
        // The writer lives as long as the service; gone, there is no one to copy for.
        let _ = self.log.send(super::shared::Logged {
            session: Arc::clone(&self.session),
            stream,
            event,
            ended,
        });
    }
}

/// Where a request's messages go while its response is being decided.
///
/// Until dispatch returns, messages are buffered; if there are none and the
/// request was answered at once, the response is plain JSON. Otherwise the
/// response becomes an SSE stream and everything flows through it.
pub(crate) struct RequestSink {
    state: Mutex<SinkState>,
}

enum SinkState {
    Buffering {
        messages: Vec<Vec<u8>>,
        close_requested: bool,
    },
    Streaming(Arc<EventStream>),
}

impl RequestSink {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(RequestSink {
            state: Mutex::new(SinkState::Buffering {
                messages: Vec::new(),
                close_requested: false,
            }),
        })
    }

    /// Whether anything was sent before the response.
    pub(crate) fn is_quiet(&self) -> bool {
        matches!(&*lock(&self.state), SinkState::Buffering { messages, close_requested: false } if messages.is_empty())
    }

    /// Switches to streaming into `stream`, flushing what was buffered.
    pub(crate) fn stream_into(&self, stream: &Arc<EventStream>) {
        let mut st = lock(&self.state);
        if let SinkState::Buffering {
            messages,
            close_requested,
        } = &mut *st
        {
            for m in messages.drain(..) {
                stream.push(&m);
            }
            if *close_requested {
                stream.disconnect();
            }
        }
        *st = SinkState::Streaming(Arc::clone(stream));
    }
}

impl Outbound for RequestSink {
    fn send(&self, message: Vec<u8>) {
        match &mut *lock(&self.state) {
            SinkState::Buffering { messages, .. } => messages.push(message),
            SinkState::Streaming(stream) => stream.push(&message),
        }
    }

    fn close_stream(&self) {
        match &mut *lock(&self.state) {
            SinkState::Buffering {
                close_requested, ..
            } => *close_requested = true,
            SinkState::Streaming(stream) => stream.disconnect(),
        }
    }
}

/// The legacy HTTP+SSE transport's outbound: every message is a `message`
/// event on the session's one stream.
pub(crate) struct SseOut {
    pub(crate) tx: mpsc::Sender<Bytes>,
    /// Set when the client fell too far behind: the session is then ended.
    pub(crate) overflowed: std::sync::atomic::AtomicBool,
}

impl Outbound for SseOut {
    fn send(&self, message: Vec<u8>) {
        if !offer(&self.tx, event(None, Some("message"), &message)) {
            self.overflowed
                .store(true, std::sync::atomic::Ordering::Release);
        }
    }
}

/// Parses a `Last-Event-ID` of the form `<stream>_<seq>`.
pub(crate) fn parse_event_id(id: &str) -> Option<(u64, u64)> {
    let (stream, seq) = id.trim().split_once('_')?;
    Some((stream.parse().ok()?, seq.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: ReplayLimits = ReplayLimits {
        max_events: 3,
        max_bytes: 1 << 20,
    };

    #[test]
    fn resumes_after_the_last_seen_event_and_bounds_the_log() {
        let s = EventStream::new(7, true, LIMITS, 500);
        let mut first = s.attach(None);
        s.prime();
        s.push(b"{\"a\":1}");
        s.disconnect();
        s.push(b"{\"a\":2}");
        s.push(b"{\"a\":3}");
        let got: Vec<Bytes> = std::iter::from_fn(|| first.try_recv().ok()).collect();
        assert_eq!(got.len(), 3, "priming, a:1, retry");
        assert!(std::str::from_utf8(&got[0])
            .unwrap()
            .starts_with("id: 7_0\nretry: 500"));
        let mut second = s.attach(Some(1));
        let replay: Vec<Bytes> = std::iter::from_fn(|| second.try_recv().ok()).collect();
        assert_eq!(replay.len(), 2);
        assert!(std::str::from_utf8(&replay[0]).unwrap().contains("id: 7_2"));
        s.push(b"{\"a\":4}");
        s.push(b"{\"a\":5}");
        // Only 3 events are kept.
        let mut third = s.attach(Some(0));
        assert_eq!(std::iter::from_fn(|| third.try_recv().ok()).count(), 3);
        assert_eq!(parse_event_id("7_2"), Some((7, 2)));
        assert_eq!(parse_event_id("nope"), None);
    }
}
