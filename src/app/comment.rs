//! Posting the pull request comment: one per pull request, found again by
//! its marker and updated in place on every push.
//!
//! The platform is behind [`CommentApi`] (the face gives GitHub's REST API,
//! `post::github`, or GitLab's notes, `post::gitlab`), so what is posted
//! and when is decided here, and tested without a network:
//!
//! * the comment yttcheck posted before is the oldest whose body starts
//!   with the marker and whose author is a bot or a member of the
//!   repository (a pull request's author can post the marker too; their
//!   comment is never taken for ours);
//! * it is updated only when its body changes (no edit, no notification,
//!   when a push changes nothing the comment says);
//! * a change with nothing to report gets no new comment; one posted
//!   before is updated to say there is nothing to report, so it never
//!   shows what a later push undid.

use std::path::Path;

use crate::report::comment::{Comment, Footer, COMMENT_BUDGET, FORMAT_VERSION, MARKER};

/// A comment already on the pull request.
#[derive(Debug, Clone)]
pub struct Posted {
    pub id: u64,
    pub body: String,
    /// Posted by a bot (`github-actions[bot]`) or by a member of the
    /// repository (owner, member, collaborator): someone who could have
    /// posted ours.
    pub trusted_author: bool,
}

/// A platform's comments on one pull request (merge request).
pub trait CommentApi {
    /// Every comment, oldest first.
    fn list(&self) -> Result<Vec<Posted>, String>;
    /// Posts a comment; its id.
    fn create(&self, body: &str) -> Result<u64, String>;
    fn update(&self, id: u64, body: &str) -> Result<(), String>;
    /// Where it is (`pull request #12 of o/r`), for messages.
    fn place(&self) -> String;
}

/// What posting did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Posting {
    Created(u64),
    Updated(u64),
    /// Ours already says this.
    Unchanged(u64),
    /// Nothing to report and no comment of ours to correct.
    Skipped,
}

impl Posting {
    /// One line for the log.
    pub fn describe(&self, place: &str) -> String {
        match self {
            Posting::Created(id) => format!("posted the comment {id} on {place}"),
            Posting::Updated(id) => format!("updated the comment {id} on {place}"),
            Posting::Unchanged(id) => {
                format!("the comment {id} on {place} already says this: left as it is")
            }
            Posting::Skipped => {
                format!("nothing to report on {place}, and no comment of ours there: none posted")
            }
        }
    }
}

/// What the comment's footer calls the run's full report: the Action
/// uploads the report folder as `yttcheck-report`; on GitLab the example
/// job keeps it as its artifacts.
pub fn artifact(platform: crate::app::ci::Platform) -> &'static str {
    match platform {
        crate::app::ci::Platform::Github => {
            "the run's yttcheck-report artifact (summary.md, findings.json, diff.json)"
        }
        crate::app::ci::Platform::Gitlab => {
            "the job's artifacts (yttcheck-report: summary.md, findings.json, diff.json)"
        }
    }
}

/// The comment's body for `c` (bounded; the marker first).
pub fn body(c: &Comment, footer: &Footer) -> String {
    crate::report::comment::markdown(c, footer, COMMENT_BUDGET)
}

/// Creates the comment, or updates the one posted before.
pub fn publish(api: &dyn CommentApi, body: &str, quiet: bool) -> Result<Posting, String> {
    let ours = api
        .list()?
        .into_iter()
        .find(|p| p.trusted_author && p.body.starts_with(MARKER));
    match ours {
        Some(p) if p.body == body => Ok(Posting::Unchanged(p.id)),
        Some(p) => api.update(p.id, body).map(|()| Posting::Updated(p.id)),
        None if quiet => Ok(Posting::Skipped),
        None => api.create(body).map(Posting::Created),
    }
}

