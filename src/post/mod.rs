//! Posting to where reviewers are: a pull request's comment on GitHub
//! ([`github`]), a merge request's note on GitLab ([`gitlab`]), each a
//! [`crate::app::comment::CommentApi`]; what is posted, and when, is
//! `app::comment`'s.
//!
//! The only part of yttcheck that writes to the network, and only where the
//! runner points it (`GITHUB_API_URL`, `CI_API_V4_URL`): nothing from the
//! repository chooses an address.

pub mod github;
pub mod gitlab;

use std::time::{Duration, Instant};

/// Longest a post waits out rate limits in all.
pub const MAX_WAIT: Duration = Duration::from_secs(180);

/// A platform's API: its address, the header its token goes in, and the
/// calls made to it (rate limits waited out, the token scrubbed from every
/// message).
pub struct Client {
    /// Told how long a rate limit is waited out (the face logs it).
    pub on_wait: Box<dyn Fn(Duration)>,
    agent: ureq::Agent,
    /// The API's address, without a trailing `/`.
    api: String,
    /// The token's header (`Authorization: Bearer ...`, `PRIVATE-TOKEN`).
    auth: (&'static str, String),
    token: String,
    /// More headers every call carries.
    headers: &'static [(&'static str, &'static str)],
}

impl Client {
    /// A client of the API at `api` (an `http(s)://` address; `what` names
    /// the variable it came from, for the error).
    fn new(
        api: &str,
        what: &str,
        auth_header: &'static str,
        auth_value: String,
        token: String,
        headers: &'static [(&'static str, &'static str)],
    ) -> Result<Client, String> {
        if !(api.starts_with("https://") || api.starts_with("http://")) {
            return Err(format!(
                "{what} is not an http(s) address: {}",
                crate::escape::control(api)
            ));
        }
        Ok(Client {
            on_wait: Box::new(|_| {}),
            agent: http_agent(),
            api: api.trim_end_matches('/').to_string(),
            auth: (auth_header, auth_value),
            token,
            headers,
        })
    }

    /// `path` on the API (`/repos/o/r/...`).
    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.api)
    }

    /// A call, tried again while a rate limit says to wait (within
    /// [`MAX_WAIT`]); `body` is sent as `{"body": ...}`.
    fn call(&self, method: &str, url: &str, body: Option<&str>) -> Result<Reply, String> {
        let started = Instant::now();
        let mut attempt = 0;
        loop {
            attempt += 1;
            let reply = self.once(method, url, body)?;
            match reply.rate_limited() {
                Some(wait) if attempt < 5 && started.elapsed() + wait <= MAX_WAIT => {
                    (self.on_wait)(wait);
                    std::thread::sleep(wait);
                }
                _ => return Ok(reply),
            }
        }
    }

    fn once(&self, method: &str, url: &str, body: Option<&str>) -> Result<Reply, String> {
        let result = match method {
            "GET" => {
                let mut req = self.agent.get(url).header(self.auth.0, &self.auth.1);
                for (k, v) in self.headers {
                    req = req.header(*k, *v);
                }
                req.call()
            }
            "POST" | "PATCH" | "PUT" => {
                let mut req = match method {
                    "POST" => self.agent.post(url),
                    "PATCH" => self.agent.patch(url),
                    _ => self.agent.put(url),
                }
                .header(self.auth.0, &self.auth.1);
                for (k, v) in self.headers {
                    req = req.header(*k, *v);
                }
                let json = serde_json::json!({ "body": body.unwrap_or_default() }).to_string();
                req.content_type("application/json").send(json)
            }
            _ => unreachable!("a comment is listed, posted and edited, nothing else"),
        };
        Reply::read(result, &self.api).map_err(|e| self.scrub(&e))
    }

    /// A message with the token taken out (a server may echo a header).
    fn scrub(&self, m: &str) -> String {
        if self.token.len() >= 4 {
            m.replace(&self.token, "***")
        } else {
            m.to_string()
        }
    }

    /// The `message` of an error answer, scrubbed.
    fn message(&self, r: &Reply) -> String {
        self.scrub(&api_message(&r.body))
    }
}

/// Most bytes of an answer read (a page of 100 comments of 64 KiB each).
const MAX_ANSWER: u64 = 16 * 1024 * 1024;

/// An agent for a platform's API: no redirect followed (the token would
/// not go with it, and nothing else should answer), statuses as answers,
/// timeouts that keep a hung server from holding the job.
fn http_agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(60)))
        .timeout_connect(Some(Duration::from_secs(15)))
        .max_redirects(0)
        .http_status_as_error(false)
        .user_agent(concat!("yttcheck/", env!("CARGO_PKG_VERSION")))
        .build()
        .into()
}

