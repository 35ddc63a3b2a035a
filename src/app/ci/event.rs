//! The event that started a GitHub Actions workflow, from its name and
//! payload (`GITHUB_EVENT_NAME`, `GITHUB_EVENT_PATH`: the face reads them):
//! a change to judge against its base, or a run that checks everything.

use crate::app::UsageError;

/// What the workflow run is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// A pull request (or a merge queue entry): check what it changes
    /// against its base.
    Change(Change),
    /// A push, a schedule, a manual run...: check everything.
    Full { name: String },
}

/// A proposed change: a pull request or a merge group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// `pull_request`, `pull_request_target` or `merge_group`.
    pub event: String,
    /// The commit the change is compared with (the base branch's tip when
    /// the event fired).
    pub base_sha: String,
    /// The base branch (`main`).
    pub base_ref: String,
    /// The change's own head commit.
    pub head_sha: String,
    /// `#12` for a pull request, empty for a merge group.
    pub number: Option<u64>,
    /// Whether the workflow's token can write code-scanning results: it
    /// cannot on a `pull_request` from a fork or from Dependabot, so a
    /// SARIF upload would fail with "Resource not accessible by
    /// integration".
    pub token_can_upload: bool,
    /// Why it cannot (for the notice).
    pub read_only_because: Option<String>,
}

/// Where the job runs: what its log, its reports and its comment are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Platform {
    /// GitHub Actions: workflow commands, annotations, the job summary,
    /// a pull request comment.
    Github,
    /// GitLab CI: a plain log, Code Quality and JUnit reports, a merge
    /// request note.
    Gitlab,
}

/// The event of a GitLab CI job, from its predefined variables (`var`
/// reads one): a merge request pipeline is a change against the merge
/// request's diff base; any other checks everything.
pub fn gitlab_event(var: &dyn Fn(&str) -> Option<String>) -> Result<Event, UsageError> {
    let Some(iid) = var("CI_MERGE_REQUEST_IID") else {
        return Ok(Event::Full {
            name: var("CI_PIPELINE_SOURCE").unwrap_or_else(|| "pipeline".into()),
        });
    };
    let sha = |name: &str| -> Result<String, UsageError> {
        var(name)
            .filter(|s| matches!(s.len(), 40 | 64) && s.bytes().all(|b| b.is_ascii_hexdigit()))
            .ok_or_else(|| {
                UsageError(format!(
                    "a merge request pipeline without {name} (a commit id of 40 or 64 hex digits)"
                ))
            })
    };
    Ok(Event::Change(Change {
        event: "merge_request_event".into(),
        base_sha: sha("CI_MERGE_REQUEST_DIFF_BASE_SHA")?,
        base_ref: var("CI_MERGE_REQUEST_TARGET_BRANCH_NAME").unwrap_or_else(|| "base".into()),
        head_sha: sha("CI_COMMIT_SHA")?,
        number: Some(iid.parse().map_err(|_| {
            UsageError(format!(
                "CI_MERGE_REQUEST_IID is not a number: {}",
                crate::escape::control(&iid)
            ))
        })?),
        // (a merge request from a fork runs in the fork, or in the parent
        // with a maintainer's approval: the job has the variables it was given)
        token_can_upload: true,
        read_only_because: None,
    }))
}

