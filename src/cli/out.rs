//! The command line's standard streams: everything yttcheck prints goes
//! through here (the `outln!`/`errln!` macros, [`report`], [`data`]), so
//! one place decides what text from the repository may look like when it
//! gets there.
//!
//! * Messages (stderr, and stdout that is not data) never carry a raw
//!   control character: [`crate::escape::control`] keeps our line feeds and
//!   escapes the rest.
//! * Inside a GitHub Actions step (`GITHUB_ACTIONS=true`) the runner reads
//!   both streams for workflow commands, so every message line is
//!   [neutralized](crate::escape::workflow::neutralize), and a
//!   human-readable report on stdout is also put between
//!   `::stop-commands::<random token>` and `::<token>::`. The only commands
//!   that reach the runner are the ones yttcheck builds itself
//!   ([`crate::escape::workflow::command`]).
//! * Data (`render`'s YAML, `inspect`'s values, JSON, SARIF) is printed as
//!   it is: its printers already escape what they must, and a pipe to
//!   another program must get exactly the data.

use std::io::Write;
use std::sync::OnceLock;

pub use crate::escape::workflow::command;
use crate::escape::{control_lines, workflow};

/// Whether this process runs in a GitHub Actions step, whose runner reads
/// its output for workflow commands.
pub fn in_runner() -> bool {
    static RUNNER: OnceLock<bool> = OnceLock::new();
    *RUNNER.get_or_init(|| std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true"))
}

/// A message made safe for the streams: control characters escaped (line
/// feeds kept), and in a runner no workflow command in any line.
pub fn message(text: &str) -> String {
    if in_runner() {
        workflow::neutralize_lines(text)
    } else {
        control_lines(text).into_owned()
    }
}

/// Writes a message to stderr (the `errln!` macro).
pub fn err(text: &str) {
    let mut e = std::io::stderr().lock();
    let _ = e.write_all(message(text).as_bytes());
    let _ = e.flush();
}

/// Writes a message to stdout (the `outln!` macro).
pub fn out(text: &str) {
    write_stdout(&message(text));
}

/// Writes a human-readable report to stdout: in a runner, neutralized and
/// guarded by `::stop-commands::`.
pub fn report(text: &str) {
    if in_runner() && !text.is_empty() {
        write_stdout(&workflow::guard(text, &stop_token()));
    } else {
        write_stdout(text);
    }
}

/// Writes data to stdout as it is.
pub fn data(text: &str) {
    write_stdout(text);
}

/// Stdout for a protocol that frames what it writes itself (the language
/// server's JSON-RPC: nothing else is written there while it runs).
pub fn protocol() -> std::io::Stdout {
    std::io::stdout()
}

fn write_stdout(text: &str) {
    let mut o = std::io::stdout().lock();
    // a closed pipe (`| head`) ends the output quietly
    let _ = o.write_all(text.as_bytes());
    let _ = o.flush();
}

/// A fresh, unguessable `::stop-commands::` token.
pub fn stop_token() -> String {
    let mut bytes = [0u8; 16];
    let filled = std::fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes))
        .is_ok();
    if !filled {
        // no /dev/urandom: the standard library's per-process random keys
        use std::hash::{BuildHasher, Hasher};
        for chunk in bytes.chunks_mut(8) {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u128(
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos()),
            );
            chunk.copy_from_slice(&h.finish().to_le_bytes()[..chunk.len()]);
        }
    }
    workflow::stop_token(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_tokens_differ() {
        assert_ne!(stop_token(), stop_token());
    }
}
