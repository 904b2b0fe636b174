//! `--reload-bench`: edits `post.frag` 20 times while the game runs and prints the p50 and p95 of
//! edit seen to pipeline ready, and of save to the first frame drawn with it finished on the GPU.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::FrameNews;
use crate::error::GameError;
use crate::render::Renderer;

/// Edits timed.
const EDITS: usize = 20;
/// Frames between one edit landing and the next (each starts from a quiet watcher).
const SETTLE_FRAMES: u32 = 5;
/// An edit that takes longer than this stops the bench.
const TIMEOUT: Duration = Duration::from_secs(20);
/// The line each edit changes.
const OUTPUT_LINE: &str = "color = vec4(c, 1.0);";

pub(super) struct Bench {
    path: PathBuf,
    original: String,
    edited_at: Option<Instant>,
    settle: u32,
    /// Edit saved to first frame drawn with it, finished.
    samples: Vec<Duration>,
    /// Edit seen to pipeline ready.
    ready: Vec<Duration>,
}

impl Bench {
    pub(super) fn new(shader_dir: &Path) -> Result<Self, GameError> {
        let path = shader_dir.join("post.frag");
        let error = |reason: String| GameError::HotReload(format!("--reload-bench: {}: {reason}", path.display()));
        let original = std::fs::read_to_string(&path).map_err(|e| error(e.to_string()))?;
        if !original.contains(OUTPUT_LINE) {
            return Err(error(format!("the bench edits the line `{OUTPUT_LINE}`, which is not there")));
        }
        Ok(Self { path, original, edited_at: None, settle: SETTLE_FRAMES, samples: Vec::new(), ready: Vec::new() })
    }

    /// Saves the next edit when the previous one has landed and settled.
    pub(super) fn before_frame(&mut self) -> Result<(), GameError> {
        if let Some(at) = self.edited_at {
            if at.elapsed() > TIMEOUT {
                return Err(GameError::HotReload(format!(
                    "--reload-bench: edit {} of post.frag did not reach the screen in {} s",
                    self.samples.len() + 1,
                    TIMEOUT.as_secs()
                )));
            }
            return Ok(());
        }
        if self.settle > 0 {
            self.settle -= 1;
            return Ok(());
        }
        // A different brightness each time: new SPIR-V, a visible change.
        let scale = format!("color = vec4(c * {:.3}, 1.0);", 0.9 + 0.005 * self.samples.len() as f32);
        let text = self.original.replacen(OUTPUT_LINE, &scale, 1);
        self.edited_at = Some(Instant::now());
        std::fs::write(&self.path, text)
            .map_err(|e| GameError::HotReload(format!("--reload-bench: {}: {e}", self.path.display())))
    }

    /// After a frame: times the first with the new post pipeline; returns false when done.
    pub(super) fn after_frame(&mut self, news: &FrameNews, renderer: &Renderer) -> Result<bool, GameError> {
        let Some(at) = self.edited_at else { return Ok(true) };
        let Some(&(_, ready_in)) = news.ready_in.iter().find(|(name, _)| name == "post.frag") else {
            return Ok(true);
        };
        renderer.wait()?;
        self.samples.push(at.elapsed());
        self.ready.push(ready_in);
        self.edited_at = None;
        self.settle = SETTLE_FRAMES;
        if self.samples.len() < EDITS {
            return Ok(true);
        }
        let _ = std::fs::write(&self.path, &self.original);
        println!(
            "hot reload post.frag over {EDITS} edits: edit seen -> pipeline ready {}; edit saved -> first frame \
             drawn with the new pipeline {}",
            percentiles(&self.ready),
            percentiles(&self.samples)
        );
        Ok(false)
    }
}

/// `p50 N ms, p95 M ms` of `samples`.
fn percentiles(samples: &[Duration]) -> String {
    let mut sorted = samples.to_vec();
    sorted.sort();
    let percentile =
        |p: usize| sorted.get((sorted.len() * p).div_ceil(100).saturating_sub(1)).map_or(0, Duration::as_millis);
    format!("p50 {} ms, p95 {} ms", percentile(50), percentile(95))
}
