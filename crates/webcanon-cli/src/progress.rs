//! Progress bars on stderr for long network runs.
//!
//! Bars are drawn only when stderr is a terminal (indicatif hides them
//! otherwise), so piped output and tests see nothing but the data. Every
//! command that goes to the network shows one from its first request: a
//! spinner saying what it waits for (robots.txt, llms.txt, an audit's
//! resources) until there is something to count.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

/// A bar for `len` items of `what` (`links`, `sitemaps`), with rate and ETA;
/// a spinner with a running count when the total is not known.
pub fn bar(len: Option<u64>, what: &str) -> ProgressBar {
    if crate::output::quiet() {
        return ProgressBar::hidden();
    }
    let bar = match len {
        Some(len) => ProgressBar::new(len).with_style(
            ProgressStyle::with_template(&format!(
                "{{spinner}} [{{elapsed_precise}}] {{wide_bar}} {{pos}}/{{len}} {what} ({{per_sec}}, ETA {{eta}}) {{msg}}"
            ))
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        ),
        None => ProgressBar::new_spinner().with_style(
            ProgressStyle::with_template(&format!("{{spinner}} [{{elapsed_precise}}] {{pos}} {what} ({{per_sec}}) {{msg}}"))
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        ),
    };
    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    bar.enable_steady_tick(Duration::from_millis(120));
    bar
}

/// A spinner saying what is under way (`reading https://example.com/llms.txt`),
/// for the waits before there is anything to count.
pub fn spinner(message: impl Into<std::borrow::Cow<'static, str>>) -> ProgressBar {
    let bar = ProgressBar::new_spinner()
        .with_style(
            ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        )
        .with_message(message);
    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    bar.enable_steady_tick(Duration::from_millis(120));
    bar
}
