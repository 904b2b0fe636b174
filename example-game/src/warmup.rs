//! `--record FILE` and `--replay FILE`: the pipelines a run asks for, written at the end of the
//! run, and replayed while the game loads so that none is compiled on the render thread later.
#![allow(unsafe_code)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use smolv_runtime::vulkan::PipelineManager;
use smolv_runtime::vulkan::warmup::{Recorder, Recording, Replay, ReplayBudget, ReplayShader};

use crate::cli::Args;
use crate::error::GameError;
use crate::render::Renderer;
use crate::shaders::Shaders;

/// The scope of the pipelines asked for while loading.
pub(crate) const LOADING: &str = "loading";
/// The scope of the pipelines first asked for once the game plays.
pub(crate) const PLAYING: &str = "playing";

/// Workers the replay may take while the game loads: the manager's one.
const REPLAY_THREADS: usize = 1;
/// How long the loading screen waits for the replay at most.
const REPLAY_TIME: Duration = Duration::from_secs(120);

/// What the command line asks for, read before any device exists.
#[derive(Default)]
pub(crate) struct Plan {
    record: Option<PathBuf>,
    replay: Option<Recording>,
}

impl Plan {
    pub(crate) fn from_args(args: &Args) -> Result<Self, GameError> {
        let replay = args.replay.as_deref().map(Recording::load).transpose();
        let replay = replay.map_err(|e| GameError::Warmup(e.to_string()))?;
        Ok(Self { record: args.record.clone(), replay })
    }

    /// Starts recording and replaying on `manager`, before any pipeline is
    /// asked for; with a replay, waits for it as a loading screen would.
    pub(crate) fn start(&self, manager: &Arc<PipelineManager>, shaders: &Shaders) -> Warmup {
        let started = Instant::now();
        let recorder = self.record.as_ref().map(|path| {
            let recorder = manager.recorder();
            for shader in shaders.all() {
                recorder.name_shader(&shader.name, &shader.words);
            }
            recorder.set_scope(Some(LOADING));
            (recorder, path.clone())
        });
        let replay = self.replay.as_ref().map(|recording| {
            let budget = ReplayBudget::new().threads(REPLAY_THREADS).time(REPLAY_TIME).scopes_first([LOADING]);
            let find = |name: &str| {
                shaders
                    .get(name)
                    .ok()
                    .map(|m| ReplayShader { spirv: m.words.clone(), reflection: m.reflection.clone() })
            };
            // SAFETY: `--replay` takes a recording this game wrote with `--record`: the game's own
            // shaders and states, with formats every device supports (reading it refused damage).
            let replay = unsafe { Replay::start(Arc::clone(manager), recording, &budget, find) };
            replay.wait(REPLAY_TIME);
            replay
        });
        let ready_after = replay.as_ref().map(|_| started.elapsed());
        Warmup { recorder, replay, ready_after }
    }
}

/// Recording and replay while the game runs.
pub(crate) struct Warmup {
    recorder: Option<(Arc<Recorder>, PathBuf)>,
    replay: Option<Replay>,
    ready_after: Option<Duration>,
}

impl Warmup {
    /// The first frame is drawn: from now on the game plays.
    pub(crate) fn playing(&self) {
        if let Some((recorder, _)) = &self.recorder {
            recorder.set_scope(Some(PLAYING));
        }
    }

    /// Writes the recording (at the end of the run, off the frame loop).
    pub(crate) fn save(&self) -> Result<(), GameError> {
        match &self.recorder {
            Some((recorder, path)) => recorder.recording().save(path).map_err(|e| GameError::Warmup(e.to_string())),
            None => Ok(()),
        }
    }

    /// The summary's line about the replay, if there was one.
    pub(crate) fn replay_line(&self) -> Option<String> {
        let replay = self.replay.as_ref()?;
        let p = replay.progress();
        Some(format!(
            "pipeline replay: {} of {} ready {} ms after start ({} rebuilt, {} dropped, {} failed, {} abandoned)",
            p.done,
            p.total,
            self.ready_after.unwrap_or_default().as_millis(),
            p.rebuilt,
            p.dropped,
            p.failed,
            p.abandoned
        ))
    }
}

/// What a run notes for the summary's warm-up lines: the render thread's builds at the first
/// frame, and each frame's time.
#[derive(Default)]
pub(crate) struct PlayLog {
    built_before_play: Option<u64>,
    frame_times: Vec<Duration>,
}

impl PlayLog {
    /// A frame that began at `started` is drawn.
    pub(crate) fn drawn(&mut self, renderer: &Renderer, started: Instant) {
        if self.built_before_play.is_none() {
            self.built_before_play = Some(renderer.render_thread_builds());
            renderer.warmup().playing();
        }
        self.frame_times.push(started.elapsed());
    }

    /// The summary's lines: pipelines compiled on the render thread after
    /// the first frame, the frame times, and the replay's, if any.
    pub(crate) fn lines(&self, renderer: &Renderer) -> String {
        let compiled_in_play = renderer.render_thread_builds() - self.built_before_play.unwrap_or_default();
        let mut lines = format!("pipelines compiled on the render thread after the first frame: {compiled_in_play}\n");
        lines.push_str(&frame_time_line(&self.frame_times));
        if let Some(line) = renderer.warmup().replay_line() {
            lines.push_str(&line);
            lines.push('\n');
        }
        lines
    }
}

/// Frames whose times the hitch line looks at (where a game meets its pipelines).
const EARLY_FRAMES: usize = 300;

/// The summary's line on hitches: the worst and p99 frame of the first 300 (the first, which
/// waits for the loading, excepted), and the median of the later ones.
fn frame_time_line(times: &[Duration]) -> String {
    let ms = |d: Duration| format!("{:.1} ms", d.as_secs_f64() * 1000.0);
    let early = times.get(1..times.len().min(EARLY_FRAMES)).unwrap_or_default();
    let mut sorted = early.to_vec();
    sorted.sort_unstable();
    let p99 = sorted.get((sorted.len() * 99).div_ceil(100).saturating_sub(1)).copied().unwrap_or_default();
    let worst = sorted.last().copied().unwrap_or_default();
    // Frame numbers from 1; `early` starts at the second frame.
    let worst_frame = early.iter().position(|&d| d == worst).map_or(0, |i| i + 2);
    let mut late = times.get(EARLY_FRAMES..).unwrap_or_default().to_vec();
    late.sort_unstable();
    let steady = late.get(late.len() / 2).map_or_else(|| "n/a".to_owned(), |&d| ms(d));
    format!(
        "frame times: frames 2-{}: worst {} (frame {worst_frame}), p99 {}; later frames: median {}\n",
        early.len() + 1,
        ms(worst),
        ms(p99),
        steady
    )
}
