//! Newline-delimited JSON framing: the stdio transport of both eras.
//!
//! One message per line, UTF-8, no embedded newline (`serde_json` never writes
//! a raw newline). Bad input must not end a session: a line over the limit
//! or not valid UTF-8 is an item of its own ([`Frame::TooLong`],
//! [`Frame::NotUtf8`]) so the reader can answer or log it and go on with the
//! next line.

use std::io;

use bytes::BytesMut;
use tokio_util::codec::{Decoder, LinesCodec, LinesCodecError};

/// One line of input, or why it is not one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// A line, without its line ending (`\n` or `\r\n`).
    Line(String),
    /// A line longer than the limit; it has been skipped.
    TooLong,
    /// A line that is not UTF-8; it has been skipped.
    NotUtf8,
}

/// A [`Decoder`] of JSON lines with a size limit.
///
/// Built on `LinesCodec`, whose errors would end a `FramedRead` stream;
/// here the recoverable ones (too long, not UTF-8) are reported as items
/// instead. `LinesCodec` has already skipped the bad line (or discards up to
/// the next newline), so reading on is safe.
#[derive(Debug)]
pub struct JsonLines(LinesCodec);

impl JsonLines {
    /// Frames lines of at most `max_line` bytes.
    pub fn new(max_line: usize) -> Self {
        JsonLines(LinesCodec::new_with_max_length(max_line))
    }

    fn map(r: Result<Option<String>, LinesCodecError>) -> io::Result<Option<Frame>> {
        match r {
            Ok(line) => Ok(line.map(Frame::Line)),
            Err(LinesCodecError::MaxLineLengthExceeded) => Ok(Some(Frame::TooLong)),
            Err(LinesCodecError::Io(e)) if e.kind() == io::ErrorKind::InvalidData => {
                Ok(Some(Frame::NotUtf8))
            }
            Err(LinesCodecError::Io(e)) => Err(e),
        }
    }
}

impl Decoder for JsonLines {
    type Item = Frame;
    type Error = io::Error;

    fn decode(&mut self, buf: &mut BytesMut) -> io::Result<Option<Frame>> {
        Self::map(self.0.decode(buf))
    }

    fn decode_eof(&mut self, buf: &mut BytesMut) -> io::Result<Option<Frame>> {
        Self::map(self.0.decode_eof(buf))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8], max: usize) -> Vec<Frame> {
        let mut codec = JsonLines::new(max);
        let mut buf = BytesMut::from(input);
        let mut out = Vec::new();
        while let Some(f) = codec.decode(&mut buf).unwrap() {
            out.push(f);
        }
        while let Some(f) = codec.decode_eof(&mut buf).unwrap() {
            out.push(f);
        }
        out
    }

    #[test]
    fn bad_lines_are_items_and_the_next_line_is_read() {
        let input = b"{\"a\":1}\r\n0123456789abcdef0123\n\xff\xfe\n{}\n{\"last\":true}";
        assert_eq!(
            frames(input, 16),
            vec![
                Frame::Line("{\"a\":1}".into()),
                Frame::TooLong,
                Frame::NotUtf8,
                Frame::Line("{}".into()),
                Frame::Line("{\"last\":true}".into()),
            ]
        );
    }
}
