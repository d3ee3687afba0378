//! One request to a provider, whatever its wire format: the [`Wire`] a
//! provider implements (URL, headers, body, JSON answer, stream decoder),
//! and the generic `complete` and `stream` over it, reading event streams
//! through the [`Decoder`] of the provider.

use std::collections::VecDeque;

use bytes::Bytes;
use futures_util::StreamExt;
use http::HeaderMap;
use oxmcp_wire::sse::{SseEvent, SseParser};
use serde_json::Value;

use super::http::{malformed, transport, Body, HttpOptions, MAX_BODY};
use crate::chat::{ChatRequest, ChatResponse, Delta, DeltaStream, ModelError};

/// A provider's wire format.
pub(crate) trait Wire: Send + Sync {
    /// The provider's name in errors.
    const PROVIDER: &'static str;
    /// Reads the provider's event stream.
    type Decoder: Decoder;

    /// The connection settings.
    fn http(&self) -> &HttpOptions;
    /// Whether requests ask for an event stream.
    fn streaming(&self) -> bool;
    /// Where requests go.
    fn url(&self) -> String;
    /// The provider's headers (authentication, version).
    fn headers(&self) -> Result<HeaderMap, ModelError>;
    /// The request body.
    fn body(&self, request: &ChatRequest, stream: bool) -> Value;
    /// Reads a JSON answer.
    fn parse(value: &Value) -> Result<ChatResponse, ModelError>;
    /// Sees each JSON answer read whole, for a provider that must send
    /// parts of it back that a [`ChatResponse`] does not carry (Anthropic's
    /// server-side tool search blocks).
    fn keep(&self, _answer: &Value) {}
}

/// Reads one provider's event stream into deltas and the whole answer.
pub(crate) trait Decoder: Default + Send + 'static {
    /// Takes one event, appending the text it adds to `text`; returns whether
    /// the answer is complete (the rest of the stream is not read).
    fn event(&mut self, event: &SseEvent, text: &mut Vec<String>) -> Result<bool, ModelError>;

    /// The whole answer, once complete or when the stream ended (then it
    /// tells a complete answer from a truncated one).
    fn finish(&mut self) -> Result<ChatResponse, ModelError>;
}

/// Feeds `events` to a fresh decoder `D` as a stream would, stopping at the
/// first error or when the answer is complete: the text deltas, and the
/// answer or the error. The providers' decoder tests share it.
#[cfg(test)]
pub(crate) fn decode_all<D: Decoder>(
    events: impl IntoIterator<Item = SseEvent>,
) -> (Vec<String>, Result<ChatResponse, ModelError>) {
    let mut decoder = D::default();
    let mut text = Vec::new();
    for event in events {
        match decoder.event(&event, &mut text) {
            Ok(true) => break,
            Ok(false) => {}
            Err(e) => return (text, Err(e)),
        }
    }
    (text, decoder.finish())
}

