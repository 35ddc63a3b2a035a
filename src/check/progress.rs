//! A progress bar on stderr for long runs on a terminal; nothing otherwise
//! (CI logs and pipes stay clean).

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Pairs below this count finish too fast for a bar to help.
const MIN_PAIRS: usize = 50;

pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A bar for `total` pairs when `wanted` and stderr is a terminal.
    pub fn new(wanted: bool, total: usize) -> Progress {
        if !wanted || total < MIN_PAIRS || !std::io::stderr().is_terminal() {
            return Progress { bar: None };
        }
        let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} checking {pos}/{len} pairs {wide_bar} {elapsed}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        // the bar shows up only if the run lasts
        bar.enable_steady_tick(Duration::from_millis(120));
        Progress { bar: Some(bar) }
    }

    pub fn tick(&self) {
        if let Some(b) = &self.bar {
            b.inc(1);
        }
    }

    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}
