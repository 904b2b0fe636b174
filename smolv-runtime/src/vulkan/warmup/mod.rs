//! Pipelines ready before the first frame that needs them: record which
//! pipelines a game asks for, ship the recording, and replay it on a
//! loading screen (`docs/warmup.md`).
//!
//! - [`recorder`]: what the [`PipelineManager`](crate::vulkan::PipelineManager)
//!   notes as the game asks for pipelines;
//! - [`recording`]: the file, its reading (refusing what it cannot trust)
//!   and merging;
//! - [`replay`]: building a recording's pipelines ahead, within a budget.

mod codec;
pub mod recorder;
pub mod recording;
pub mod replay;
mod state_codec;

pub use recorder::Recorder;
pub use recording::{RecordedKind, RecordedPipeline, RecordedStage, Recording, RecordingError, ShaderChange};
pub use replay::{Replay, ReplayBudget, ReplayProgress, ReplayShader};
