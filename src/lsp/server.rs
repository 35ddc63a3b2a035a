//! The server's loop: documents in, diagnostics out.

use std::collections::{BTreeMap, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use lsp_server::{Connection, ErrorCode, Message, Notification, Response};
use lsp_types::notification::{
    DidChangeConfiguration, DidChangeTextDocument, DidChangeWatchedFiles,
    DidChangeWorkspaceFolders, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument,
    LogMessage, Notification as _, PublishDiagnostics,
};
use lsp_types::request::{
    CodeActionRequest, Completion, DocumentSymbolRequest, GotoDefinition, HoverRequest, References,
    Request as _,
};
use lsp_types::{
    InitializeParams, LogMessageParams, MessageType, PublishDiagnosticsParams, SaveOptions,
    ServerCapabilities, ServerInfo, TextDocumentSyncCapability, TextDocumentSyncKind,
    TextDocumentSyncOptions, TextDocumentSyncSaveOptions, Uri,
};

use crate::app::{self, SourceOptions};
use crate::source::RepoPath;

use super::worker::{FolderJob, Job, Outcome, Worker};

/// How long edits may keep coming before the check runs (typing makes a
/// change per key; one check answers a burst).
const DEBOUNCE: Duration = Duration::from_millis(5);

/// A workspace folder, and what the last check published for each file
/// (to clear a file's diagnostics when its findings go, and to send a
/// file's list again only when it changed).
struct Folder {
    root: PathBuf,
    published: BTreeMap<String, String>,
    /// The folder's compiled Kubernetes schemas, kept between edits.
    kubernetes: Arc<app::kubernetes::KubernetesCache>,
}

impl Folder {
    fn new(root: PathBuf) -> Folder {
        Folder {
            root,
            published: BTreeMap::new(),
            kubernetes: Arc::default(),
        }
    }
}

struct State {
    folders: Vec<Folder>,
    /// Our own file watcher, when the client cannot watch for us.
    fallback: Option<super::watch::Fallback>,
    /// Open documents: their text as the editor holds it.
    open: BTreeMap<PathBuf, String>,
    dirty: bool,
    /// The checks' thread (with the memo kept between checks).
    worker: Worker,
    /// The generation of the last check asked for: only its findings are
    /// published.
    generation: u64,
    /// The user trusts the workspace (`trustWorkspace`): its configuration
    /// may have schemas fetched over the network.
    trusted: bool,
}

/// Serves the language server protocol on `input` and `output` (stdin and
/// stdout, given by the command line) until the client says `exit`; `cwd`
/// is the folder checked when the client names none.
pub fn serve(
    cwd: PathBuf,
    make_fetch: Arc<app::kubernetes::MakeFetch>,
    input: impl std::io::Read + Send + 'static,
    output: impl std::io::Write + Send + 'static,
) -> Result<(), String> {
    let (connection, io_threads) = super::transport::connect(input, output);
    let capabilities = ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::FULL),
                save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                    include_text: Some(false),
                })),
                ..Default::default()
            },
        )),
        hover_provider: Some(lsp_types::HoverProviderCapability::Simple(true)),
        definition_provider: Some(lsp_types::OneOf::Left(true)),
        document_symbol_provider: Some(lsp_types::OneOf::Left(true)),
        references_provider: Some(lsp_types::OneOf::Left(true)),
        code_action_provider: Some(lsp_types::CodeActionProviderCapability::Simple(true)),
        completion_provider: Some(lsp_types::CompletionOptions {
            trigger_characters: Some(vec![".".into()]),
            ..Default::default()
        }),
        workspace: Some(lsp_types::WorkspaceServerCapabilities {
            workspace_folders: Some(lsp_types::WorkspaceFoldersServerCapabilities {
                supported: Some(true),
                change_notifications: Some(lsp_types::OneOf::Left(true)),
            }),
            file_operations: None,
        }),
        ..Default::default()
    };
    let (id, params) = connection.initialize_start().map_err(|e| e.to_string())?;
    let params: InitializeParams =
        serde_json::from_value(params).map_err(|e| format!("initialize: {e}"))?;
    let result = serde_json::json!({
        "capabilities": capabilities,
        "serverInfo": ServerInfo {
            name: "yttcheck".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        },
    });
    connection
        .initialize_finish(id, result)
        .map_err(|e| e.to_string())?;
    // files changed outside the editor: the client watches, else we do
    let mut fallback = None;
    if super::watch::client_watches(&params.capabilities) {
        let _ = connection.sender.send(super::watch::registration().into());
    } else {
        fallback = Some(super::watch::Fallback::new());
    }
    let mut state = State {
        folders: folders(&params, cwd).into_iter().map(Folder::new).collect(),
        fallback,
        open: BTreeMap::new(),
        worker: Worker::start(make_fetch),
        generation: 0,
        trusted: trust_option(params.initialization_options.as_ref()).unwrap_or(false),
        // a first check at start: the workspace's findings, files open or not
        dirty: true,
    };
    state.watch_folders(&connection);
    main_loop(&connection, &mut state)?;
    drop(connection);
    io_threads.join()
}

