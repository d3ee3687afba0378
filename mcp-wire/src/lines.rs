//! Newline-delimited JSON framing: the stdio transport of both eras.
//!
//! One message per line, UTF-8, no embedded newline (`serde_json` never writes
//! a raw newline). Bad input must not end a session: a line over the limit
//! or not valid UTF-8 is an item of its own ([`Frame::TooLong`],
//! [`Frame::NotUtf8`]) so the reader can answer or log it and go on with the
//! next line.

use std::io;

use tokio::io::{AsyncRead, AsyncReadExt};
#[cfg(feature = "codec")]
use {
    bytes::{Buf, BytesMut},
    tokio_util::codec::Decoder,
};

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

/// Finds lines at the front of a buffer, with a size limit: what the
/// decoder ([`JsonLines`]) and the in-place reader ([`LineReader`]) share.
#[derive(Debug)]
struct Splitter {
    max: usize,
    /// How far the front line has been searched for its newline already.
    scanned: usize,
    /// Skipping the rest of a line over the limit.
    discarding: bool,
}

/// What the front of the buffer holds.
enum Piece {
    /// A line of this many bytes, its newline not included.
    Line(usize),
    /// A line over the limit begins (its bytes are being skipped).
    TooLong,
    /// Bytes of a line over the limit, skipped.
    Skipped,
}

impl Splitter {
    fn new(max: usize) -> Self {
        Splitter {
            max,
            scanned: 0,
            discarding: false,
        }
    }

    /// The piece at the front of `buf` and how many bytes it takes, or
    /// `None` to wait for more input (at `eof`, a last line needs no newline).
    fn next(&mut self, buf: &[u8], eof: bool) -> Option<(Piece, usize)> {
        let read_to = buf.len().min(self.max.saturating_add(1));
        let newline = memchr::memchr(b'\n', &buf[self.scanned.min(read_to)..read_to])
            .map(|at| at + self.scanned);
        let scanned = std::mem::take(&mut self.scanned);
        match (newline, self.discarding) {
            (Some(at), true) => {
                self.discarding = false;
                Some((Piece::Skipped, at + 1))
            }
            (None, true) => (read_to > 0).then_some((Piece::Skipped, read_to)),
            (Some(at), false) => Some((Piece::Line(at), at + 1)),
            (None, false) if buf.len() > self.max => {
                self.discarding = true;
                Some((Piece::TooLong, read_to))
            }
            (None, false) if eof && !matches!(buf, b"" | b"\r") => {
                Some((Piece::Line(buf.len()), buf.len()))
            }
            (None, false) if eof => (!buf.is_empty()).then_some((Piece::Skipped, buf.len())),
            (None, false) => {
                self.scanned = read_to.max(scanned);
                None
            }
        }
    }
}

/// A line's text without its `\r`, if it is UTF-8.
fn line_text(line: &[u8]) -> Option<&str> {
    std::str::from_utf8(line.strip_suffix(b"\r").unwrap_or(line)).ok()
}

/// A [`Decoder`] of JSON lines with a size limit (feature `codec`).
///
/// Unlike `LinesCodec`, whose errors would end a `FramedRead` stream, the
/// recoverable problems (too long, not UTF-8) are items: the bad line is
/// skipped, and reading goes on with the next.
#[cfg(feature = "codec")]
#[derive(Debug)]
pub struct JsonLines(Splitter);

#[cfg(feature = "codec")]
impl JsonLines {
    /// Frames lines of at most `max_line` bytes.
    pub fn new(max_line: usize) -> Self {
        JsonLines(Splitter::new(max_line))
    }

    fn frame(&mut self, buf: &mut BytesMut, eof: bool) -> Option<Frame> {
        loop {
            let (piece, taken) = self.0.next(buf, eof)?;
            let frame = match piece {
                Piece::Skipped => None,
                Piece::TooLong => Some(Frame::TooLong),
                Piece::Line(len) => Some(match line_text(&buf[..len]) {
                    Some(text) => Frame::Line(text.to_owned()),
                    None => Frame::NotUtf8,
                }),
            };
            buf.advance(taken);
            if frame.is_some() {
                return frame;
            }
        }
    }
}

#[cfg(feature = "codec")]
impl Decoder for JsonLines {
    type Item = Frame;
    type Error = io::Error;

    fn decode(&mut self, buf: &mut BytesMut) -> io::Result<Option<Frame>> {
        Ok(self.frame(buf, false))
    }

    fn decode_eof(&mut self, buf: &mut BytesMut) -> io::Result<Option<Frame>> {
        Ok(self.frame(buf, true))
    }
}

