//! Pipelines ready before the first frame that needs them: record which pipelines a game asks for ([`recorder`]),
//! ship the [`recording`] (or [`include_pipelines!`](crate::include_pipelines) it), and [`replay`] it on a loading
//! screen (`docs/warmup.md`).

mod codec;
mod error;
pub mod recorder;
pub mod recording;
pub mod replay;
mod stage;
mod state_codec;

pub use error::RecordingError;
pub use recorder::Recorder;
pub use recording::{RecordedKind, RecordedPipeline, Recording};
pub use replay::{Replay, ReplayBudget, ReplayProgress, ReplayShader};
pub use stage::{RecordedStage, ShaderChange};

/// Embeds a pipeline recording (a `.smolvpso` file) in the binary and reads it with [`Recording::from_bytes`].
/// The path is as for [`include_bytes!`]; a file that is not a recording of this format version does not compile.
///
/// ```
/// # fn main() -> Result<(), smolv_runtime::vulkan::warmup::RecordingError> {
/// use smolv_runtime::vulkan::warmup::Recording;
/// // The recording that QA's runs merged, shipped inside the game.
/// let recording: Recording = smolv_runtime::include_pipelines!(concat!(
///     env!("CARGO_MANIFEST_DIR"),
///     "/src/vulkan/warmup/sample.smolvpso"
/// ))?;
/// assert_eq!(recording.entries.len(), 3);
/// # Ok(())
/// # }
/// ```
///
/// Any other file does not compile:
///
/// ```compile_fail
/// let recording = smolv_runtime::include_pipelines!(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"));
/// ```
#[macro_export]
macro_rules! include_pipelines {
    ($path:expr $(,)?) => {{
        const BYTES: &[u8] = ::core::include_bytes!($path);
        const _: () = ::core::assert!(
            $crate::vulkan::warmup::recording::header_matches(BYTES),
            "include_pipelines!: not a smolv pipeline recording (SMOLVPSO) of the format version this \
             smolv-runtime reads; record it again with this version, or check the path"
        );
        $crate::vulkan::warmup::Recording::from_bytes(BYTES)
    }};
}
