//! What a client and the daemon say to each other: one JSON document per
//! line (compact JSON never contains a raw newline), each way, at most
//! [`MAX_REQUEST`] bytes in and [`MAX_ANSWER`] bytes out. An answer's
//! stdout follows its line as raw bytes, after a line with their count
//! (see [`encode_reply`]): a report of thousands of findings is megabytes,
//! which JSON escaping and unescaping made a fifth of a warm check.
//!
//! The request carries the client's check (an [`app::CheckRequest`](crate::app::CheckRequest)) and index file,
//! and the daemon answers with exactly what the client prints and writes,
//! so an answer from the daemon and a check in the client are the same
//! bytes. The shape is general (a `kind` per request) so that an editor
//! integration can speak it later.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use crate::app::Answer;

/// Bumped when a request or reply changes shape; the socket's name carries
/// the binary's version too, so old clients never meet new daemons.
pub const PROTOCOL: u32 = 3;

/// The largest request the daemon reads: a command line fits many times.
pub const MAX_REQUEST: usize = 1 << 20;

/// The largest reply a client reads (reports of a big repository).
pub const MAX_ANSWER: usize = 256 << 20;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Request {
    /// A check, as the client would run it.
    Check(Box<CheckCall>),
    /// What the daemon holds.
    Status,
    /// Exit now.
    Stop,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckCall {
    pub protocol: u32,
    /// The check, its relative paths relative to its `cwd`.
    pub request: crate::app::CheckRequest,
    /// The index file git gave a hook, when not the repository's own.
    pub index_file: Option<PathBuf>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Reply {
    Answer(Answer),
    Status(Box<Status>),
    Stopping,
    /// The request could not be served (malformed, refused, another
    /// repository); the client checks in its own process instead.
    Error {
        message: String,
    },
}

/// A daemon's state, for `yttcheck daemon status` and its status file.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Status {
    pub pid: u32,
    pub version: String,
    /// The work tree it serves.
    pub root: PathBuf,
    pub socket: PathBuf,
    /// Seconds since the Unix epoch.
    pub started: u64,
    /// Times it restarted itself (the config or the binary changed).
    pub restarts: u32,
    /// A hash of `.yttcheck.yml` (empty without one).
    pub config_hash: String,
    pub requests: u64,
    pub idle_timeout_seconds: u64,
    /// Resident memory, KiB.
    pub rss_kib: u64,
    pub files: crate::source::cache::StoreStats,
    /// Plans reused, and plans made.
    pub plan_hits: u64,
    pub plan_misses: u64,
    pub memo: crate::check::memo::MemoStats,
    /// Changes the file watcher saw.
    pub watched_changes: u64,
}

/// A reply as the daemon sends it: its JSON line; for an answer, the line
/// carries an empty `stdout`, and a line with the stdout's length in bytes
/// and the bytes themselves follow.
pub fn encode_reply(reply: Reply) -> Option<Vec<u8>> {
    let (mut head, stdout) = encode_reply_parts(reply)?;
    head.extend_from_slice(stdout.as_bytes());
    Some(head)
}

/// [`encode_reply`] in two parts, the second the answer's stdout, to be
/// written one after the other: a report of megabytes is not copied again
/// behind its head.
pub fn encode_reply_parts(mut reply: Reply) -> Option<(Vec<u8>, String)> {
    let stdout = match &mut reply {
        Reply::Answer(answer) => Some(std::mem::take(&mut answer.stdout)),
        _ => None,
    };
    let mut out = serde_json::to_vec(&reply).ok()?;
    out.push(b'\n');
    if let Some(stdout) = &stdout {
        out.extend_from_slice(stdout.len().to_string().as_bytes());
        out.push(b'\n');
    }
    Some((out, stdout.unwrap_or_default()))
}

/// An answer's stdout read in one piece up to this size (8,000 findings
/// make about 2 MiB); a longer one is read as it comes.
const READ_AHEAD: usize = 32 << 20;

/// Reads what [`encode_reply`] wrote, at most [`MAX_ANSWER`] bytes in all;
/// a reply cut short (a daemon that died while writing) is an error, never
/// a shorter report.
pub fn decode_reply(input: impl std::io::BufRead) -> Result<Reply, String> {
    use std::io::{BufRead, Read};
    let too_long = || format!("the daemon's reply is over {MAX_ANSWER} bytes");
    let mut input = input.take(MAX_ANSWER as u64 + 1);
    let mut line = Vec::new();
    input
        .read_until(b'\n', &mut line)
        .map_err(|e| e.to_string())?;
    if line.len() > MAX_ANSWER {
        return Err(too_long());
    }
    if line.last() != Some(&b'\n') {
        return Err("the daemon closed the connection without a whole reply".into());
    }
    let reply: Reply = serde_json::from_slice(&line)
        .map_err(|e| format!("the daemon's reply is malformed: {e}"))?;
    let Reply::Answer(mut answer) = reply else {
        return Ok(reply);
    };
    let mut count = Vec::new();
    (&mut input)
        .take(24)
        .read_until(b'\n', &mut count)
        .map_err(|e| e.to_string())?;
    let len: usize = std::str::from_utf8(&count)
        .ok()
        .and_then(|c| c.strip_suffix('\n'))
        .and_then(|c| c.parse().ok())
        .ok_or("the daemon's reply is malformed: no length of its stdout")?;
    if line.len() + count.len() + len > MAX_ANSWER {
        return Err(too_long());
    }
    // read straight into its place, in one copy from the socket: up to
    // READ_AHEAD bytes at once (a length alone reserves no more), the rest
    // as it comes
    let cut_short = || "the daemon closed the connection without a whole reply".to_string();
    let mut stdout = vec![0u8; len.min(READ_AHEAD)];
    input.read_exact(&mut stdout).map_err(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => cut_short(),
        _ => format!("cannot read the daemon's reply: {e}"),
    })?;
    if len > stdout.len() {
        (&mut input)
            .take((len - stdout.len()) as u64)
            .read_to_end(&mut stdout)
            .map_err(|e| format!("cannot read the daemon's reply: {e}"))?;
    }
    if stdout.len() != len {
        return Err(cut_short());
    }
    answer.stdout = String::from_utf8(stdout)
        .map_err(|_| "the daemon's reply is malformed: its stdout is not UTF-8".to_string())?;
    Ok(Reply::Answer(answer))
}