/// `trustWorkspace` in the initialization options (or in the `yttcheck`
/// section of settings sent later), if it is given as a boolean.
fn trust_option(options: Option<&serde_json::Value>) -> Option<bool> {
    options?.get("trustWorkspace")?.as_bool()
}

/// The data values path at a place, and the final values of every pair
/// that reads its file.
struct ValueAt<'a> {
    folder: &'a Folder,
    keys: Vec<String>,
    readings: Vec<app::inspect::PairReading>,
}

impl State {
    /// A file's text as the editor holds it, else as it is on disk.
    fn text_of(&self, path: &std::path::Path) -> Option<String> {
        match self.open.get(path) {
            Some(t) => Some(t.clone()),
            None => crate::source::read_local_text(path).ok(),
        }
    }

    /// The final values of every pair that reads `rel` (a file of
    /// `folder`), computed over the open buffers.
    fn readings(&self, folder: &Folder, rel: &str) -> Option<Vec<app::inspect::PairReading>> {
        let buffers = buffers_under(self, &folder.root);
        let budget =
            super::worker::budget(super::worker::config_text(&folder.root, &buffers).as_deref());
        let sources = SourceOptions {
            buffers: Some(Arc::new(buffers)),
            ..SourceOptions::default()
        };
        app::inspect::pairs_reading(&folder.root, rel, &sources, &budget).ok()
    }

    /// What hover, definition and references ask first: the data values
    /// path at the place, and every pair's values.
    fn value_at(&self, at: &lsp_types::TextDocumentPositionParams) -> Option<ValueAt<'_>> {
        let path = super::uri::to_path(&at.text_document.uri)?;
        let folder = self.folders.iter().find(|f| path.starts_with(&f.root))?;
        let rel = path.strip_prefix(&folder.root).ok()?.to_str()?;
        let text = self.text_of(&path)?;
        let keys = super::hover::path_at(rel, &text, at.position.line, at.position.character)?;
        let readings = self.readings(folder, rel)?;
        Some(ValueAt {
            folder,
            keys,
            readings,
        })
    }

    /// (Re)starts our watcher on the current folders, if we watch.
    fn watch_folders(&mut self, conn: &Connection) {
        let roots: Vec<PathBuf> = self.folders.iter().map(|f| f.root.clone()).collect();
        if let Some(w) = self.fallback.as_mut() {
            if let Err(e) = w.watch(&roots) {
                log(
                    conn,
                    lsp_types::MessageType::WARNING,
                    &format!("files changed outside the editor are not seen: {e}"),
                );
            }
        }
    }
}

/// The workspace folders the client names (else its root, else the
/// current folder).
#[allow(deprecated)] // root_uri: clients that know no workspace folders
fn folders(params: &InitializeParams, cwd: PathBuf) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = params
        .workspace_folders
        .iter()
        .flatten()
        .filter_map(|f| super::uri::to_path(&f.uri))
        .collect();
    if out.is_empty() {
        if let Some(p) = params.root_uri.as_ref().and_then(super::uri::to_path) {
            out.push(p);
        }
    }
    if out.is_empty() {
        out.push(cwd);
    }
    out
}

