//! A pull request's comments through GitHub's REST API: the three calls
//! the comment needs, and no other.
//!
//! * `GET /repos/{o}/{r}/issues/{n}/comments` (every page, by the `Link`
//!   header's `next`, which must stay on the API's own address);
//! * `POST /repos/{o}/{r}/issues/{n}/comments`;
//! * `PATCH /repos/{o}/{r}/issues/comments/{id}`.
//!
//! The API is `GITHUB_API_URL` as the runner gives it (GitHub Enterprise
//! Server, or a test's `http://127.0.0.1:PORT`), the token `GITHUB_TOKEN`;
//! the token goes in the `Authorization` header of these requests only
//! (no redirect is followed) and never into a message. A secondary rate
//! limit (403 or 429 with `retry-after`, or no requests left) is waited
//! out and the call retried, within [`super::MAX_WAIT`].

use crate::app::comment::{CommentApi, Posted};

use super::{Client, Reply};

/// Most pages of comments read (100 each).
const MAX_PAGES: usize = 100;

/// The comments of one pull request.
pub struct GithubComments {
    pub client: Client,
    /// `owner/name`.
    repo: String,
    number: u64,
}

/// `owner/name` as GitHub allows them: no `/`, `?`, `#`, `..` or space
/// that would make another URL.
fn valid_repo(repo: &str) -> bool {
    let mut parts = repo.split('/');
    let ok = |p: Option<&str>| {
        p.is_some_and(|p| {
            !p.is_empty()
                && p != "."
                && p != ".."
                && p.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
        })
    };
    ok(parts.next()) && ok(parts.next()) && parts.next().is_none()
}

impl GithubComments {
    /// From the step's variables (`GITHUB_API_URL`, `GITHUB_REPOSITORY`,
    /// `GITHUB_TOKEN`; `var` reads one: the face reads the environment),
    /// for pull request `number`.
    pub fn from_vars(
        number: u64,
        var: &dyn Fn(&str) -> Option<String>,
    ) -> Result<GithubComments, String> {
        let api = var("GITHUB_API_URL").unwrap_or_else(|| "https://api.github.com".into());
        let repo = var("GITHUB_REPOSITORY").ok_or(
            "GITHUB_REPOSITORY is not set: the comment needs the repository (owner/name) it goes to",
        )?;
        if !valid_repo(&repo) {
            return Err(format!(
                "GITHUB_REPOSITORY is not owner/name: {}",
                crate::escape::control(&repo)
            ));
        }
        let token = var("GITHUB_TOKEN").ok_or(
            "GITHUB_TOKEN is not set: give the step `env: GITHUB_TOKEN: ${{ github.token }}` and the job `permissions: pull-requests: write`",
        )?;
        Ok(GithubComments {
            client: Client::new(
                &api,
                "GITHUB_API_URL",
                "Authorization",
                format!("Bearer {token}"),
                token,
                &[
                    ("Accept", "application/vnd.github+json"),
                    ("X-GitHub-Api-Version", "2022-11-28"),
                ],
            )?,
            repo,
            number,
        })
    }

    /// The error for an answer that is not success.
    fn refused(&self, what: &str, r: &Reply) -> String {
        let msg = self.client.message(r);
        let place = self.place();
        let may_not = || {
            format!(
                "the token may not {what} on {place} ({} {msg}): give the job `permissions: pull-requests: write`; \
                 a pull request from a fork gets a read-only token, so post from a `workflow_run` job (see docs/ci.md, \"The pull request comment\")",
                r.status
            )
        };
        match r.status {
            401 => format!("GitHub refused GITHUB_TOKEN ({what}: 401 {msg})"),
            403 => may_not(),
            404 if what == "list the comments" => format!(
                "{place} was not found (404 {msg}): is the number right, and may the token read the repository?"
            ),
            404 => may_not(),
            422 => format!("GitHub refused the comment ({what}: 422 {msg})"),
            s => format!("GitHub answered {s} to {what} on {place}: {msg}"),
        }
    }
}

impl CommentApi for GithubComments {
    fn list(&self) -> Result<Vec<Posted>, String> {
        let mut url = self.client.url(&format!(
            "/repos/{}/issues/{}/comments?per_page=100",
            self.repo, self.number
        ));
        let mut out = Vec::new();
        for _ in 0..MAX_PAGES {
            let r = self.client.call("GET", &url, None)?;
            if r.status != 200 {
                return Err(self.refused("list the comments", &r));
            }
            let page = r.json("GitHub's list of comments")?;
            let items = page
                .as_array()
                .ok_or("GitHub's list of comments is not a list")?;
            for c in items {
                let Some(id) = c["id"].as_u64() else { continue };
                let bot = c["user"]["type"].as_str() == Some("Bot");
                let member = matches!(
                    c["author_association"].as_str(),
                    Some("OWNER" | "MEMBER" | "COLLABORATOR")
                );
                out.push(Posted {
                    id,
                    body: c["body"].as_str().unwrap_or_default().to_string(),
                    trusted_author: bot || member,
                });
            }
            match r.next_page(&self.client.api) {
                Some(next) => url = next,
                None => return Ok(out),
            }
        }
        Err(format!(
            "{} has over {} comments: not all read",
            self.place(),
            MAX_PAGES * 100
        ))
    }

    fn create(&self, body: &str) -> Result<u64, String> {
        let url = self.client.url(&format!(
            "/repos/{}/issues/{}/comments",
            self.repo, self.number
        ));
        let r = self.client.call("POST", &url, Some(body))?;
        if r.status != 201 && r.status != 200 {
            return Err(self.refused("post a comment", &r));
        }
        serde_json::from_str::<serde_json::Value>(&r.body)
            .ok()
            .and_then(|v| v["id"].as_u64())
            .ok_or_else(|| "GitHub posted the comment but gave no id".to_string())
    }

    fn update(&self, id: u64, body: &str) -> Result<(), String> {
        let url = self
            .client
            .url(&format!("/repos/{}/issues/comments/{id}", self.repo));
        let r = self.client.call("PATCH", &url, Some(body))?;
        if r.status != 200 {
            return Err(self.refused("update its comment", &r));
        }
        Ok(())
    }

    fn place(&self) -> String {
        format!("pull request #{} of {}", self.number, self.repo)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repository_name_cannot_make_another_url() {
        assert!(valid_repo("octo-org/my.repo_1"));
        for bad in ["o", "o/r/x", "o/..", "o/r?x", "o/r#1", "o /r", "/r", "o/"] {
            assert!(!valid_repo(bad), "{bad}");
        }
    }
}
