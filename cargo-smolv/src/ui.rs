//! Terminal output: colour and progress bars on a terminal, plain text when piped.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

/// Whether standard error is a terminal that wants colour.
pub(crate) fn color() -> bool {
    std::io::stderr().is_terminal() && crate::env_var_os("NO_COLOR").is_none()
}

/// `error` in bold red on a terminal.
pub(crate) fn error_label() -> &'static str {
    if color() { "\x1b[1;31merror\x1b[0m" } else { "error" }
}

/// `warning` in bold yellow on a terminal.
pub(crate) fn warning_label() -> &'static str {
    if color() { "\x1b[1;33mwarning\x1b[0m" } else { "warning" }
}

/// A progress bar over `len` items, drawn only on a terminal.
pub(crate) fn progress(len: usize, message: &'static str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len as u64).with_message(message);
    if let Ok(style) = ProgressStyle::with_template("{msg:>10} [{bar:30}] {pos}/{len} {elapsed}") {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// A spinner for work of unknown length, drawn only on a terminal.
pub(crate) fn spinner(message: &'static str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new_spinner().with_message(message);
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    bar
}
