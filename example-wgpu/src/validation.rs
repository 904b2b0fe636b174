//! Every message wgpu and the Vulkan validation layer raise (through `log`, and the device's
//! uncaptured-error handler), collected in [`MESSAGES`] so that the program can fail on any.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// What was reported, in order.
static MESSAGES: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// The one message dropped: Debian 12's layer (1.3.239) does not know SPIR-V's source language
/// 10, WGSL, which naga writes in `OpSource` for `InstanceFlags::DEBUG`; the module is valid.
const STALE_LAYER: [&str; 2] =
    ["UNASSIGNED-CoreValidation-Shader-InconsistentSpirv", "Invalid source language operand: 10"];

/// Set while the lines wgpu-hal logs after a dropped message arrive.
static DROPPING: AtomicBool = AtomicBool::new(false);

/// Whether `text` is [`STALE_LAYER`] or a line that belongs to it.
fn known_stale(text: &str) -> bool {
    if STALE_LAYER.iter().all(|part| text.contains(part)) {
        DROPPING.store(true, Ordering::Relaxed);
        return true;
    }
    // wgpu-hal logs a message's objects, queues and labels as lines of
    // their own, each starting with a tab.
    let continuation = text.starts_with('\t');
    if !continuation {
        DROPPING.store(false, Ordering::Relaxed);
    }
    continuation && DROPPING.load(Ordering::Relaxed)
}

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
        if (record.level() <= log::Level::Warn || missing_layer) && !known_stale(&text) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_stale_layer_message_and_its_lines_are_dropped() {
        let stale = "VALIDATION [UNASSIGNED-CoreValidation-Shader-InconsistentSpirv (0x6bbb14)] \
                     SPIR-V module not valid: Invalid source language operand: 10";
        assert!(known_stale(stale));
        assert!(known_stale("\tobjects: (type: DEVICE, hndl: 0x1, name: ?)"));
        let other = "VALIDATION [UNASSIGNED-CoreValidation-Shader-InconsistentSpirv (0x6bbb14)] \
                     SPIR-V module not valid: Operand 2 of MemoryModel requires one of these capabilities";
        assert!(!known_stale(other));
        assert!(!known_stale("\tobjects: (type: DEVICE, hndl: 0x1, name: ?)"), "its lines are kept");
    }
}
