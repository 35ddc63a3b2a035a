//! `yttcheck comment --from FILE`: posts the pull request comment an
//! earlier job wrote with `ci --comment-file` (the second job of the fork
//! pattern: it runs nothing of the pull request's, and prints the comment
//! from the file's data itself), or prints it with `--print`.

use std::path::PathBuf;

use clap::Args;

use crate::app::ci::Platform;
use crate::app::comment::{self as app_comment, CommentApi};
use crate::report::comment::Footer;

use super::ci::github;
use super::out;

#[derive(Args, Debug)]
pub struct CommentArgs {
    /// The comment file `yttcheck ci --comment-file` wrote
    #[arg(long, value_name = "FILE")]
    pub from: PathBuf,

    /// The pull request (default: the file's, else the workflow_run event's)
    #[arg(long, value_name = "N")]
    pub pr: Option<u64>,

    /// Print the comment's Markdown instead of posting it
    #[arg(long)]
    pub print: bool,
}

pub fn run(args: &CommentArgs) -> i32 {
    match run_inner(args) {
        Ok(()) => 0,
        Err(e) => {
            errln!("yttcheck comment: error: {e}");
            2
        }
    }
}

fn run_inner(args: &CommentArgs) -> Result<(), String> {
    let (event_prs, run_url) = github::workflow_run().map_err(|e| e.0)?;
    let content = app_comment::read_file(&args.from)?;
    let platform = github::platform();
    let run_url = match platform {
        Platform::Github => run_url.or_else(github::run_url),
        Platform::Gitlab => std::env::var("CI_PIPELINE_URL").ok(),
    };
    let body = app_comment::body(
        &content,
        &Footer {
            run_url: run_url.as_deref(),
            artifact: app_comment::artifact(platform),
        },
    );
    if args.print {
        out::data(&body);
        return Ok(());
    }
    let number = app_comment::pull_request(args.pr, content.pull_request, &event_prs)?;
    let done = post(platform, number, &body, content.is_quiet())?;
    outln!("yttcheck: {done}");
    Ok(())
}

/// Posts `body` on pull request (merge request) `number`, the platform's
/// API from the environment; what it did, in words.
pub fn post(platform: Platform, number: u64, body: &str, quiet: bool) -> Result<String, String> {
    let on_wait = Box::new(|wait: std::time::Duration| {
        errln!(
            "yttcheck: the API's rate limit: trying again in {} s",
            wait.as_secs()
        )
    });
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let api: Box<dyn CommentApi> = match platform {
        Platform::Github => {
            let mut api = crate::post::github::GithubComments::from_vars(number, &var)?;
            api.client.on_wait = on_wait;
            Box::new(api)
        }
        Platform::Gitlab => {
            let mut api = crate::post::gitlab::GitlabNotes::from_vars(number, &var)?;
            api.client.on_wait = on_wait;
            Box::new(api)
        }
    };
    let done = app_comment::publish(api.as_ref(), body, quiet)?;
    Ok(done.describe(&api.place()))
}
