//! Every message wgpu and the Vulkan validation layer raise, collected so
//! that the program can fail on any of them.
//!
//! wgpu-hal hands the layer's messages to the `log` crate (its debug-utils
//! callback logs a layer warning as `log::warn!` and an error as
//! `log::error!`), and wgpu's own validation errors go to the device's
//! uncaptured-error handler. Both land in [`MESSAGES`].

use std::sync::Mutex;

/// What was reported, in order.
static MESSAGES: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// The logger: keeps warnings and errors from anywhere, and the one debug
/// line that says the layer is missing (a run without the layer checks
/// nothing, so it must fail too).
struct Collect;

impl log::Log for Collect {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.level() <= log::Level::Debug
    }

    fn log(&self, record: &log::Record<'_>) {
        let text = record.args().to_string();
        let missing_layer = text.contains("unable to find layer") || text.contains("Debug utils not enabled");
        if record.level() <= log::Level::Warn || missing_layer {
            push(format!("{} {}: {text}", record.level(), record.target()));
        }
    }

    fn flush(&self) {}
}

static LOGGER: Collect = Collect;

/// Installs the logger. wgpu-hal asks the layer for messages down to the
/// level `log` lets through; Debug brings the layer's warnings and errors
/// and wgpu-hal's note that the layer is missing.
pub(crate) fn install() {
    // A second install (a test calling twice) keeps the first: fine.
    let _ = log::set_logger(&LOGGER);
    log::set_max_level(log::LevelFilter::Debug);
}

/// Records one message.
pub(crate) fn push(message: String) {
    MESSAGES.lock().unwrap_or_else(|e| e.into_inner()).push(message);
}

/// Takes every message recorded so far.
pub(crate) fn take() -> Vec<String> {
    std::mem::take(&mut *MESSAGES.lock().unwrap_or_else(|e| e.into_inner()))
}