/// An answer: its status, the headers a client needs, its body.
struct Reply {
    status: u16,
    retry_after: Option<String>,
    remaining: Option<String>,
    reset: Option<String>,
    link: Option<String>,
    body: String,
}

impl Reply {
    /// The JSON body, or an error naming what it should have been.
    fn json(&self, what: &str) -> Result<serde_json::Value, String> {
        serde_json::from_str(&self.body).map_err(|e| format!("{what} is not JSON: {e}"))
    }
}

impl Reply {
    /// Reads an answer (or says why there is none; `api` names the server).
    fn read(
        result: Result<ureq::http::Response<ureq::Body>, ureq::Error>,
        api: &str,
    ) -> Result<Reply, String> {
        let mut resp = result.map_err(|e| {
            format!(
                "cannot reach the API at {}: {}",
                crate::escape::control(api),
                crate::escape::control(&e.to_string())
            )
        })?;
        let header = |name: &str| {
            resp.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let (retry_after, remaining, reset, link) = (
            header("retry-after"),
            header("x-ratelimit-remaining"),
            header("x-ratelimit-reset"),
            header("link"),
        );
        let status = resp.status().as_u16();
        let body = resp
            .body_mut()
            .with_config()
            .limit(MAX_ANSWER)
            .read_to_string()
            .unwrap_or_default();
        Ok(Reply {
            status,
            retry_after,
            remaining,
            reset,
            link,
            body,
        })
    }

    /// How long to wait before trying again, for an answer that says a
    /// rate limit was hit (GitHub: 403 or 429 with `retry-after`, or with no
    /// requests left until `x-ratelimit-reset`; a secondary limit without
    /// either: a minute).
    fn rate_limited(&self) -> Option<Duration> {
        if !matches!(self.status, 403 | 429) {
            return None;
        }
        if let Some(secs) = self
            .retry_after
            .as_deref()
            .and_then(|v| v.trim().parse::<u64>().ok())
        {
            return Some(Duration::from_secs(secs));
        }
        if self.remaining.as_deref() == Some("0") {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            let reset = self
                .reset
                .as_deref()
                .and_then(|v| v.trim().parse::<u64>().ok())?;
            return Some(Duration::from_secs(reset.saturating_sub(now) + 1));
        }
        (self.status == 429
            || self
                .body
                .to_ascii_lowercase()
                .contains("secondary rate limit"))
        .then_some(Duration::from_secs(60))
    }

    /// The next page's address from the `Link` header, when it is on the
    /// same API (a `next` elsewhere would get the token's requests).
    fn next_page(&self, api: &str) -> Option<String> {
        let link = self.link.as_deref()?;
        link.split(',').find_map(|part| {
            let (url, params) = part.split_once(';')?;
            let url = url.trim().strip_prefix('<')?.strip_suffix('>')?;
            let next = params
                .split(';')
                .any(|p| p.trim().replace(' ', "") == "rel=\"next\"");
            (next && url.starts_with(&format!("{api}/"))).then(|| url.to_string())
        })
    }
}

/// The `message` of an API's JSON error (escaped, cut), or its start.
fn api_message(body: &str) -> String {
    let msg = serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v["message"].as_str().map(str::to_string))
        .unwrap_or_else(|| body.to_string());
    crate::escape::control(&crate::diff::bound::cut_str(msg.trim(), 300)).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(status: u16) -> Reply {
        Reply {
            status,
            retry_after: None,
            remaining: None,
            reset: None,
            link: None,
            body: String::new(),
        }
    }

    #[test]
    fn only_a_next_page_on_the_same_api_is_followed() {
        let mut r = reply(200);
        r.link = Some(r#"<http://127.0.0.1:9/repos/o/r/issues/1/comments?page=2>; rel="next", <http://127.0.0.1:9/x?page=5>; rel="last""#.into());
        assert_eq!(
            r.next_page("http://127.0.0.1:9").as_deref(),
            Some("http://127.0.0.1:9/repos/o/r/issues/1/comments?page=2")
        );
        assert_eq!(r.next_page("http://127.0.0.1:99"), None);
        r.link = Some(r#"<https://evil.example/steal>; rel="next""#.into());
        assert_eq!(r.next_page("https://api.github.com"), None);
    }

    #[test]
    fn rate_limits_are_waited_out_and_other_refusals_are_not() {
        let mut r = reply(403);
        assert_eq!(r.rate_limited(), None);
        r.retry_after = Some("3".into());
        assert_eq!(r.rate_limited(), Some(Duration::from_secs(3)));
        let mut s = reply(403);
        s.body = r#"{"message":"You have exceeded a secondary rate limit"}"#.into();
        assert_eq!(s.rate_limited(), Some(Duration::from_secs(60)));
        assert_eq!(reply(422).rate_limited(), None);
    }
}
