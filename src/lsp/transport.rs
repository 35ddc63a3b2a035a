//! The connection over the standard streams (given by the command line,
//! which owns them): lsp-server's `Connection` (a pair of channels), with
//! our own reader thread, which reads through the bounded reader
//! (`lsp::frame`) and goes on after input that is no message, answering it
//! with a parse error (lsp-server's own reader stops at the first error,
//! and allocates whatever `Content-Length` says).

use std::io::{BufReader, Read, Write};
use std::thread;

use crossbeam_channel::{bounded, unbounded, Receiver, Sender};
use lsp_server::{Connection, Message, Notification};
use lsp_types::notification::{LogMessage, Notification as _};

use super::frame::{self, Bounded, Next};

/// The writer thread: joined at the end, so that everything sent is
/// written.
pub struct Io {
    writer: thread::JoinHandle<()>,
}

impl Io {
    pub fn join(self) -> Result<(), String> {
        self.writer
            .join()
            .map_err(|_| "the writer thread failed".to_string())
    }
}

/// A connection reading `input` (stdin) and writing `output` (stdout).
pub fn connect(
    input: impl Read + Send + 'static,
    output: impl Write + Send + 'static,
) -> (Connection, Io) {
    // (rendezvous channels, as lsp-server's: the server is never more than
    // a message ahead of the client)
    let (reader_sender, reader_receiver) = bounded::<Message>(0);
    let (writer_sender, writer_receiver) = bounded::<Message>(0);
    let (raw_sender, raw_receiver) = unbounded::<Vec<u8>>();
    let writer = thread::Builder::new()
        .name("yttcheck-lsp-writer".into())
        .spawn(move || write_all(output, &writer_receiver, &raw_receiver))
        .expect("a thread");
    thread::Builder::new()
        .name("yttcheck-lsp-reader".into())
        .spawn(move || {
            read_all(
                Bounded::new(BufReader::new(input), frame::MAX_FRAME),
                &reader_sender,
                &raw_sender,
            )
        })
        .expect("a thread");
    (
        Connection {
            sender: writer_sender,
            receiver: reader_receiver,
        },
        Io { writer },
    )
}

/// Reads messages until the input ends, the client says `exit` or the
/// server is gone; input that is no message is answered (`raw`) and
/// logged.
fn read_all<R: std::io::BufRead>(
    mut input: Bounded<R>,
    messages: &Sender<Message>,
    raw: &Sender<Vec<u8>>,
) {
    loop {
        match input.read_next() {
            Next::Message(m) => {
                let exit = matches!(&m, Message::Notification(n) if n.method == "exit");
                if messages.send(m).is_err() || exit {
                    return;
                }
            }
            Next::Invalid(why) => {
                let _ = raw.send(frame::parse_error(&why));
                let log = Message::Notification(Notification::new(
                    LogMessage::METHOD.to_string(),
                    lsp_types::LogMessageParams {
                        typ: lsp_types::MessageType::ERROR,
                        message: format!("yttcheck: input that is no message: {why}"),
                    },
                ));
                let mut bytes = Vec::new();
                if log.write(&mut bytes).is_ok() {
                    let _ = raw.send(bytes);
                }
            }
            Next::End => return,
        }
    }
}

/// Writes messages (and the reader's answers, already framed) to `out`
/// until the server is done with the connection.
fn write_all(mut out: impl Write, messages: &Receiver<Message>, raw: &Receiver<Vec<u8>>) {
    loop {
        let written = crossbeam_channel::select! {
            recv(messages) -> m => match m {
                // the reader's answers first: they answer input read before
                // the message this one answers
                Ok(m) => raw
                    .try_iter()
                    .try_for_each(|bytes| out.write_all(&bytes))
                    .and_then(|()| m.write(&mut out)),
                Err(_) => break,
            },
            recv(raw) -> bytes => match bytes {
                Ok(bytes) => out.write_all(&bytes).and_then(|()| out.flush()),
                // the reader is gone: messages only
                Err(_) => {
                    for m in messages {
                        if m.write(&mut out).is_err() {
                            return;
                        }
                    }
                    return;
                }
            },
        };
        if written.is_err() {
            return;
        }
    }
    // what the reader answered last
    for bytes in raw.try_iter() {
        let _ = out.write_all(&bytes);
    }
    let _ = out.flush();
}