fn main_loop(conn: &Connection, state: &mut State) -> Result<(), String> {
    // messages read ahead of the one being handled (to find cancellations)
    let mut queued: VecDeque<Message> = VecDeque::new();
    loop {
        if let Some(m) = queued.pop_front() {
            if handle(conn, state, m, &mut queued)? {
                return Ok(());
            }
            continue;
        }
        let changes = state
            .fallback
            .as_ref()
            .map_or_else(crossbeam_channel::never, |w| w.changes.clone());
        let done = state.worker.done.clone();
        let timeout = if state.dirty {
            crossbeam_channel::after(DEBOUNCE)
        } else {
            crossbeam_channel::never()
        };
        let msg = crossbeam_channel::select! {
            recv(conn.receiver) -> m => match m {
                Ok(m) => Some(m),
                Err(_) => return Ok(()),
            },
            recv(changes) -> _ => {
                if let Some(w) = state.fallback.as_mut() {
                    w.watch_new_folders();
                }
                state.dirty = true;
                continue;
            },
            recv(done) -> done => {
                if let Ok(done) = done {
                    publish_checked(conn, state, done);
                }
                continue;
            },
            recv(timeout) -> _ => None,
        };
        match msg {
            None => {
                state.dirty = false;
                start_check(state);
            }
            Some(m) => {
                if handle(conn, state, m, &mut queued)? {
                    return Ok(());
                }
            }
        }
    }
}

/// Handles one message; `Ok(true)` when the client asked to shut down.
/// A request is first checked against what the client sent since: one it
/// cancelled while it waited (behind a check, or behind other requests) is
/// answered as cancelled, without the work.
fn handle(
    conn: &Connection,
    state: &mut State,
    msg: Message,
    queued: &mut VecDeque<Message>,
) -> Result<bool, String> {
    match msg {
        Message::Request(req) => {
            if conn.handle_shutdown(&req).map_err(|e| e.to_string())? {
                return Ok(true);
            }
            queued.extend(conn.receiver.try_iter());
            if take_cancel(queued, &req.id) {
                let _ = conn.sender.send(
                    Response::new_err(
                        req.id,
                        ErrorCode::RequestCanceled as i32,
                        "cancelled by the client".into(),
                    )
                    .into(),
                );
                return Ok(false);
            }
            {
                let answer = match req.method.as_str() {
                    HoverRequest::METHOD => answer(req, |p| hover(state, p)),
                    CodeActionRequest::METHOD => answer(req, |p| code_actions(state, p)),
                    GotoDefinition::METHOD => answer(req, |p| definition(state, p)),
                    DocumentSymbolRequest::METHOD => answer(req, |p| symbols(state, p)),
                    References::METHOD => answer(req, |p| references(state, p)),
                    // a list of items is a completion response as it is
                    Completion::METHOD => answer(req, |p| complete(state, p)),
                    _ => Response::new_err(
                        req.id,
                        ErrorCode::MethodNotFound as i32,
                        format!("yttcheck does not answer {}", req.method),
                    ),
                };
                let _ = conn.sender.send(answer.into());
            }
        }
        Message::Notification(n) => {
            if n.method == DidChangeWorkspaceFolders::METHOD {
                change_folders(conn, state, n);
            } else {
                on_notification(state, n);
            }
        }
        Message::Response(_) => {}
    }
    Ok(false)
}

/// Removes a queued `$/cancelRequest` of request `id`, if there is one.
fn take_cancel(queued: &mut VecDeque<Message>, id: &lsp_server::RequestId) -> bool {
    let Ok(id) = serde_json::to_value(id) else {
        return false;
    };
    let at = queued.iter().position(|m| {
        matches!(m, Message::Notification(n)
            if n.method == lsp_types::notification::Cancel::METHOD && n.params.get("id") == Some(&id))
    });
    at.map(|i| queued.remove(i)).is_some()
}

/// The response to a request: its params read, `f`'s answer (the default
/// when `f` panics: the server goes on), or an error for bad params.
fn answer<P, R>(req: lsp_server::Request, f: impl FnOnce(&P) -> R) -> Response
where
    P: serde::de::DeserializeOwned,
    R: serde::Serialize + Default,
{
    let id = req.id.clone();
    let method = req.method.clone();
    match req.extract::<P>(&method) {
        Ok((_, params)) => {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&params)))
                .unwrap_or_default();
            Response::new_ok(id, result)
        }
        Err(e) => Response::new_err(id, ErrorCode::InvalidParams as i32, format!("{e:?}")),
    }
}

