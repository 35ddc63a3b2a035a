//! The protocol's input, bounded: `lsp-server`'s `Message::read` does the
//! framing (headers, `Content-Length`, the JSON body); [`Bounded`] is the
//! `BufRead` it reads through, which looks at the header lines as they
//! pass and refuses, before `Message::read` allocates anything for it, a
//! frame over the limit or a header line over [`MAX_HEADER_LINE`].
//!
//! Input that is no message (a body that is not JSON, headers without a
//! `Content-Length`, a frame too large) does not end the server:
//! [`Bounded::read_next`] says what was wrong (the server answers a JSON-RPC
//! parse error, `id: null`), and the next call goes on from the next frame
//! (a refused frame's body is read past without being kept; after broken
//! headers, the input is read up to the next `Content-Length:`).

use std::io::{self, BufRead, Read};

use lsp_server::{ErrorCode, Message, RequestId, Response};

/// The largest frame read (a 64 MiB buffer is far beyond any document an
/// editor holds open for a ytt repository).
pub const MAX_FRAME: u64 = 64 << 20;

/// The largest refused frame read past byte by byte (a real one over
/// [`MAX_FRAME`]); a frame claiming more is resynchronised past, up to the
/// next `Content-Length:`.
pub const MAX_SKIP: u64 = 1 << 30;

/// The longest header line (headers are a few dozen bytes).
pub const MAX_HEADER_LINE: usize = 8 << 10;

/// The header line that starts a frame, as a resynchronisation looks for it
/// (lowercase: header names are matched without case).
const START: &[u8] = b"content-length:";

/// What the next read found.
#[derive(Debug)]
pub enum Next {
    Message(Message),
    /// Input that is no message, skipped: why (for the parse error).
    Invalid(String),
    /// The input ended (or could not be read).
    End,
}

/// Where the reader is in a frame.
#[derive(Debug)]
enum State {
    Headers(Headers),
    Body { remaining: u64 },
}

#[derive(Debug, Default)]
struct Headers {
    /// The current line (up to the longest a header line may be).
    line: Vec<u8>,
    /// The current line's length so far.
    line_len: usize,
    /// Lines of this frame's headers read whole.
    lines: usize,
    length: Option<u64>,
    /// A `Content-Length` over the limit: the frame is refused.
    too_large: Option<u64>,
    /// The headers ended (an empty line) without a `Content-Length`.
    no_length: bool,
}

/// What to do before reading on, after an error.
#[derive(Debug, Clone, Copy)]
enum Recovery {
    /// The rest of a refused frame's headers, then its body.
    SkipFrame(u64),
    /// Up to the next `Content-Length:`.
    Resync,
}

/// A `BufRead` that bounds what `Message::read` reads through it.
pub struct Bounded<R> {
    inner: R,
    limit: u64,
    /// Bytes served before the inner reader's (a header line's start found
    /// by a resynchronisation).
    pending: Vec<u8>,
    state: State,
    recovery: Option<Recovery>,
}

impl<R: BufRead> Bounded<R> {
    /// Reads frames of at most `limit` bytes from `inner`.
    pub fn new(inner: R, limit: u64) -> Bounded<R> {
        Bounded {
            inner,
            limit,
            pending: Vec::new(),
            state: State::Headers(Headers::default()),
            recovery: None,
        }
    }

    /// The next message, or what was wrong with the input in its place.
    /// Never allocates more than the limit for a frame, and never panics.
    pub fn read_next(&mut self) -> Next {
        if let Some(r) = self.recovery.take() {
            let done = match r {
                Recovery::SkipFrame(n) => self.skip_frame(n),
                Recovery::Resync => self.resync(),
            };
            if done.is_err() {
                return Next::End;
            }
        }
        match Message::read(self) {
            Ok(Some(m)) => Next::Message(m),
            Ok(None) => Next::End,
            Err(e) if e.kind() != io::ErrorKind::InvalidData => Next::End,
            Err(e) => self.invalid(&e),
        }
    }