/// Reads a comment file an earlier job wrote (on a fork's pull request,
/// a job that ran the pull request's code: untrusted, only data).
pub fn read_file(path: &Path) -> Result<Comment, String> {
    let text = crate::source::read_local_text(path)
        .map_err(|e| format!("cannot read the comment file {}: {e}", path.display()))?;
    let c: Comment = serde_json::from_str(&text).map_err(|e| {
        format!(
            "{} is not a comment file written by `yttcheck ci --comment-file`: {e}",
            path.display()
        )
    })?;
    if c.yttcheck_comment != FORMAT_VERSION {
        return Err(format!(
            "{} is a comment file of format {}; this yttcheck reads format {FORMAT_VERSION} (use the same yttcheck version in both jobs)",
            path.display(),
            c.yttcheck_comment
        ));
    }
    Ok(c)
}

/// The pull request to comment on: `--pr`, else the file's, else the
/// `workflow_run` event's. When the event names its pull requests (a
/// branch of the same repository), the number must be one of them: a
/// file cannot send the comment to another pull request.
pub fn pull_request(
    flag: Option<u64>,
    file: Option<u64>,
    event_prs: &[u64],
) -> Result<u64, String> {
    let n = flag.or(file).or(event_prs.first().copied()).ok_or(
        "no pull request to comment on: give --pr N (the comment file names none, and the event names none)",
    )?;
    if flag.is_none() && !event_prs.is_empty() && !event_prs.contains(&n) {
        return Err(format!(
            "the comment file is for pull request #{n}, but the workflow run is for {}: not posted",
            event_prs
                .iter()
                .map(|p| format!("#{p}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    #[derive(Default)]
    struct Fake {
        comments: RefCell<Vec<Posted>>,
        calls: RefCell<Vec<String>>,
    }

    impl CommentApi for Fake {
        fn list(&self) -> Result<Vec<Posted>, String> {
            self.calls.borrow_mut().push("list".into());
            Ok(self.comments.borrow().clone())
        }
        fn create(&self, body: &str) -> Result<u64, String> {
            self.calls.borrow_mut().push("create".into());
            let id = 100 + self.comments.borrow().len() as u64;
            self.comments.borrow_mut().push(Posted {
                id,
                body: body.into(),
                trusted_author: true,
            });
            Ok(id)
        }
        fn update(&self, id: u64, body: &str) -> Result<(), String> {
            self.calls.borrow_mut().push(format!("update {id}"));
            for p in self.comments.borrow_mut().iter_mut() {
                if p.id == id {
                    p.body = body.into();
                }
            }
            Ok(())
        }
        fn place(&self) -> String {
            "pull request #1".into()
        }
    }

    #[test]
    fn one_comment_is_created_then_updated_in_place() {
        let api = Fake::default();
        let a = format!("{MARKER}\nfirst");
        let b = format!("{MARKER}\nsecond");
        assert_eq!(publish(&api, &a, false), Ok(Posting::Created(100)));
        assert_eq!(publish(&api, &b, false), Ok(Posting::Updated(100)));
        assert_eq!(publish(&api, &b, false), Ok(Posting::Unchanged(100)));
        // a quiet push corrects the comment
        let q = format!("{MARKER}\nnothing");
        assert_eq!(publish(&api, &q, true), Ok(Posting::Updated(100)));
        assert_eq!(api.comments.borrow().len(), 1);
    }

    #[test]
    fn a_quiet_change_posts_nothing_new_and_a_strangers_marker_is_not_ours() {
        let api = Fake::default();
        api.comments.borrow_mut().push(Posted {
            id: 7,
            body: format!("{MARKER}\nI wrote this"),
            trusted_author: false,
        });
        assert_eq!(publish(&api, "x", true), Ok(Posting::Skipped));
        let body = format!("{MARKER}\nours");
        assert_eq!(publish(&api, &body, false), Ok(Posting::Created(101)));
        assert_eq!(
            api.comments.borrow()[0].body,
            format!("{MARKER}\nI wrote this")
        );
    }

    #[test]
    fn the_pull_request_comes_from_the_flag_the_file_or_the_event() {
        assert_eq!(pull_request(Some(3), Some(4), &[5]), Ok(3));
        assert_eq!(pull_request(None, Some(4), &[]), Ok(4));
        assert_eq!(pull_request(None, None, &[5]), Ok(5));
        assert!(pull_request(None, None, &[]).is_err());
        // a file cannot send it elsewhere than the run's pull request
        assert!(pull_request(None, Some(4), &[5]).is_err());
    }
}
