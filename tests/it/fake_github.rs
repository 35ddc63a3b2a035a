//! A GitHub REST API for one pull request's comments (and GitLab's for
//! one merge request's notes, [`FakeGithub::start_gitlab`]), on 127.0.0.1: it
//! answers the three calls the comment makes as GitHub does (a paginated
//! list with a `Link` header, create, update), and the refusals a real
//! run meets (401 without the token, 403 for a read-only token, a
//! secondary rate limit with `retry-after`, 422 for a body over the
//! limit). Every request is recorded, with its `Authorization` header.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

pub const TOKEN: &str = "ghs_TESTTOKEN0123456789";
pub const REPO: &str = "acme/config";

#[derive(Debug, Clone)]
pub struct Comment {
    pub id: u64,
    pub body: String,
    pub user_type: &'static str,
    pub association: &'static str,
}

#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    pub target: String,
    pub authorization: Option<String>,
}

#[derive(Debug, Default)]
pub struct State {
    pub comments: Vec<Comment>,
    pub requests: Vec<Request>,
    /// The token may read, not write (a fork's pull request).
    pub read_only: bool,
    /// The next write meets a secondary rate limit.
    pub rate_limit_next_write: bool,
    /// Comments per page (GitHub's `per_page`, made small to paginate).
    pub per_page: usize,
    /// Longest body taken, in characters (GitHub: 65,536).
    pub max_chars: usize,
    /// Answer as GitLab's API (under `/api/v4`) instead.
    pub gitlab: bool,
    next_id: u64,
}

/// The GitLab user the token is.
pub const GITLAB_ME: u64 = 77;
pub const GITLAB_PROJECT: &str = "123";

pub struct FakeGithub {
    pub url: String,
    pub state: Arc<Mutex<State>>,
}

impl FakeGithub {
    pub fn start() -> FakeGithub {
        FakeGithub::serve(false)
    }

    /// GitLab's API: `url` is `CI_API_V4_URL`; a comment's `user_type` is
    /// its author (`"me"`: the token's user).
    pub fn start_gitlab() -> FakeGithub {
        let mut f = FakeGithub::serve(true);
        f.url.push_str("/api/v4");
        f
    }

    fn serve(gitlab: bool) -> FakeGithub {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let state = Arc::new(Mutex::new(State {
            per_page: 2,
            max_chars: 65_536,
            next_id: 1000,
            gitlab,
            ..State::default()
        }));
        let shared = state.clone();
        let base = url.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let _ = serve(stream, &shared, &base);
            }
        });
        FakeGithub { url, state }
    }

    /// A comment already on the pull request.
    pub fn add(&self, body: &str, user_type: &'static str, association: &'static str) -> u64 {
        let mut s = self.state.lock().unwrap();
        s.next_id += 1;
        let id = s.next_id;
        s.comments.push(Comment {
            id,
            body: body.into(),
            user_type,
            association,
        });
        id
    }

    pub fn comments(&self) -> Vec<Comment> {
        self.state.lock().unwrap().comments.clone()
    }

    pub fn requests(&self) -> Vec<Request> {
        self.state.lock().unwrap().requests.clone()
    }
}