    /// After `Message::read` failed on what it read: why, and how to go on.
    fn invalid(&mut self, e: &io::Error) -> Next {
        let state = std::mem::replace(&mut self.state, State::Headers(Headers::default()));
        let headers = match state {
            State::Headers(h) => h,
            // (a body is read whole by `read_exact`: an error inside one
            // ended the input, handled above)
            State::Body { .. } => {
                self.recovery = Some(Recovery::Resync);
                return Next::Invalid("a message's body could not be read".into());
            }
        };
        if let Some(n) = headers.too_large {
            // a length no client sends (a terabyte) is no frame to read
            // past: skipping it would swallow every message after it, so
            // the input is read up to the next frame's header instead
            if n > MAX_SKIP {
                self.recovery = Some(Recovery::Resync);
                return Next::Invalid(format!(
                    "a message claims {n} bytes, over the limit of {} bytes: skipped to the next message",
                    self.limit
                ));
            }
            self.recovery = Some(Recovery::SkipFrame(n));
            return Next::Invalid(format!(
                "a message of {n} bytes is over the limit of {} bytes: it is skipped",
                self.limit
            ));
        }
        if headers.line_len > MAX_HEADER_LINE {
            self.recovery = Some(Recovery::Resync);
            return Next::Invalid(format!(
                "a header line is over {MAX_HEADER_LINE} bytes: skipped to the next message"
            ));
        }
        if headers.lines == 0 && headers.line_len == 0 && !headers.no_length {
            // the body was read whole: it is not a message
            let mut why: String = e.to_string().chars().take(200).collect();
            if why.len() < e.to_string().len() {
                why.push_str("...");
            }
            return Next::Invalid(format!("the message is not JSON-RPC: {why}"));
        }
        self.recovery = Some(Recovery::Resync);
        Next::Invalid(if headers.no_length {
            "a message without a Content-Length header: skipped to the next message".into()
        } else {
            "a malformed header: skipped to the next message".into()
        })
    }

    /// The bytes at hand, the pending ones first, without looking at them.
    fn raw_fill(&mut self) -> io::Result<&[u8]> {
        if !self.pending.is_empty() {
            return Ok(&self.pending);
        }
        self.inner.fill_buf()
    }

    fn raw_consume(&mut self, n: usize) {
        if !self.pending.is_empty() {
            self.pending.drain(..n.min(self.pending.len()));
        } else {
            self.inner.consume(n);
        }
    }

    /// Reads past the rest of a refused frame: its headers (to the empty
    /// line), then its `n` bytes of body, keeping none of them.
    fn skip_frame(&mut self, n: u64) -> io::Result<()> {
        // at the start of a header line (the Content-Length line was read)
        let mut at_start = true;
        let mut cr = false;
        loop {
            let (used, done) = {
                let buf = self.raw_fill()?;
                if buf.is_empty() {
                    return Err(io::ErrorKind::UnexpectedEof.into());
                }
                let mut used = 0;
                let mut done = false;
                for &b in buf {
                    used += 1;
                    if cr && b == b'\n' {
                        done = true;
                        break;
                    }
                    cr = at_start && b == b'\r';
                    at_start = b == b'\n';
                }
                (used, done)
            };
            self.raw_consume(used);
            if done {
                break;
            }
        }
        let mut remaining = n;
        while remaining > 0 {
            let len = self.raw_fill()?.len();
            if len == 0 {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            let take = (len as u64).min(remaining) as usize;
            self.raw_consume(take);
            remaining -= take as u64;
        }
        self.state = State::Headers(Headers::default());
        Ok(())
    }

    /// Reads up to the next `Content-Length:` (any case), which is kept to
    /// be read as the start of the next frame.
    fn resync(&mut self) -> io::Result<()> {
        let mut matched: Vec<u8> = Vec::with_capacity(START.len());
        loop {
            let (used, found) = {
                let buf = self.raw_fill()?;
                if buf.is_empty() {
                    return Err(io::ErrorKind::UnexpectedEof.into());
                }
                let mut used = 0;
                let mut found = false;
                for &b in buf {
                    used += 1;
                    if b.to_ascii_lowercase() == START[matched.len()] {
                        matched.push(b);
                    } else {
                        matched.clear();
                        // (the needle's first byte is in it only first)
                        if b.to_ascii_lowercase() == START[0] {
                            matched.push(b);
                        }
                    }
                    if matched.len() == START.len() {
                        found = true;
                        break;
                    }
                }
                (used, found)
            };
            self.raw_consume(used);
            if found {
                // read again first, before what is left
                self.pending.splice(0..0, matched);
                self.state = State::Headers(Headers::default());
                return Ok(());
            }
        }
    }

    /// Looks at `bytes` as they are consumed.
    fn account(state: &mut State, limit: u64, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            match state {
                State::Body { remaining } => {
                    let take = (bytes.len() as u64).min(*remaining) as usize;
                    *remaining -= take as u64;
                    bytes = &bytes[take..];
                    if *remaining == 0 {
                        *state = State::Headers(Headers::default());
                    }
                }
                State::Headers(h) => {
                    let b = bytes[0];
                    bytes = &bytes[1..];
                    h.line_len = h.line_len.saturating_add(1);
                    if h.line.len() <= MAX_HEADER_LINE + 2 {
                        h.line.push(b);
                    }
                    if b != b'\n' {
                        continue;
                    }
                    if h.line == b"\r\n" {
                        match h.length {
                            Some(0) => *state = State::Headers(Headers::default()),
                            Some(n) if h.too_large.is_none() => {
                                *state = State::Body { remaining: n }
                            }
                            _ => {
                                h.no_length = h.length.is_none();
                                h.line.clear();
                                h.line_len = 0;
                            }
                        }
                        continue;
                    }
                    // `Name: value\r\n`, as lsp-server reads it
                    if let Some(length) = content_length(&h.line) {
                        match length {
                            Some(n) if n <= limit => h.length = Some(n),
                            // a number beyond the limit, or beyond any size
                            _ => h.too_large = Some(length.unwrap_or(u64::MAX)),
                        }
                    }
                    h.lines += 1;
                    h.line.clear();
                    h.line_len = 0;
                }
            }
        }
    }
}