/// One line of input borrowed from a [`LineReader`], or why it is not one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineFrame<'a> {
    /// A line, without its line ending.
    Line(&'a str),
    /// A line longer than the limit; it has been skipped.
    TooLong,
    /// A line that is not UTF-8; it has been skipped.
    NotUtf8,
}

/// JSON lines read into one buffer and served from it in place: a line is
/// a borrowed `&str`, with nothing allocated or copied for it.
#[derive(Debug)]
pub struct LineReader {
    buf: Vec<u8>,
    start: usize,
    end: usize,
    split: Splitter,
    eof: bool,
}

/// The least room a read is offered.
const MIN_READ: usize = 8 * 1024;

impl LineReader {
    /// Frames lines of at most `max_line` bytes.
    pub fn new(max_line: usize) -> Self {
        LineReader {
            buf: vec![0; 2 * MIN_READ],
            start: 0,
            end: 0,
            split: Splitter::new(max_line),
            eof: false,
        }
    }

    /// The next frame the buffer holds, or `None` until more is read.
    pub fn next_frame(&mut self) -> Option<LineFrame<'_>> {
        loop {
            let (piece, taken) = self.split.next(&self.buf[self.start..self.end], self.eof)?;
            let at = self.start;
            self.start += taken;
            match piece {
                Piece::Skipped => {}
                Piece::TooLong => return Some(LineFrame::TooLong),
                Piece::Line(len) => {
                    return Some(match line_text(&self.buf[at..at + len]) {
                        Some(text) => LineFrame::Line(text),
                        None => LineFrame::NotUtf8,
                    })
                }
            }
        }
    }

    /// Whether the input has ended and every frame has been taken.
    pub fn is_done(&mut self) -> bool {
        self.eof
            && self
                .split
                .next(&self.buf[self.start..self.end], true)
                .is_none()
    }

    /// Whether the input has ended (frames may remain).
    pub fn at_eof(&self) -> bool {
        self.eof
    }

    /// Ends the input here (after a read error): what is buffered is still served.
    pub fn end(&mut self) {
        self.eof = true;
    }

    /// Reads what `reader` has into the buffer. At the end of input, marks
    /// it ended. Cancel-safe: dropped before it completes, nothing is lost.
    ///
    /// # Errors
    ///
    /// The reader's.
    pub async fn fill<R: AsyncRead + Unpin>(&mut self, reader: &mut R) -> io::Result<()> {
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        } else if self.buf.len() - self.end < MIN_READ && self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.buf.len() - self.end < MIN_READ {
            self.buf.resize(2 * self.buf.len(), 0);
        }
        let n = reader.read(&mut self.buf[self.end..]).await?;
        if n == 0 {
            self.eof = true;
        }
        self.end += n;
        Ok(())
    }
}

// The tests compare the reader with the decoder, which is the `codec`
// feature's: the workspace's tests turn it on (the dev-dependency on this
// crate); from the published .crate, `cargo test --features codec`.
#[cfg(all(test, feature = "codec"))]
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

    /// The same frames from the in-place reader, fed in chunks of every size.
    async fn reader_frames(input: &[u8], max: usize, chunk: usize) -> Vec<Frame> {
        let (mut tx, mut rx) = tokio::io::duplex(chunk);
        let input = input.to_vec();
        let writer = tokio::spawn(async move {
            for piece in input.chunks(chunk) {
                tokio::io::AsyncWriteExt::write_all(&mut tx, piece)
                    .await
                    .unwrap();
            }
        });
        let mut reader = LineReader::new(max);
        let mut out = Vec::new();
        while !reader.is_done() {
            while let Some(frame) = reader.next_frame() {
                out.push(match frame {
                    LineFrame::Line(line) => Frame::Line(line.to_owned()),
                    LineFrame::TooLong => Frame::TooLong,
                    LineFrame::NotUtf8 => Frame::NotUtf8,
                });
            }
            if !reader.at_eof() {
                reader.fill(&mut rx).await.unwrap();
            }
        }
        writer.await.unwrap();
        out
    }

    #[tokio::test]
    async fn the_reader_frames_as_the_decoder_does() {
        let long = "x".repeat(40_000);
        let inputs: Vec<Vec<u8>> = vec![
            b"{\"a\":1}\r\n0123456789abcdef0123\n\xff\xfe\n{}\n{\"last\":true}".to_vec(),
            format!("a\n{long}\nb\r\n\r\n\nc\r").into_bytes(),
            long.clone().into_bytes(),
            b"".to_vec(),
            b"\n\n".to_vec(),
        ];
        for input in &inputs {
            for max in [16, 50_000] {
                let expected = frames(input, max);
                for chunk in [1, 7, 4096, 100_000] {
                    assert_eq!(
                        reader_frames(input, max, chunk).await,
                        expected,
                        "{max} {chunk}"
                    );
                }
            }
        }
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
