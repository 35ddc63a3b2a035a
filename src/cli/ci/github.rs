//! What a GitHub Actions step tells yttcheck through its environment: the
//! event that started the workflow (`GITHUB_EVENT_NAME`, and its payload at
//! `GITHUB_EVENT_PATH`), and the files a step writes its results to
//! (`GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY`).
//!
//! Everything is read once, up front, into [`Github`] (the event parsed by
//! `app::ci::event`), so the rest of `ci` is plain code over plain values,
//! and the tests fabricate the environment as GitHub would.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::app::ci::event::{event, gitlab_event, Event, Platform};
use crate::app::UsageError;

/// The Actions environment of one step.
#[derive(Debug, Clone)]
pub struct Github {
    pub event: Event,
    /// `GITHUB_WORKSPACE`: where actions/checkout put the repository.
    pub workspace: Option<PathBuf>,
    /// `GITHUB_OUTPUT`: the step's outputs file.
    pub output_file: Option<PathBuf>,
    /// `GITHUB_STEP_SUMMARY`: the step's job summary file.
    pub summary_file: Option<PathBuf>,
    /// `RUNNER_TEMP`: a folder emptied after each job.
    pub runner_temp: Option<PathBuf>,
    /// The run's page, from `GITHUB_SERVER_URL`, `GITHUB_REPOSITORY` and
    /// `GITHUB_RUN_ID` (GitLab: `CI_PIPELINE_URL`).
    pub run_url: Option<String>,
    pub platform: Platform,
}

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

fn path_var(name: &str) -> Option<PathBuf> {
    var(name).map(PathBuf::from)
}

impl Github {
    /// Reads the environment of the current step.
    pub fn from_env() -> Result<Github, UsageError> {
        let Some(name) = var("GITHUB_EVENT_NAME") else {
            if platform() == Platform::Gitlab {
                return Ok(Github {
                    event: gitlab_event(&var)?,
                    workspace: path_var("CI_PROJECT_DIR"),
                    output_file: None,
                    summary_file: None,
                    runner_temp: None,
                    run_url: var("CI_PIPELINE_URL"),
                    platform: Platform::Gitlab,
                });
            }
            return Err(UsageError(
                "`yttcheck ci` runs inside a GitHub Actions step or a GitLab CI job (neither GITHUB_EVENT_NAME nor GITLAB_CI is set); \
                 elsewhere use `yttcheck check`"
                    .into(),
            ));
        };
        let payload = match path_var("GITHUB_EVENT_PATH") {
            Some(p) => read_payload(&p)?,
            None => serde_json::Value::Null,
        };
        let actor = var("GITHUB_ACTOR").unwrap_or_default();
        Ok(Github {
            event: event(&name, &payload, &actor)?,
            workspace: path_var("GITHUB_WORKSPACE"),
            output_file: path_var("GITHUB_OUTPUT"),
            summary_file: path_var("GITHUB_STEP_SUMMARY"),
            runner_temp: path_var("RUNNER_TEMP"),
            run_url: run_url(),
            platform: Platform::Github,
        })
    }
}

/// Where this runs: a GitLab CI job when `GITLAB_CI` says so and no
/// GitHub Actions event is set, else GitHub.
pub fn platform() -> Platform {
    if var("GITHUB_EVENT_NAME").is_none() && var("GITLAB_CI").as_deref() == Some("true") {
        Platform::Gitlab
    } else {
        Platform::Github
    }
}

/// `{GITHUB_SERVER_URL}/{GITHUB_REPOSITORY}/actions/runs/{GITHUB_RUN_ID}`.
pub fn run_url() -> Option<String> {
    Some(format!(
        "{}/{}/actions/runs/{}",
        var("GITHUB_SERVER_URL")?.trim_end_matches('/'),
        var("GITHUB_REPOSITORY")?,
        var("GITHUB_RUN_ID")?
    ))
}

/// What a `workflow_run` event says of the run that triggered it: its
/// pull requests (none for a fork's) and its page. Empty elsewhere.
pub fn workflow_run() -> Result<(Vec<u64>, Option<String>), UsageError> {
    if var("GITHUB_EVENT_NAME").as_deref() != Some("workflow_run") {
        return Ok((Vec::new(), None));
    }
    let Some(path) = path_var("GITHUB_EVENT_PATH") else {
        return Ok((Vec::new(), None));
    };
    let payload = read_payload(&path)?;
    let run = &payload["workflow_run"];
    let prs = run["pull_requests"]
        .as_array()
        .map(|a| a.iter().filter_map(|p| p["number"].as_u64()).collect())
        .unwrap_or_default();
    Ok((prs, run["html_url"].as_str().map(str::to_string)))
}

fn read_payload(path: &Path) -> Result<serde_json::Value, UsageError> {
    let text = crate::source::read_local_text(path).map_err(|e| {
        UsageError(format!(
            "cannot read the event payload {} (GITHUB_EVENT_PATH): {e}",
            path.display()
        ))
    })?;
    serde_json::from_str(&text).map_err(|e| {
        UsageError(format!(
            "the event payload {} (GITHUB_EVENT_PATH) is not JSON: {e}",
            path.display()
        ))
    })
}

/// Appends to a file GitHub gave the step (other steps' lines stay).
pub fn append(file: &Path, text: &str, what: &str) -> Result<(), UsageError> {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(file)
        .map_err(|e| UsageError(format!("cannot write {} ({what}): {e}", file.display())))?;
    f.write_all(text.as_bytes())
        .map_err(|e| UsageError(format!("cannot write {} ({what}): {e}", file.display())))
}