/// The value of a `Content-Length` header line, read as lsp-server reads
/// it (`None` inside: a number beyond any size); not such a line, or a
/// value lsp-server does not read as a number: `None`.
fn content_length(line: &[u8]) -> Option<Option<u64>> {
    let line = line.strip_suffix(b"\r\n")?;
    let at = line.windows(2).position(|w| w == b": ")?;
    let (name, value) = (&line[..at], &line[at + 2..]);
    if !name.eq_ignore_ascii_case(b"content-length") {
        return None;
    }
    match std::str::from_utf8(value).ok()?.parse::<u64>() {
        Ok(n) => Some(Some(n)),
        Err(e) if *e.kind() == std::num::IntErrorKind::PosOverflow => Some(None),
        Err(_) => None,
    }
}

impl<R: BufRead> Read for Bounded<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = {
            let buf = self.fill_buf()?;
            let n = buf.len().min(out.len());
            out[..n].copy_from_slice(&buf[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Bounded<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if let State::Headers(h) = &self.state {
            if let Some(n) = h.too_large {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("a message of {n} bytes is over the limit"),
                ));
            }
            if h.line_len > MAX_HEADER_LINE {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "a header line is too long",
                ));
            }
        }
        if !self.pending.is_empty() {
            return Ok(&self.pending);
        }
        let buf = self.inner.fill_buf()?;
        Ok(match self.state {
            // not past the body's end
            State::Body { remaining } => &buf[..(buf.len() as u64).min(remaining) as usize],
            State::Headers(_) => buf,
        })
    }

    fn consume(&mut self, amt: usize) {
        if amt == 0 {
            return;
        }
        if !self.pending.is_empty() {
            let amt = amt.min(self.pending.len());
            Self::account(&mut self.state, self.limit, &self.pending[..amt]);
            self.pending.drain(..amt);
            return;
        }
        match self.inner.fill_buf() {
            Ok(buf) => {
                let amt = amt.min(buf.len());
                Self::account(&mut self.state, self.limit, &buf[..amt]);
                self.inner.consume(amt);
            }
            Err(_) => self.inner.consume(amt),
        }
    }
}