fn rate(hits: u64, misses: u64) -> String {
    if hits + misses == 0 {
        "no lookups yet".into()
    } else {
        format!(
            "{:.0}% hits ({hits} of {})",
            100.0 * hits as f64 / (hits + misses) as f64,
            hits + misses
        )
    }
}

impl Status {
    /// The status as `yttcheck daemon status` prints it.
    pub fn describe(&self) -> String {
        let s = self;
        let up = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs().saturating_sub(s.started))
            .unwrap_or(0);
        format!(
        "yttcheck daemon {} (pid {}), up {up} s, {} restart{}\n  repository  {}\n  socket      {}\n  requests    {}\n  memory      {} MiB resident\n  files       {} kept, {}\n  plans       {}\n  libraries   {} kept, {}\n  pairs       {} kept, {}\n  watcher     {} changes seen\n  idle exit   after {} s\n",
        s.version,
        s.pid,
        s.restarts,
        if s.restarts == 1 { "" } else { "s" },
        s.root.display(),
        s.socket.display(),
        s.requests,
        s.rss_kib / 1024,
        s.files.entries,
        rate(s.files.hits, s.files.misses),
        rate(s.plan_hits, s.plan_misses),
        s.memo.library_entries,
        rate(s.memo.library_hits, s.memo.library_misses),
        s.memo.pair_entries,
        rate(s.memo.pair_hits, s.memo.pair_misses),
        s.watched_changes,
        s.idle_timeout_seconds
    )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer() -> Reply {
        Reply::Answer(Answer {
            stdout: "warning[x] a \"quoted\"\nline\n\u{1b}[0m é\n".into(),
            human: true,
            stderr: "e\n".into(),
            files: vec![("out.sarif".into(), "{}".into())],
            code: 1,
        })
    }

    #[test]
    fn replies_come_back_as_they_were_sent() {
        for reply in [
            answer(),
            Reply::Answer(Answer::default()),
            Reply::Stopping,
            Reply::Error {
                message: "no\nway".into(),
            },
        ] {
            let bytes = encode_reply(reply.clone()).unwrap();
            let back = decode_reply(bytes.as_slice()).unwrap();
            assert_eq!(format!("{back:?}"), format!("{reply:?}"));
        }
    }

    /// A report of megabytes over a socket, read past a small buffer: it
    /// comes back whole, and cut short (the daemon gone mid-write) it is an
    /// error.
    #[test]
    fn a_long_report_over_a_socket_comes_back_whole() {
        let stdout: String = (0..60_000)
            .map(|i| format!("warning[policy/x] finding {i} of a long report\n"))
            .collect();
        let reply = Reply::Answer(Answer {
            stdout: stdout.clone(),
            ..Answer::default()
        });
        let bytes = encode_reply(reply).unwrap();
        for keep in [bytes.len(), bytes.len() - 1, bytes.len() / 2] {
            let (mut ours, theirs) = std::os::unix::net::UnixStream::pair().unwrap();
            let sent = bytes[..keep].to_vec();
            let writer = std::thread::spawn(move || {
                use std::io::Write;
                ours.write_all(&sent).unwrap();
            });
            let back = decode_reply(std::io::BufReader::with_capacity(64 << 10, theirs));
            writer.join().unwrap();
            match back {
                Ok(Reply::Answer(a)) if keep == bytes.len() => assert!(a.stdout == stdout),
                Err(e) if keep < bytes.len() => assert!(e.contains("without a whole reply"), "{e}"),
                other => panic!("kept {keep} of {}: {other:?}", bytes.len()),
            }
        }
    }

    /// A reply cut anywhere is an error, never a shorter report.
    #[test]
    fn a_reply_cut_short_is_an_error() {
        let bytes = encode_reply(answer()).unwrap();
        for cut in 0..bytes.len() {
            assert!(decode_reply(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut long = bytes.clone();
        let at = long.iter().position(|&b| b == b'\n').unwrap() + 1;
        long.splice(at..at + 2, b"99999999999".iter().copied());
        let e = decode_reply(long.as_slice()).unwrap_err();
        assert!(e.contains("over"), "{e}");
    }
}