fn on_notification(state: &mut State, n: Notification) {
    match n.method.as_str() {
        DidOpenTextDocument::METHOD => {
            if let Ok(p) =
                n.extract::<lsp_types::DidOpenTextDocumentParams>(DidOpenTextDocument::METHOD)
            {
                if let Some(path) = super::uri::to_path(&p.text_document.uri) {
                    state.open.insert(path, p.text_document.text);
                    state.dirty = true;
                }
            }
        }
        DidChangeTextDocument::METHOD => {
            if let Ok(p) =
                n.extract::<lsp_types::DidChangeTextDocumentParams>(DidChangeTextDocument::METHOD)
            {
                // full sync: the last change is the whole text
                if let (Some(path), Some(change)) = (
                    super::uri::to_path(&p.text_document.uri),
                    p.content_changes.into_iter().last(),
                ) {
                    state.open.insert(path, change.text);
                    state.dirty = true;
                }
            }
        }
        DidCloseTextDocument::METHOD => {
            if let Ok(p) =
                n.extract::<lsp_types::DidCloseTextDocumentParams>(DidCloseTextDocument::METHOD)
            {
                if let Some(path) = super::uri::to_path(&p.text_document.uri) {
                    state.open.remove(&path);
                    state.dirty = true;
                }
            }
        }
        // the files on disk changed: what is not open is read again
        DidSaveTextDocument::METHOD | DidChangeWatchedFiles::METHOD => state.dirty = true,
        // `{"yttcheck": {"trustWorkspace": true}}`
        DidChangeConfiguration::METHOD => {
            let trusted = n
                .params
                .get("settings")
                .and_then(|s| trust_option(s.get("yttcheck")));
            if let Some(t) = trusted.filter(|t| *t != state.trusted) {
                state.trusted = t;
                state.dirty = true;
            }
        }
        _ => {}
    }
}

/// Workspace folders added and removed after start: a removed folder's
/// diagnostics are cleared.
fn change_folders(conn: &Connection, state: &mut State, n: Notification) {
    let Ok(p) =
        n.extract::<lsp_types::DidChangeWorkspaceFoldersParams>(DidChangeWorkspaceFolders::METHOD)
    else {
        return;
    };
    for gone in p
        .event
        .removed
        .iter()
        .filter_map(|f| super::uri::to_path(&f.uri))
    {
        if let Some(i) = state.folders.iter().position(|f| f.root == gone) {
            let folder = state.folders.remove(i);
            for uri in folder.published.keys() {
                publish(conn, uri, Vec::new());
            }
        }
    }
    for added in p
        .event
        .added
        .iter()
        .filter_map(|f| super::uri::to_path(&f.uri))
    {
        if !state.folders.iter().any(|f| f.root == added) {
            state.folders.push(Folder::new(added));
        }
    }
    state.watch_folders(conn);
    state.dirty = true;
}

/// The open buffers under `root`, by their path in it.
fn buffers_under(state: &State, root: &std::path::Path) -> BTreeMap<RepoPath, Option<Vec<u8>>> {
    state
        .open
        .iter()
        .filter_map(|(path, text)| {
            let rel = path.strip_prefix(root).ok()?.to_str()?;
            Some((RepoPath::new(rel)?, Some(text.clone().into_bytes())))
        })
        .collect()
}

/// The hover at a place: the data values path there, its schema and its
/// final value in every pair that reads the file.
fn hover(state: &State, params: &lsp_types::HoverParams) -> Option<lsp_types::Hover> {
    let ValueAt { keys, readings, .. } = state.value_at(&params.text_document_position_params)?;
    let value = super::hover::markdown(&keys, &readings)?;
    Some(lsp_types::Hover {
        contents: lsp_types::HoverContents::Markup(lsp_types::MarkupContent {
            kind: lsp_types::MarkupKind::Markdown,
            value,
        }),
        range: None,
    })
}