/// The JSON-RPC parse error (`-32700`, `id: null`) answering input that is
/// no message, framed by lsp-server's `Message::write`: a response's id
/// cannot be null there, so it is written with a two-character string id,
/// as long as `null`, which then takes its place (the frame's length is
/// unchanged).
pub fn parse_error(why: &str) -> Vec<u8> {
    const PLACEHOLDER: &[u8] = br#""id":"--""#;
    let response = Response::new_err(
        RequestId::from("--".to_string()),
        ErrorCode::ParseError as i32,
        why.to_string(),
    );
    let mut out = Vec::new();
    if Message::Response(response).write(&mut out).is_err() {
        return Vec::new();
    }
    // the first occurrence is the id: it comes before the error, whose
    // message has its quotes escaped
    if let Some(at) = out
        .windows(PLACEHOLDER.len())
        .position(|w| w == PLACEHOLDER)
    {
        out[at + 5..at + 9].copy_from_slice(b"null");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    const SHUTDOWN: &str = r#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#;

    fn all(input: &[u8], limit: u64) -> Vec<Next> {
        let mut r = Bounded::new(io::BufReader::with_capacity(7, input), limit);
        let mut out = Vec::new();
        loop {
            let n = r.read_next();
            let end = matches!(n, Next::End);
            out.push(n);
            if end || out.len() > 100 {
                return out;
            }
        }
    }

    fn kinds(next: &[Next]) -> Vec<&'static str> {
        next.iter()
            .map(|n| match n {
                Next::Message(_) => "message",
                Next::Invalid(_) => "invalid",
                Next::End => "end",
            })
            .collect()
    }

    #[test]
    fn messages_are_read_and_bad_input_is_skipped() {
        let good = frame(SHUTDOWN);
        assert_eq!(kinds(&all(good.as_bytes(), MAX_FRAME)), ["message", "end"]);
        for bad in [
            frame("garbage"),
            frame("{\"not\": \"a message\"}"),
            frame("\u{ff}"),
            "Content-Type: x\r\n\r\n".to_string(),
            "Content-Type: x\r\n\r\n{\"a\":1}\r\n".to_string(),
            "garbage\r\n".to_string(),
            "\n".to_string(),
            "Content-Length: x\r\n\r\n".to_string(),
            format!("X: {}\r\n\r\n", "y".repeat(MAX_HEADER_LINE * 2)),
        ] {
            let input = format!("{bad}{good}{good}");
            let got = all(input.as_bytes(), MAX_FRAME);
            assert_eq!(
                kinds(&got),
                ["invalid", "message", "message", "end"],
                "{bad:?}: {got:?}"
            );
        }
        // garbage without a line end runs into the next frame's headers:
        // that frame is lost, the one after is read
        let input = format!("no line end, then {good}{good}");
        assert_eq!(
            kinds(&all(input.as_bytes(), MAX_FRAME)),
            ["invalid", "message", "end"]
        );
    }

    #[test]
    fn a_frame_over_the_limit_is_refused_and_its_body_skipped() {
        let body = "x".repeat(100);
        let input = format!(
            "Content-Length: 100\r\nContent-Type: y\r\n\r\n{body}{}",
            frame(SHUTDOWN)
        );
        let got = all(input.as_bytes(), 50);
        assert_eq!(kinds(&got), ["invalid", "message", "end"], "{got:?}");
        let Next::Invalid(why) = &got[0] else {
            unreachable!()
        };
        assert!(why.contains("100 bytes is over the limit of 50"), "{why}");
        // a frame that claims a terabyte: refused before any of it is read,
        // and the input read on from the next frame's header (a terabyte
        // read past would swallow every message after it)
        for huge in [
            "1099511627776".to_string(),
            "+1099511627776".to_string(),
            format!("{}1099511627776", "0".repeat(100)),
            "99999999999999999999999".to_string(),
        ] {
            let input = format!("Content-Length: {huge}\r\n\r\n{{}}{}", frame(SHUTDOWN));
            let got = all(input.as_bytes(), MAX_FRAME);
            assert_eq!(kinds(&got), ["invalid", "message", "end"], "{huge}");
        }
        // at the limit: read
        let input = frame(SHUTDOWN);
        let got = all(input.as_bytes(), SHUTDOWN.len() as u64);
        assert_eq!(kinds(&got), ["message", "end"]);
    }

    /// Inputs made of the pieces frames are made of, in any order: every
    /// read makes progress (the input's end is reached), and no message
    /// read is over the limit. (`fuzz/fuzz_targets/lsp_frame.rs` searches
    /// further.)
    #[test]
    fn any_mix_of_frame_pieces_is_read_to_its_end() {
        let good = frame(SHUTDOWN);
        let pieces: Vec<&[u8]> = vec![
            b"Content-Length: ",
            b"content-length: 2",
            b"7",
            b"1099511627776",
            b"\r\n",
            b"\r",
            b"\n",
            b": ",
            b"{}",
            b"garbage",
            b"\xff\xfe",
            good.as_bytes(),
            &[b'x'; 300],
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..3000 {
            let mut input = Vec::new();
            for _ in 0..1 + next() % 24 {
                input.extend_from_slice(pieces[(next() % pieces.len() as u64) as usize]);
            }
            let mut r = Bounded::new(io::BufReader::with_capacity(5, &input[..]), 64);
            let mut ended = false;
            for _ in 0..input.len() + 2 {
                match r.read_next() {
                    Next::Message(m) => {
                        let len = serde_json::to_vec(&m).unwrap().len();
                        assert!(len <= 64 + 20, "{len}: {input:?}");
                    }
                    Next::Invalid(_) => {}
                    Next::End => {
                        ended = true;
                        break;
                    }
                }
            }
            assert!(ended, "no end: {:?}", String::from_utf8_lossy(&input));
        }
    }

    #[test]
    fn the_parse_error_has_a_null_id_and_its_frame_its_length() {
        let bytes = parse_error("a \"quoted\" \"id\":\"--\" word");
        let text = String::from_utf8(bytes).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert_eq!(head, format!("Content-Length: {}", body.len()));
        let v: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(v["id"], serde_json::Value::Null);
        assert_eq!(v["error"]["code"], -32700);
        assert_eq!(v["error"]["message"], "a \"quoted\" \"id\":\"--\" word");
    }
}
