//! The bus: one dedicated pub/sub connection per subscriber, held by a
//! task that forwards messages and resubscribes after a loss.

use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use oxmcp_server::state::BusEvent;
use redis::aio::{PubSubSink, PubSubStream};
use redis::{Client, RedisError, RedisResult};
use tokio::sync::mpsc;
use tokio::sync::mpsc::error::TrySendError;

/// How many bus messages may wait for a subscriber that is not reading;
/// beyond that it misses some and hears [`BusEvent::Resubscribed`] (as
/// with `MemoryStore`).
const BUS_BACKLOG: usize = 4096;

/// The first wait before resubscribing, doubled after each failure...
const FIRST_BACKOFF: Duration = Duration::from_millis(100);
/// ...up to this.
const MAX_BACKOFF: Duration = Duration::from_secs(2);

/// How often an idle subscription checks that Redis still answers (a
/// connection to a stopped or unreachable server is not closed by itself).
const PING_EVERY: Duration = Duration::from_secs(5);

/// Where a subscription listens.
#[derive(Clone)]
pub(crate) struct Bus {
    pub(crate) client: Client,
    pub(crate) channel: String,
    pub(crate) timeout: Duration,
}

/// A subscribed connection, split so that it can be pinged while read.
pub(crate) struct Subscribed {
    sink: PubSubSink,
    stream: PubSubStream,
}

impl Bus {
    /// Opens a pub/sub connection and subscribes to the channel, within
    /// the timeout.
    pub(crate) async fn open(&self) -> RedisResult<Subscribed> {
        let attempt = async {
            let mut pubsub = self.client.get_async_pubsub().await?;
            pubsub.subscribe(&self.channel).await?;
            let (sink, stream) = pubsub.split();
            Ok(Subscribed { sink, stream })
        };
        match tokio::time::timeout(self.timeout, attempt).await {
            Ok(result) => result,
            Err(_) => Err(RedisError::from(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "no answer in time",
            ))),
        }
    }

    /// Hands `first`'s messages to the returned receiver, resubscribing
    /// after a loss, until the receiver is dropped.
    pub(crate) fn spawn(self, first: Subscribed) -> mpsc::Receiver<BusEvent> {
        let (tx, rx) = mpsc::channel(BUS_BACKLOG);
        tokio::spawn(self.run(first, tx));
        rx
    }

    async fn run(self, mut sub: Subscribed, tx: mpsc::Sender<BusEvent>) {
        let mut out = Outbox { tx, lagged: false };
        loop {
            match out.forward(&mut sub, self.timeout).await {
                Flow::Closed => return,
                Flow::Lost(why) => {
                    tracing::warn!(channel = %self.channel, "redis bus subscription lost ({why}); resubscribing");
                }
            }
            drop(sub);
            let mut backoff = FIRST_BACKOFF;
            sub = loop {
                tokio::select! {
                    () = out.tx.closed() => return,
                    () = tokio::time::sleep(backoff) => {}
                }
                let opened = tokio::select! {
                    () = out.tx.closed() => return,
                    opened = self.open() => opened,
                };
                match opened {
                    Ok(sub) => break sub,
                    Err(e) => {
                        tracing::debug!(channel = %self.channel, error = %e, "redis bus: resubscribing failed");
                        backoff = (backoff * 2).min(MAX_BACKOFF);
                    }
                }
            };
            tracing::warn!(channel = %self.channel, "redis bus subscription is back; messages may have been missed");
            // Say so before the next message.
            out.lagged = true;
            if !out.notify() {
                return;
            }
        }
    }
}

/// Why forwarding stopped.
enum Flow {
    /// The receiver was dropped.
    Closed,
    /// The connection was lost (or stopped answering).
    Lost(&'static str),
}

/// What woke the forwarding loop.
enum Step {
    Closed,
    Notified,
    Message(Option<redis::Msg>),
    Ping,
}

/// The receiving side, and whether it owes it a [`BusEvent::Resubscribed`].
struct Outbox {
    tx: mpsc::Sender<BusEvent>,
    lagged: bool,
}

impl Outbox {
    /// Forwards `sub`'s messages until the connection is lost or the
    /// receiver dropped.
    async fn forward(&mut self, sub: &mut Subscribed, timeout: Duration) -> Flow {
        let start = tokio::time::Instant::now() + PING_EVERY;
        let mut pings = tokio::time::interval_at(start, PING_EVERY);
        pings.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let step = tokio::select! {
                () = self.tx.closed() => Step::Closed,
                msg = sub.stream.next() => Step::Message(msg),
                _ = pings.tick() => Step::Ping,
                // A subscriber that fell behind hears so as soon as it has room.
                permit = self.tx.reserve(), if self.lagged => match permit {
                    Ok(permit) => {
                        permit.send(BusEvent::Resubscribed);
                        Step::Notified
                    }
                    Err(_) => Step::Closed,
                },
            };
            match step {
                Step::Closed => return Flow::Closed,
                Step::Notified => self.lagged = false,
                Step::Message(Some(msg)) => {
                    let payload = Bytes::copy_from_slice(msg.get_payload_bytes());
                    if !self.send(BusEvent::Message(payload)) {
                        return Flow::Closed;
                    }
                }
                Step::Message(None) => return Flow::Lost("connection closed"),
                Step::Ping => {
                    let answer =
                        tokio::time::timeout(timeout, sub.sink.ping::<redis::Value>()).await;
                    match answer {
                        Ok(Ok(_)) => {}
                        Ok(Err(_)) => return Flow::Lost("ping failed"),
                        Err(_) => return Flow::Lost("no answer to ping in time"),
                    }
                }
            }
        }
    }

    /// Sends the owed notice, if any; `false` when the receiver is gone.
    fn notify(&mut self) -> bool {
        if self.lagged {
            match self.tx.try_send(BusEvent::Resubscribed) {
                Ok(()) => self.lagged = false,
                Err(TrySendError::Full(_)) => {}
                Err(TrySendError::Closed(_)) => return false,
            }
        }
        true
    }

    /// Sends `event` without waiting: a subscriber that does not keep up
    /// misses messages and is told so; `false` when the receiver is gone.
    fn send(&mut self, event: BusEvent) -> bool {
        if !self.notify() {
            return false;
        }
        if self.lagged {
            // Still full: this one is missed too.
            return true;
        }
        match self.tx.try_send(event) {
            Ok(()) => true,
            Err(TrySendError::Full(_)) => {
                self.lagged = true;
                true
            }
            Err(TrySendError::Closed(_)) => false,
        }
    }
}
