//! `yttcheck comment --from FILE`: posts the pull request comment an
//! earlier job wrote with `ci --comment-file` (the second job of the fork
//! pattern: it runs nothing of the pull request's, and prints the comment
//! from the file's data itself), or prints it with `--print`.

use std::path::PathBuf;

use clap::Args;

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
    let run_url = run_url.or_else(github::run_url);
    let body = app_comment::body(
        &content,
        &Footer {
            run_url: run_url.as_deref(),
            artifact: app_comment::ARTIFACT,
        },
    );
    if args.print {
        out::data(&body);
        return Ok(());
    }
    let number = app_comment::pull_request(args.pr, content.pull_request, &event_prs)?;
    let done = post(number, &body, content.is_quiet())?;
    outln!("yttcheck: {done}");
    Ok(())
}

/// Posts `body` on pull request `number` (GitHub, from the environment);
/// what it did, in words.
pub fn post(number: u64, body: &str, quiet: bool) -> Result<String, String> {
    let mut api = crate::post::github::GithubComments::from_env(number)?;
    api.on_wait = Box::new(|wait| {
        errln!(
            "yttcheck: GitHub's rate limit: trying again in {} s",
            wait.as_secs()
        )
    });
    let done = app_comment::publish(&api, body, quiet)?;
    Ok(done.describe(&api.place()))
}