/// The code actions of the diagnostics the client names.
fn code_actions(
    state: &State,
    params: &lsp_types::CodeActionParams,
) -> Vec<lsp_types::CodeActionOrCommand> {
    let uri = &params.text_document.uri;
    let Some(path) = super::uri::to_path(uri) else {
        return Vec::new();
    };
    let text = state.text_of(&path).unwrap_or_default();
    params
        .context
        .diagnostics
        .iter()
        .flat_map(|d| super::actions::for_diagnostic(uri, &text, d))
        .map(lsp_types::CodeActionOrCommand::CodeAction)
        .collect()
}

/// Go to definition: from a data values path (a key of a values file, or
/// `data.values.a.b`) to where the schema declares it.
fn definition(
    state: &State,
    params: &lsp_types::GotoDefinitionParams,
) -> Option<lsp_types::GotoDefinitionResponse> {
    let ValueAt {
        folder,
        keys,
        readings,
    } = state.value_at(&params.text_document_position_params)?;
    let schema = readings.iter().find_map(|r| r.schema.as_ref())?;
    let pos = super::hover::declaration_at(&schema.value_type, &keys)?;
    let uri = super::uri::of_path(&folder.root.join(pos.file_name()))?;
    let start = lsp_types::Position {
        line: pos.line().saturating_sub(1),
        character: pos.col().saturating_sub(1),
    };
    Some(lsp_types::GotoDefinitionResponse::Scalar(
        lsp_types::Location {
            uri,
            range: lsp_types::Range { start, end: start },
        },
    ))
}

/// Where the data value at a place is declared, set and read.
fn references(
    state: &State,
    params: &lsp_types::ReferenceParams,
) -> Option<Vec<lsp_types::Location>> {
    let ValueAt {
        folder,
        keys,
        readings,
    } = state.value_at(&params.text_document_position)?;
    let read = |file: &str| state.text_of(&folder.root.join(file));
    let places =
        super::references::places(&keys, &readings, params.context.include_declaration, &read);
    Some(
        places
            .iter()
            .filter_map(|p| super::references::location(&folder.root, p))
            .collect(),
    )
}

/// The keys of a file, as the editor holds it.
fn symbols(
    state: &State,
    params: &lsp_types::DocumentSymbolParams,
) -> Option<lsp_types::DocumentSymbolResponse> {
    let path = super::uri::to_path(&params.text_document.uri)?;
    let text = state.text_of(&path)?;
    let name = path.file_name()?.to_string_lossy().into_owned();
    Some(lsp_types::DocumentSymbolResponse::Nested(
        super::symbols::of(&name, &text),
    ))
}

/// Completion at a place: the schema's keys there.
fn complete(state: &State, params: &lsp_types::CompletionParams) -> Vec<lsp_types::CompletionItem> {
    let at = &params.text_document_position;
    let Some(path) = super::uri::to_path(&at.text_document.uri) else {
        return Vec::new();
    };
    let Some(folder) = state.folders.iter().find(|f| path.starts_with(&f.root)) else {
        return Vec::new();
    };
    let Some(rel) = path
        .strip_prefix(&folder.root)
        .ok()
        .and_then(|p| p.to_str())
    else {
        return Vec::new();
    };
    let text = state.text_of(&path).unwrap_or_default();
    let values_file = rel.ends_with(".yml") || rel.ends_with(".yaml");
    // in an annotation: its name, or a validation's named rules
    if values_file {
        let line = text
            .split('\n')
            .nth(at.position.line as usize)
            .unwrap_or("");
        let before = &line[..super::position::byte_offset(line, at.position.character)];
        if let Some(place) = super::annotations::place(before) {
            return super::annotations::items(&place);
        }
    }
    let Some(place) =
        super::completion::place_at(&text, at.position.line, at.position.character, values_file)
    else {
        return Vec::new();
    };
    let Some(readings) = state.readings(folder, rel) else {
        return Vec::new();
    };
    let Some(schema) = readings.iter().find_map(|r| r.schema.as_ref()) else {
        return Vec::new();
    };
    match place {
        super::completion::Place::Reference { path } => {
            super::completion::items(&schema.value_type, &path, &[])
        }
        super::completion::Place::ValuesKey { path, present } => {
            super::completion::items(&schema.value_type, &path, &present)
        }
    }
}