fn serve(stream: TcpStream, state: &Mutex<State>, base: &str) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let (method, target) = (
        parts.next().unwrap_or("").to_string(),
        parts.next().unwrap_or("").to_string(),
    );
    let (mut length, mut authorization) = (0usize, None);
    loop {
        let mut h = String::new();
        reader.read_line(&mut h)?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            match k.to_ascii_lowercase().as_str() {
                "content-length" => length = v.trim().parse().unwrap_or(0),
                "authorization" => authorization = Some(v.trim().to_string()),
                "private-token" => authorization = Some(format!("PRIVATE-TOKEN {}", v.trim())),
                _ => {}
            }
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let body = String::from_utf8_lossy(&body).into_owned();
    let (status, headers, answer) = {
        let mut s = state.lock().unwrap();
        s.requests.push(Request {
            method: method.clone(),
            target: target.clone(),
            authorization: authorization.clone(),
        });
        let answer = if s.gitlab { answer_gitlab } else { answer };
        answer(
            &mut s,
            &method,
            &target,
            authorization.as_deref(),
            &body,
            base,
        )
    };
    let mut out = stream;
    let mut head = format!(
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        answer.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    out.write_all(head.as_bytes())?;
    out.write_all(answer.as_bytes())?;
    out.flush()
}

fn json_comment(c: &Comment) -> serde_json::Value {
    serde_json::json!({
        "id": c.id,
        "body": c.body,
        "user": {"login": if c.user_type == "Bot" { "github-actions[bot]" } else { "someone" }, "type": c.user_type},
        "author_association": c.association,
    })
}

type Answer = (u16, Vec<(String, String)>, String);

/// The page `query` asks for (`page=N`, from 1) of the comments, as JSON,
/// and whether more follow.
fn page_of(
    s: &State,
    query: &str,
    json: fn(&Comment) -> serde_json::Value,
) -> (usize, String, bool) {
    let page: usize = query
        .split('&')
        .find_map(|kv| kv.strip_prefix("page="))
        .and_then(|p| p.parse().ok())
        .unwrap_or(1);
    let per = s.per_page;
    let items: Vec<_> = s
        .comments
        .iter()
        .skip((page - 1) * per)
        .take(per)
        .map(json)
        .collect();
    (
        page,
        serde_json::Value::Array(items).to_string(),
        page * per < s.comments.len(),
    )
}

/// A new comment by `user_type`: 201 and its JSON.
fn create(
    s: &mut State,
    body: String,
    user_type: &'static str,
    association: &'static str,
    json: fn(&Comment) -> serde_json::Value,
) -> Answer {
    s.next_id += 1;
    let c = Comment {
        id: s.next_id,
        body,
        user_type,
        association,
    };
    let answer = json(&c).to_string();
    s.comments.push(c);
    (201, Vec::new(), answer)
}

/// Comment `id` given `body`: 200 and its JSON, or 404.
fn edit(
    s: &mut State,
    id: u64,
    body: String,
    json: fn(&Comment) -> serde_json::Value,
    not_found: &str,
) -> Answer {
    match s.comments.iter_mut().find(|c| c.id == id) {
        Some(c) => {
            c.body = body;
            (200, Vec::new(), json(c).to_string())
        }
        None => refuse(404, not_found),
    }
}

fn refuse(status: u16, message: &str) -> Answer {
    (
        status,
        Vec::new(),
        serde_json::json!({ "message": message }).to_string(),
    )
}

fn answer(
    s: &mut State,
    method: &str,
    target: &str,
    auth: Option<&str>,
    body: &str,
    base: &str,
) -> Answer {
    if auth != Some(&format!("Bearer {TOKEN}")) {
        return refuse(401, "Bad credentials");
    }
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let list_path = format!("/repos/{REPO}/issues/42/comments");
    let write = method == "POST" || method == "PATCH";
    if write && s.read_only {
        return refuse(403, "Resource not accessible by integration");
    }
    if write && s.rate_limit_next_write {
        s.rate_limit_next_write = false;
        return (
            403,
            vec![("retry-after".into(), "1".into())],
            serde_json::json!({"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."}).to_string(),
        );
    }
    let text = || -> Result<String, Answer> {
        let v: serde_json::Value =
            serde_json::from_str(body).map_err(|_| refuse(400, "Problems parsing JSON"))?;
        let t = v["body"].as_str().unwrap_or_default().to_string();
        if t.chars().count() > s.max_chars {
            return Err(refuse(
                422,
                "Validation Failed: body is too long (maximum is 65536 characters)",
            ));
        }
        Ok(t)
    };
    match method {
        "GET" if path == list_path => {
            let (page, items, more) = page_of(s, query, json_comment);
            let mut headers = Vec::new();
            if more {
                headers.push((
                    "link".into(),
                    format!(
                        "<{base}{list_path}?per_page=100&page={}>; rel=\"next\", <{base}{list_path}?per_page=100&page={}>; rel=\"last\"",
                        page + 1,
                        s.comments.len().div_ceil(s.per_page)
                    ),
                ));
            }
            (200, headers, items)
        }
        "POST" if path == list_path => match text() {
            Ok(t) => create(s, t, "Bot", "NONE", json_comment),
            Err(a) => a,
        },
        "PATCH" => {
            let Some(id) = path
                .strip_prefix(&format!("/repos/{REPO}/issues/comments/"))
                .and_then(|i| i.parse::<u64>().ok())
            else {
                return refuse(404, "Not Found");
            };
            match text() {
                Ok(t) => edit(s, id, t, json_comment, "Not Found"),
                Err(a) => a,
            }
        }
        _ => refuse(404, "Not Found"),
    }
}

fn json_note(c: &Comment) -> serde_json::Value {
    serde_json::json!({
        "id": c.id,
        "body": c.body,
        "system": false,
        "author": {"id": if c.user_type == "me" { GITLAB_ME } else { 5 }, "username": c.user_type},
    })
}

fn answer_gitlab(
    s: &mut State,
    method: &str,
    target: &str,
    auth: Option<&str>,
    body: &str,
    base: &str,
) -> Answer {
    if auth != Some(&format!("PRIVATE-TOKEN {TOKEN}")) {
        return refuse(401, "401 Unauthorized");
    }
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let notes = format!("/api/v4/projects/{GITLAB_PROJECT}/merge_requests/9/notes");
    let write = method == "POST" || method == "PUT";
    if write && s.read_only {
        return refuse(403, "403 Forbidden");
    }
    let text = || -> Result<String, Answer> {
        let v: serde_json::Value =
            serde_json::from_str(body).map_err(|_| refuse(400, "400 Bad request"))?;
        Ok(v["body"].as_str().unwrap_or_default().to_string())
    };
    match method {
        "GET" if path == "/api/v4/user" => (
            200,
            Vec::new(),
            serde_json::json!({"id": GITLAB_ME, "username": "project_123_bot"}).to_string(),
        ),
        "GET" if path == notes => {
            let (page, items, more) = page_of(s, query, json_note);
            let mut headers = Vec::new();
            if more {
                headers.push((
                    "link".into(),
                    format!(
                        "<{base}{notes}?per_page=100&page={}>; rel=\"next\"",
                        page + 1
                    ),
                ));
                headers.push(("x-next-page".into(), (page + 1).to_string()));
            }
            (200, headers, items)
        }
        "POST" if path == notes => match text() {
            Ok(t) => create(s, t, "me", "", json_note),
            Err(a) => a,
        },
        "PUT" => {
            let Some(id) = path
                .strip_prefix(&format!("{notes}/"))
                .and_then(|i| i.parse::<u64>().ok())
            else {
                return refuse(404, "404 Not found");
            };
            match text() {
                Ok(t) => edit(s, id, t, json_note, "404 Not found"),
                Err(a) => a,
            }
        }
        _ => refuse(404, "404 Not found"),
    }
}
