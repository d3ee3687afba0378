//! Server-Sent Events: the writer the server uses and the incremental
//! parser the client (and the agent's model streams) use.
//!
//! Parsing follows the WHATWG "event stream interpretation": lines end in LF,
//! CRLF or CR; `data:` lines accumulate; `id:` sets the stream's last event
//! id; `retry:` the reconnection delay; lines starting with `:` are comments
//! (keep-alives).

use std::time::Duration;

use bytes::Bytes;

/// One event carrying `data` (a JSON-RPC message), with an optional `id:`
/// and `event:` type.
pub fn event(id: Option<&str>, event_type: Option<&str>, data: &[u8]) -> Bytes {
    let mut out = Vec::with_capacity(data.len() + 48);
    if let Some(id) = id {
        out.extend_from_slice(b"id: ");
        out.extend_from_slice(id.as_bytes());
        out.push(b'\n');
    }
    if let Some(t) = event_type {
        out.extend_from_slice(b"event: ");
        out.extend_from_slice(t.as_bytes());
        out.push(b'\n');
    }
    // `serde_json` never emits a raw newline, so one `data:` line holds the message.
    out.extend_from_slice(b"data: ");
    out.extend_from_slice(data);
    out.extend_from_slice(b"\n\n");
    Bytes::from(out)
}

/// An event that only sets the client's reconnection delay.
pub fn retry(ms: u64) -> Bytes {
    Bytes::from(format!("retry: {ms}\n\n"))
}

/// A comment line: a keep-alive that dispatches no event.
pub const KEEP_ALIVE: &[u8] = b": ping\n\n";

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` type; empty means `message`.
    pub event: String,
    /// The joined `data:` lines.
    pub data: String,
}

/// The stream grew an event or a line larger than the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooLarge;

/// Parser state for one stream (one HTTP response body).
#[derive(Debug)]
pub struct SseParser {
    line: Vec<u8>,
    /// The previous chunk ended in CR: an LF at the start of the next one belongs to it.
    after_cr: bool,
    started: bool,
    data: String,
    event: String,
    has_data: bool,
    last_event_id: Option<String>,
    retry: Option<Duration>,
    max: usize,
}

impl SseParser {
    /// A parser refusing lines and events larger than `max` bytes.
    pub fn new(max: usize) -> Self {
        SseParser {
            line: Vec::new(),
            after_cr: false,
            started: false,
            data: String::new(),
            event: String::new(),
            has_data: false,
            last_event_id: None,
            retry: None,
            max,
        }
    }

    /// Starts reading a new connection of the same stream (a resumption):
    /// partial lines and events are dropped, the last event id and the
    /// retry delay are kept.
    pub fn new_connection(&mut self) {
        self.line.clear();
        self.after_cr = false;
        self.started = false;
        self.data.clear();
        self.event.clear();
        self.has_data = false;
    }

    /// The last `id:` seen on this stream (what `Last-Event-ID` resumes from).
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_event_id.as_deref().filter(|id| !id.is_empty())
    }

    /// The last `retry:` seen on this stream.
    pub fn retry(&self) -> Option<Duration> {
        self.retry
    }

    /// Feeds a chunk of the body; returns the events it completed.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<Vec<SseEvent>, TooLarge> {
        let mut events = Vec::new();
        let mut rest = chunk;
        if self.after_cr {
            self.after_cr = false;
            if let Some(stripped) = rest.strip_prefix(b"\n") {
                rest = stripped;
            }
        }
        while let Some(pos) = rest.iter().position(|&b| b == b'\n' || b == b'\r') {
            self.line.extend_from_slice(&rest[..pos]);
            let was_cr = rest[pos] == b'\r';
            rest = &rest[pos + 1..];
            if was_cr {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
            let line = std::mem::take(&mut self.line);
            if let Some(event) = self.on_line(&line)? {
                events.push(event);
            }
        }
        self.line.extend_from_slice(rest);
        if self.line.len() > self.max {
            return Err(TooLarge);
        }
        Ok(events)
    }

    fn on_line(&mut self, raw: &[u8]) -> Result<Option<SseEvent>, TooLarge> {
        let mut raw = raw;
        if !self.started {
            self.started = true;
            raw = raw.strip_prefix("\u{feff}".as_bytes()).unwrap_or(raw);
        }
        if raw.is_empty() {
            return Ok(self.dispatch());
        }
        if raw[0] == b':' {
            return Ok(None);
        }
        let line = String::from_utf8_lossy(raw);
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_ref(), ""),
        };
        match field {
            "data" => {
                if self.data.len() + value.len() + 1 > self.max {
                    return Err(TooLarge);
                }
                self.data.push_str(value);
                self.data.push('\n');
                self.has_data = true;
            }
            "event" => value.clone_into(&mut self.event),
            "id" if !value.contains('\0') => self.last_event_id = Some(value.to_owned()),
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                if let Ok(ms) = value.parse::<u64>() {
                    self.retry = Some(Duration::from_millis(ms));
                }
            }
            _ => {}
        }
        Ok(None)
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        let event = std::mem::take(&mut self.event);
        if !self.has_data {
            return None;
        }
        self.has_data = false;
        let mut data = std::mem::take(&mut self.data);
        if data.ends_with('\n') {
            data.pop();
        }
        Some(SseEvent { event, data })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(input: &[u8], chunk: usize) -> (Vec<SseEvent>, SseParser) {
        let mut p = SseParser::new(1 << 20);
        let mut out = Vec::new();
        for c in input.chunks(chunk) {
            out.extend(p.feed(c).unwrap());
        }
        (out, p)
    }

    #[test]
    fn parses_fields_in_any_chunking_and_line_ending() {
        let input = b"\xEF\xBB\xBF: comment\r\nid: 7_0\r\nretry: 500\r\ndata: \r\n\r\nevent: message\rid: 7_1\rdata: {\"a\":\rdata: 1}\r\revent: endpoint\ndata: /messages?x=1\n\n";
        for chunk in 1..input.len() {
            let (events, p) = all(input, chunk);
            assert_eq!(
                events,
                vec![
                    SseEvent {
                        event: String::new(),
                        data: String::new()
                    },
                    SseEvent {
                        event: "message".into(),
                        data: "{\"a\":\n1}".into()
                    },
                    SseEvent {
                        event: "endpoint".into(),
                        data: "/messages?x=1".into()
                    },
                ],
                "chunk size {chunk}"
            );
            assert_eq!(p.last_event_id(), Some("7_1"));
            assert_eq!(p.retry(), Some(Duration::from_millis(500)));
        }
    }

    #[test]
    fn ignores_events_without_data_and_bad_retry() {
        let (events, p) = all(b"id: 3\nretry: soon\nevent: x\n\n:ping\n\n", 4);
        assert!(events.is_empty());
        assert_eq!(p.last_event_id(), Some("3"));
        assert_eq!(p.retry(), None);
    }

    #[test]
    fn refuses_oversized_lines() {
        let mut p = SseParser::new(16);
        assert_eq!(p.feed(&[b'x'; 40]), Err(TooLarge));
        let mut p = SseParser::new(16);
        assert_eq!(
            p.feed(b"data: 0123456789\ndata: 0123456789\n"),
            Err(TooLarge)
        );
    }
}
