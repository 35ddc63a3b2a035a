//! A merge request's notes through GitLab's REST API (v4): the calls the
//! comment needs, and no other.
//!
//! * `GET /user` (who the token is: a note is ours only when its author is
//!   the token's user);
//! * `GET /projects/{id}/merge_requests/{iid}/notes` (every page, by the
//!   `Link` header, which must stay on the API's own address);
//! * `POST /projects/{id}/merge_requests/{iid}/notes`;
//! * `PUT /projects/{id}/merge_requests/{iid}/notes/{note}`.
//!
//! The API is `CI_API_V4_URL` as the runner gives it, the project
//! `CI_PROJECT_ID`, the token `GITLAB_TOKEN` (a project access token with
//! the `api` scope: a job's own `CI_JOB_TOKEN` may not write notes), sent
//! in the `PRIVATE-TOKEN` header of these calls only.

use std::cell::OnceCell;

use crate::app::comment::{CommentApi, Posted};

use super::{Client, Reply};

/// Most pages of notes read (100 each).
const MAX_PAGES: usize = 100;

/// The notes of one merge request.
pub struct GitlabNotes {
    pub client: Client,
    project: String,
    iid: u64,
    /// The token's user id, asked once.
    me: OnceCell<u64>,
}

impl GitlabNotes {
    /// From the job's variables (`CI_API_V4_URL`, `CI_PROJECT_ID`,
    /// `GITLAB_TOKEN`; `var` reads one), for merge request `iid`.
    pub fn from_vars(
        iid: u64,
        var: &dyn Fn(&str) -> Option<String>,
    ) -> Result<GitlabNotes, String> {
        let api = var("CI_API_V4_URL")
            .ok_or("CI_API_V4_URL is not set: the note is posted from a GitLab CI job")?;
        let project = var("CI_PROJECT_ID")
            .filter(|p| p.bytes().all(|b| b.is_ascii_digit()))
            .ok_or("CI_PROJECT_ID is not set, or not a number")?;
        let token = var("GITLAB_TOKEN").ok_or(
            "GITLAB_TOKEN is not set: give the job a project access token with the `api` scope \
             (Reporter or above) as a masked CI/CD variable GITLAB_TOKEN (CI_JOB_TOKEN may not write notes)",
        )?;
        Ok(GitlabNotes {
            client: Client::new(
                &api,
                "CI_API_V4_URL",
                "PRIVATE-TOKEN",
                token.clone(),
                token,
                &[],
            )?,
            project,
            iid,
            me: OnceCell::new(),
        })
    }

    fn notes_path(&self) -> String {
        format!(
            "/projects/{}/merge_requests/{}/notes",
            self.project, self.iid
        )
    }

    fn refused(&self, what: &str, r: &Reply) -> String {
        let msg = self.client.message(r);
        let place = self.place();
        match r.status {
            401 => format!("GitLab refused GITLAB_TOKEN ({what}: 401 {msg})"),
            403 => format!(
                "the token may not {what} on {place} (403 {msg}): GITLAB_TOKEN needs the `api` scope and the Reporter role or above"
            ),
            404 => format!("{place} was not found ({what}: 404 {msg}): may the token read the project?"),
            s => format!("GitLab answered {s} to {what} on {place}: {msg}"),
        }
    }

    /// The token's user id.
    fn me(&self) -> Result<u64, String> {
        if let Some(id) = self.me.get() {
            return Ok(*id);
        }
        let r = self.client.call("GET", &self.client.url("/user"), None)?;
        if r.status != 200 {
            return Err(self.refused("say who it is", &r));
        }
        let id = r.json("GitLab's user")?["id"]
            .as_u64()
            .ok_or("GitLab's user has no id")?;
        Ok(*self.me.get_or_init(|| id))
    }
}

impl CommentApi for GitlabNotes {
    fn list(&self) -> Result<Vec<Posted>, String> {
        let me = self.me()?;
        let mut url = self.client.url(&format!(
            "{}?per_page=100&sort=asc&order_by=created_at",
            self.notes_path()
        ));
        let mut out = Vec::new();
        for _ in 0..MAX_PAGES {
            let r = self.client.call("GET", &url, None)?;
            if r.status != 200 {
                return Err(self.refused("list the notes", &r));
            }
            let page = r.json("GitLab's list of notes")?;
            for n in page
                .as_array()
                .ok_or("GitLab's list of notes is not a list")?
            {
                let Some(id) = n["id"].as_u64() else { continue };
                if n["system"].as_bool() == Some(true) {
                    continue;
                }
                out.push(Posted {
                    id,
                    body: n["body"].as_str().unwrap_or_default().to_string(),
                    trusted_author: n["author"]["id"].as_u64() == Some(me),
                });
            }
            match r.next_page(&self.client.api) {
                Some(next) => url = next,
                None => return Ok(out),
            }
        }
        Err(format!(
            "{} has over {} notes: not all read",
            self.place(),
            MAX_PAGES * 100
        ))
    }

    fn create(&self, body: &str) -> Result<u64, String> {
        let url = self.client.url(&self.notes_path());
        let r = self.client.call("POST", &url, Some(body))?;
        if r.status != 201 && r.status != 200 {
            return Err(self.refused("post a note", &r));
        }
        r.json("GitLab's note")?["id"]
            .as_u64()
            .ok_or_else(|| "GitLab posted the note but gave no id".to_string())
    }

    fn update(&self, id: u64, body: &str) -> Result<(), String> {
        let url = self.client.url(&format!("{}/{id}", self.notes_path()));
        let r = self.client.call("PUT", &url, Some(body))?;
        if r.status != 200 {
            return Err(self.refused("update its note", &r));
        }
        Ok(())
    }

    fn place(&self) -> String {
        format!("merge request !{} of project {}", self.iid, self.project)
    }
}