/// Asks the worker for a check of every folder with the open buffers
/// (superseding the one running, if any).
fn start_check(state: &mut State) {
    state.generation += 1;
    let folders = state
        .folders
        .iter()
        .map(|f| FolderJob {
            root: f.root.clone(),
            buffers: buffers_under(state, &f.root),
            kubernetes: f.kubernetes.clone(),
        })
        .collect();
    state.worker.submit(Job {
        generation: state.generation,
        folders,
        trusted: state.trusted,
    });
}

/// Publishes what changed since the last check, if this is the check last
/// asked for (an older one's findings are dropped).
fn publish_checked(conn: &Connection, state: &mut State, done: super::worker::Done) {
    if done.generation != state.generation {
        return;
    }
    for (root, outcome) in done.folders {
        // (a folder removed meanwhile is not published)
        let Some(folder) = state.folders.iter_mut().find(|f| f.root == root) else {
            continue;
        };
        let diagnostics = match outcome {
            Outcome::Checked(d) => d,
            Outcome::Failed(e) => {
                log(
                    conn,
                    MessageType::WARNING,
                    &format!("{}: {e}", root.display()),
                );
                BTreeMap::new()
            }
            Outcome::Panicked => {
                log(
                    conn,
                    MessageType::ERROR,
                    &format!(
                        "{}: the check failed (an internal error); the server goes on",
                        root.display()
                    ),
                );
                continue;
            }
        };
        let mut now = BTreeMap::new();
        for gone in folder.published.keys() {
            if !diagnostics.contains_key(gone) {
                publish(conn, gone, Vec::new());
            }
        }
        for (uri, list) in diagnostics {
            let text = serde_json::to_string(&list).unwrap_or_default();
            if folder.published.get(&uri) != Some(&text) {
                publish(conn, &uri, list);
            }
            now.insert(uri, text);
        }
        folder.published = now;
    }
}

fn publish(conn: &Connection, uri: &str, diagnostics: Vec<lsp_types::Diagnostic>) {
    let Ok(uri) = <Uri as std::str::FromStr>::from_str(uri) else {
        return;
    };
    let params = PublishDiagnosticsParams {
        uri,
        diagnostics,
        version: None,
    };
    let _ = conn
        .sender
        .send(Notification::new(PublishDiagnostics::METHOD.to_string(), params).into());
}

fn log(conn: &Connection, typ: MessageType, message: &str) {
    let params = LogMessageParams {
        typ,
        message: format!("yttcheck: {message}"),
    };
    let _ = conn
        .sender
        .send(Notification::new(LogMessage::METHOD.to_string(), params).into());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trust_is_a_boolean_option_and_off_unless_given() {
        let t = |v: serde_json::Value| trust_option(Some(&v));
        assert_eq!(t(serde_json::json!({"trustWorkspace": true})), Some(true));
        assert_eq!(t(serde_json::json!({"trustWorkspace": false})), Some(false));
        assert_eq!(t(serde_json::json!({"trustWorkspace": "yes"})), None);
        assert_eq!(t(serde_json::json!({})), None);
        assert_eq!(t(serde_json::json!(null)), None);
        assert_eq!(trust_option(None), None);
    }

    #[test]
    fn a_queued_cancellation_of_a_request_is_found_and_taken() {
        let cancel = |id: serde_json::Value| {
            Message::Notification(Notification::new(
                "$/cancelRequest".into(),
                serde_json::json!({ "id": id }),
            ))
        };
        let mut queued: VecDeque<Message> =
            [cancel(serde_json::json!(7)), cancel(serde_json::json!("a"))].into();
        assert!(!take_cancel(&mut queued, &lsp_server::RequestId::from(3)));
        assert!(take_cancel(&mut queued, &lsp_server::RequestId::from(7)));
        assert_eq!(queued.len(), 1);
        assert!(take_cancel(
            &mut queued,
            &lsp_server::RequestId::from("a".to_string())
        ));
        assert!(queued.is_empty());
    }
}
