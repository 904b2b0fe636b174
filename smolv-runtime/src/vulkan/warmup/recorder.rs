//! Recording at the cost of a lookup: an entry per pipeline, the first time the game asks for it.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::time::Instant;

use ash::vk;

use super::recording::{RecordedKind, RecordedPipeline, Recording};
use super::stage::RecordedStage;
use crate::vulkan::lock;
use crate::vulkan::pipelines::Stage;
use crate::vulkan::state::GraphicsState;

/// Records the pipelines a manager is asked for
/// ([`PipelineManager::recorder`](crate::vulkan::PipelineManager::recorder)): name the shaders
/// ([`name_shader`](Self::name_shader)), set scopes, take the [`recording`](Self::recording).
///
/// ```
/// use smolv_runtime::vulkan::warmup::Recorder;
/// let recorder = Recorder::new();
/// recorder.set_scope(Some("level 1"));
/// assert!(recorder.recording().entries.is_empty());
/// ```
#[derive(Debug)]
pub struct Recorder {
    start: Instant,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    /// Each named shader's name, by its SPIR-V words (the last name wins).
    names: HashMap<Vec<u32>, String>,
    scope: Option<String>,
    /// The slots recorded, by address (never reused: the manager keeps every slot).
    seen: HashSet<usize>,
    entries: Vec<RecordedPipeline>,
}

impl Default for Recorder {
    fn default() -> Self {
        Self::new()
    }
}

impl Recorder {
    /// A recorder whose clock starts now.
    pub fn new() -> Self {
        Self { start: Instant::now(), inner: Mutex::default() }
    }

    /// Names the shader whose SPIR-V is `spirv`, as the game loads it again on replay.
    pub fn name_shader(&self, name: &str, spirv: &[u32]) {
        lock(&self.inner).names.insert(spirv.to_vec(), name.to_owned());
    }

    /// The scope of the pipelines first asked for from now on (`None`: none).
    pub fn set_scope(&self, scope: Option<&str>) {
        lock(&self.inner).scope = scope.map(str::to_owned);
    }

    /// How many pipelines were recorded so far.
    pub fn len(&self) -> usize {
        lock(&self.inner).entries.len()
    }

    /// Whether nothing was recorded yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// What was recorded so far.
    pub fn recording(&self) -> Recording {
        Recording { entries: lock(&self.inner).entries.clone(), skipped: 0 }
    }

    /// Notes that `slot` (its address) was handed out for `stages` (and `state`, for graphics), the first time only.
    pub(crate) fn note(
        &self,
        slot: usize,
        stages: &[(vk::ShaderStageFlags, &Stage<'_>)],
        state: Option<&GraphicsState>,
        independent_sets: bool,
    ) {
        let mut inner = lock(&self.inner);
        if !inner.seen.insert(slot) {
            return;
        }
        let mut recorded: Vec<RecordedStage> = stages
            .iter()
            .map(|&(flags, stage)| {
                let name = inner.names.get(stage.spirv).map_or("", String::as_str);
                RecordedStage::of(flags, name, stage.spirv, stage.reflection, stage.specialization)
            })
            .collect();
        let kind = match state {
            Some(state) => RecordedKind::Graphics { stages: recorded, state: state.clone() },
            None => match recorded.pop() {
                Some(stage) => RecordedKind::Compute { stage },
                None => return,
            },
        };
        let entry = RecordedPipeline {
            kind,
            independent_sets,
            scope: inner.scope.clone(),
            order: inner.entries.len() as u64,
            millis: u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX),
            uses: 1,
        };
        inner.entries.push(entry);
    }
}