/// `object[key]` when it is a string.
pub(crate) fn string_at(object: &Value, key: &str) -> Option<String> {
    object.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// The data of an event, as JSON.
pub(crate) fn event_data(provider: &str, event: &SseEvent) -> Result<Value, ModelError> {
    serde_json::from_str(&event.data).map_err(|e| {
        malformed(
            provider,
            format!("the data of a `{}` event is not JSON: {e}", event.event),
        )
    })
}

/// The type of an event: its data's `type`, else its name.
pub(crate) fn event_type<'a>(data: &'a Value, event: &'a SseEvent) -> &'a str {
    data.get("type")
        .and_then(Value::as_str)
        .unwrap_or(&event.event)
}

/// What a provider answered.
enum Answer<D> {
    Json(ChatResponse),
    Stream(Box<SseStream<D>>),
}

async fn send<W: Wire>(wire: &W, request: &ChatRequest) -> Result<Answer<W::Decoder>, ModelError> {
    let stream = wire.streaming();
    let body = serde_json::to_vec(&wire.body(request, stream))
        .map_err(|e| super::http::config(W::PROVIDER, format!("the request is not JSON: {e}")))?;
    let (body, is_stream) = wire
        .http()
        .post(
            W::PROVIDER,
            &wire.url(),
            wire.headers()?,
            Bytes::from(body),
            stream,
        )
        .await?;
    if is_stream {
        return Ok(Answer::Stream(Box::new(SseStream::new(body))));
    }
    let value = body.json().await?;
    if let Some(error) = value.get("error").filter(|e| !e.is_null()) {
        return Err(super::http::error_object(W::PROVIDER, error));
    }
    let response = W::parse(&value)?;
    wire.keep(&value);
    Ok(Answer::Json(response))
}

/// Sends a request and waits for the whole answer (reading the event stream
/// when streaming).
pub(crate) async fn complete<W: Wire>(
    wire: &W,
    request: &ChatRequest,
) -> Result<ChatResponse, ModelError> {
    match send(wire, request).await? {
        Answer::Json(response) => Ok(response),
        Answer::Stream(mut stream) => {
            while let Some(item) = stream.next().await {
                if let Delta::Done(response) = item? {
                    return Ok(response);
                }
            }
            Err(malformed(W::PROVIDER, "the stream ended without an answer"))
        }
    }
}

/// Sends a request and streams the answer: text as it comes, then the whole
/// answer. A JSON answer gives its text in one piece. The stream borrows
/// neither the wire nor the request.
pub(crate) async fn stream<W: Wire>(
    wire: &W,
    request: &ChatRequest,
) -> Result<DeltaStream<'static>, ModelError> {
    match send(wire, request).await? {
        Answer::Json(response) => {
            let mut items = Vec::with_capacity(2);
            if !response.text.is_empty() {
                items.push(Ok(Delta::Text(response.text.clone())));
            }
            items.push(Ok(Delta::Done(response)));
            Ok(futures_util::stream::iter(items).boxed())
        }
        Answer::Stream(stream) => Ok(futures_util::stream::unfold(stream, |mut stream| async {
            let item = stream.next().await?;
            Some((item, stream))
        })
        .boxed()),
    }
}

/// An event stream being read: its body, the SSE parser, the provider's
/// decoder and the deltas decoded but not yet taken.
struct SseStream<D> {
    body: Body,
    parser: SseParser,
    decoder: D,
    ready: VecDeque<Result<Delta, ModelError>>,
    ended: bool,
}

impl<D: Decoder> SseStream<D> {
    fn new(body: Body) -> Self {
        SseStream {
            body,
            parser: SseParser::new(MAX_BODY),
            decoder: D::default(),
            ready: VecDeque::new(),
            ended: false,
        }
    }

    /// The next delta; after [`Delta::Done`] or an error, `None`.
    async fn next(&mut self) -> Option<Result<Delta, ModelError>> {
        loop {
            if let Some(item) = self.ready.pop_front() {
                return Some(item);
            }
            if self.ended {
                return None;
            }
            if let Err(e) = self.read().await {
                self.end(Err(e));
            }
        }
    }

    /// Reads one chunk and decodes the events it completes.
    async fn read(&mut self) -> Result<(), ModelError> {
        let provider = self.body.provider();
        let too_large = |_| transport(provider, format!("an event exceeds {MAX_BODY} bytes"));
        let Some(chunk) = self.body.chunk().await? else {
            // A last event whose final line ended but no blank line followed
            // is taken; a partial line is not.
            let events = self.parser.feed(b"\n").map_err(too_large)?;
            if self.decode(events) {
                let response = self.decoder.finish();
                self.end(response.map(Delta::Done));
            }
            return Ok(());
        };
        let events = self.parser.feed(&chunk).map_err(too_large)?;
        self.decode(events);
        Ok(())
    }

    /// Decodes events into ready deltas; returns `false` when the stream
    /// ended (complete or failed).
    fn decode(&mut self, events: Vec<SseEvent>) -> bool {
        let mut text = Vec::new();
        for event in events {
            let result = self.decoder.event(&event, &mut text);
            self.ready.extend(
                text.drain(..)
                    .filter(|t| !t.is_empty())
                    .map(|t| Ok(Delta::Text(t))),
            );
            match result {
                Ok(false) => {}
                Ok(true) => {
                    let response = self.decoder.finish();
                    self.end(response.map(Delta::Done));
                    return false;
                }
                Err(e) => {
                    self.end(Err(e));
                    return false;
                }
            }
        }
        true
    }

    fn end(&mut self, last: Result<Delta, ModelError>) {
        self.ready.push_back(last);
        self.ended = true;
    }
}