/// The event, from its name and payload.
pub fn event(name: &str, payload: &serde_json::Value, actor: &str) -> Result<Event, UsageError> {
    // a commit id: 40 (SHA-1) or 64 (SHA-256) hex digits, nothing else
    let sha = |v: &serde_json::Value, what: &str| -> Result<String, UsageError> {
        v.as_str()
            .filter(|s| matches!(s.len(), 40 | 64) && s.bytes().all(|b| b.is_ascii_hexdigit()))
            .map(str::to_string)
            .ok_or_else(|| {
                UsageError(format!(
                    "the {name} event payload (GITHUB_EVENT_PATH) has no {what} (a commit id of 40 or 64 hex digits); is GITHUB_EVENT_PATH the file GitHub wrote?"
                ))
            })
    };
    match name {
        "pull_request" | "pull_request_target" => {
            let pr = &payload["pull_request"];
            let base_repo = pr["base"]["repo"]["full_name"].as_str();
            let head_repo = pr["head"]["repo"]["full_name"].as_str();
            // GitHub gives `pull_request` runs from forks and from
            // Dependabot a read-only token; `pull_request_target` runs in the
            // base repository with its own token.
            let read_only_because = if name == "pull_request_target" {
                None
            } else if head_repo.is_none() || head_repo != base_repo {
                Some(format!(
                    "the pull request comes from a fork ({}), and GitHub gives such runs a read-only token",
                    head_repo.unwrap_or("a deleted repository")
                ))
            } else if actor == "dependabot[bot]" {
                Some(
                    "the pull request is Dependabot's, and GitHub gives its runs a read-only token"
                        .into(),
                )
            } else {
                None
            };
            Ok(Event::Change(Change {
                event: name.to_string(),
                base_sha: sha(&pr["base"]["sha"], "pull_request.base.sha")?,
                base_ref: pr["base"]["ref"].as_str().unwrap_or("base").to_string(),
                head_sha: sha(&pr["head"]["sha"], "pull_request.head.sha")?,
                number: pr["number"].as_u64().or(payload["number"].as_u64()),
                token_can_upload: read_only_because.is_none(),
                read_only_because,
            }))
        }
        "merge_group" => {
            let g = &payload["merge_group"];
            Ok(Event::Change(Change {
                event: name.to_string(),
                base_sha: sha(&g["base_sha"], "merge_group.base_sha")?,
                base_ref: g["base_ref"]
                    .as_str()
                    .map(|r| r.trim_start_matches("refs/heads/").to_string())
                    .unwrap_or_else(|| "base".into()),
                head_sha: sha(&g["head_sha"], "merge_group.head_sha")?,
                number: None,
                token_can_upload: true,
                read_only_because: None,
            }))
        }
        other => Ok(Event::Full {
            name: other.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pr(head_repo: serde_json::Value) -> serde_json::Value {
        json!({"number": 7, "pull_request": {"number": 7,
            "base": {"sha": "b".repeat(40), "repo": {"full_name": "o/r"}},
            "head": {"sha": "c".repeat(40), "repo": head_repo}}})
    }

    #[test]
    fn a_gitlab_merge_request_pipeline_is_a_change_and_others_check_everything() {
        let mr = |k: &str| match k {
            "CI_MERGE_REQUEST_IID" => Some("9".to_string()),
            "CI_MERGE_REQUEST_DIFF_BASE_SHA" => Some("b".repeat(40)),
            "CI_COMMIT_SHA" => Some("c".repeat(40)),
            "CI_MERGE_REQUEST_TARGET_BRANCH_NAME" => Some("main".to_string()),
            _ => None,
        };
        let Event::Change(c) = gitlab_event(&mr).unwrap() else {
            panic!("a change")
        };
        assert_eq!((c.number, c.base_ref.as_str()), (Some(9), "main"));
        let push = |k: &str| (k == "CI_PIPELINE_SOURCE").then(|| "push".to_string());
        assert_eq!(
            gitlab_event(&push).unwrap(),
            Event::Full {
                name: "push".into()
            }
        );
        let bad = |k: &str| (k == "CI_MERGE_REQUEST_IID").then(|| "9".to_string());
        assert!(gitlab_event(&bad).is_err());
    }

    #[test]
    fn a_pull_request_from_the_same_repository_can_upload() {
        let Event::Change(c) =
            event("pull_request", &pr(json!({"full_name": "o/r"})), "alice").unwrap()
        else {
            panic!()
        };
        assert_eq!(c.number, Some(7));
        assert!(c.token_can_upload);
        assert_eq!(c.base_sha, "b".repeat(40));
    }

    #[test]
    fn forks_deleted_forks_and_dependabot_have_read_only_tokens() {
        for (head, actor) in [
            (json!({"full_name": "fork/r"}), "bob"),
            (json!(null), "bob"),
            (json!({"full_name": "o/r"}), "dependabot[bot]"),
        ] {
            let Event::Change(c) = event("pull_request", &pr(head.clone()), actor).unwrap() else {
                panic!()
            };
            assert!(!c.token_can_upload, "{head} {actor}");
            assert!(c.read_only_because.is_some());
        }
        // pull_request_target runs with the base repository's token
        let Event::Change(c) = event(
            "pull_request_target",
            &pr(json!({"full_name": "fork/r"})),
            "bob",
        )
        .unwrap() else {
            panic!()
        };
        assert!(c.token_can_upload);
    }

    #[test]
    fn other_events_check_everything_and_bad_payloads_say_so() {
        assert_eq!(
            event("schedule", &json!({}), "").unwrap(),
            Event::Full {
                name: "schedule".into()
            }
        );
        let e = event("pull_request", &json!({}), "").unwrap_err();
        assert!(e.0.contains("pull_request.base.sha"), "{}", e.0);
        let Event::Change(c) = event(
            "merge_group",
            &json!({"merge_group": {"base_sha": "a".repeat(40), "head_sha": "b".repeat(40)}}),
            "",
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!((c.base_sha, c.number), ("a".repeat(40), None));
        // anything but a commit id is refused, not sliced (a panic on UTF-8)
        for bad in ["ééééééééé", "abc", "../../etc", &"g".repeat(40)] {
            let p = json!({"merge_group": {"base_sha": bad, "head_sha": "b".repeat(40)}});
            assert!(event("merge_group", &p, "").is_err(), "{bad}");
        }
    }
}
