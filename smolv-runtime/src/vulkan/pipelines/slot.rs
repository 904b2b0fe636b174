//! A graphics pipeline that gets better: what the manager hands out, read
//! without a lock every draw, swapped when a better pipeline lands.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use ash::vk;
use ash::vk::Handle;

use super::library_cache::PipelineKey;
use crate::vulkan::compute::ComputeSlot;
use crate::vulkan::library::StageKey;
use crate::vulkan::rebuilds::Rebuilds;
use crate::vulkan::state::GraphicsState;
use crate::vulkan::{VulkanError, lock};

/// A pipeline that gets better: a fast-linked (or monolithic) pipeline at
/// once, swapped atomically for the link-time-optimized one when the
/// background link finishes.
///
/// The [example on `PipelineManager`](super::PipelineManager#example)
/// draws with one; `examples/pipelines` in the crate's repository is the
/// same as a program.
///
/// ```no_run
/// # use ash::vk;
/// # fn record(device: &ash::Device, cmd: vk::CommandBuffer, slot: &smolv_runtime::vulkan::PipelineSlot) {
/// // Every frame: the best pipeline there is, optimized once the background link is done.
/// // SAFETY: `cmd` is a command buffer of `device` in the recording state.
/// unsafe { device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, slot.current()) };
/// # }
/// ```
#[derive(Debug)]
pub struct PipelineSlot {
    /// The pipeline to bind now, readable without a lock every draw.
    pub(super) current: AtomicU64,
    pub(super) layout: vk::PipelineLayout,
    pub(super) state: Mutex<SlotState>,
}

/// What a slot holds, and its rebuilds (see [`PipelineManager::rebuild`](super::PipelineManager::rebuild)).
#[derive(Debug)]
pub(super) struct SlotState {
    pub(super) fast: vk::Pipeline,
    /// The link-time-optimized pipeline once linked; for monolithic
    /// pipelines the same handle as `fast`.
    pub(super) optimized: Option<vk::Pipeline>,
    pub(super) rebuilds: Rebuilds,
    /// What the pipeline the slot holds is made of.
    pub(super) key: PipelineKey,
    pub(super) graphics: GraphicsState,
}

impl PipelineSlot {
    pub(super) fn new(
        fast: vk::Pipeline,
        monolithic: bool,
        layout: vk::PipelineLayout,
        key: PipelineKey,
        graphics: GraphicsState,
    ) -> Self {
        let state =
            SlotState { fast, optimized: monolithic.then_some(fast), rebuilds: Rebuilds::default(), key, graphics };
        Self { current: AtomicU64::new(fast.as_raw()), layout, state: Mutex::new(state) }
    }

    /// The pipelines the slot holds now (one for monolithic pipelines).
    pub(super) fn held(state: &SlotState) -> Vec<vk::Pipeline> {
        let mut held = vec![state.fast];
        held.extend(state.optimized.filter(|&o| o != state.fast));
        held
    }

    /// Takes `optimized`, linked for rebuild `request` (0: the first
    /// build), unless a later rebuild is in the slot or it has its
    /// optimized pipeline already; gives it back when it was not taken.
    pub(super) fn offer_optimized(&self, request: u64, optimized: vk::Pipeline) -> Result<(), vk::Pipeline> {
        let mut state = lock(&self.state);
        if state.rebuilds.generation == request && state.optimized.is_none() {
            state.optimized = Some(optimized);
            self.current.store(optimized.as_raw(), Ordering::Release);
            Ok(())
        } else {
            Err(optimized)
        }
    }

    /// The best pipeline available now.
    ///
    /// ```no_run
    /// # fn example(slot: &smolv_runtime::vulkan::PipelineSlot) {
    /// let pipeline = slot.current(); // read again every frame
    /// # let _ = pipeline;
    /// # }
    /// ```
    pub fn current(&self) -> vk::Pipeline {
        vk::Pipeline::from_raw(self.current.load(Ordering::Acquire))
    }

    /// Whether the optimized pipeline has arrived (always true for
    /// monolithic pipelines, which are optimized from the start).
    ///
    /// ```no_run
    /// # fn example(slot: &smolv_runtime::vulkan::PipelineSlot) {
    /// while !slot.is_optimized() {
    ///     std::thread::sleep(std::time::Duration::from_millis(1)); // a loading screen would draw here
    /// }
    /// # }
    /// ```
    pub fn is_optimized(&self) -> bool {
        lock(&self.state).optimized.is_some()
    }

    /// The fast-linked pipeline (or the monolithic one), for comparisons
    /// with [`current`](Self::current).
    pub fn fast(&self) -> vk::Pipeline {
        lock(&self.state).fast
    }

    /// The pipeline layout to bind descriptor sets and push constants with.
    pub fn layout(&self) -> vk::PipelineLayout {
        self.layout
    }

    /// How many rebuilds have been swapped in (0 until the first one; see
    /// [`PipelineManager::rebuild`](super::PipelineManager::rebuild)). It
    /// bumps when a rebuilt pipeline becomes [`current`](Self::current),
    /// before its optimized link.
    ///
    /// ```no_run
    /// # fn example(slot: &smolv_runtime::vulkan::PipelineSlot, target: u64) {
    /// // `target` is what `PipelineManager::rebuild` returned.
    /// if slot.generation() >= target {
    ///     println!("the edit is on screen since {:?}", slot.ready_at());
    /// }
    /// # }
    /// ```
    pub fn generation(&self) -> u64 {
        lock(&self.state).rebuilds.generation
    }

    /// When the latest rebuild was swapped in (`None` before any).
    ///
    /// ```no_run
    /// # fn example(slot: &smolv_runtime::vulkan::PipelineSlot) {
    /// if let Some(at) = slot.ready_at() {
    ///     println!("rebuilt {} ms ago", at.elapsed().as_millis());
    /// }
    /// # }
    /// ```
    pub fn ready_at(&self) -> Option<Instant> {
        lock(&self.state).rebuilds.ready_at
    }

    /// The error of the latest rebuild, if it failed on the background
    /// worker and no later rebuild has been swapped in since (the slot
    /// keeps its previous pipeline).
    ///
    /// ```no_run
    /// # fn example(slot: &smolv_runtime::vulkan::PipelineSlot) {
    /// if let Some(error) = slot.rebuild_failure() {
    ///     eprintln!("kept the previous pipeline: {error}");
    /// }
    /// # }
    /// ```
    pub fn rebuild_failure(&self) -> Option<VulkanError> {
        lock(&self.state).rebuilds.failure("vkCreateGraphicsPipelines (rebuild)")
    }
}

/// A manager's graphics slots, each filed under what the pipeline it holds
/// is made of, so that asking for a program finds the slot that draws it.
#[derive(Default)]
pub(super) struct Slots {
    pub(super) by_key: HashMap<PipelineKey, Arc<PipelineSlot>>,
    /// Rebuilt slots whose new key another slot already had: kept so that
    /// the manager still destroys their pipelines.
    pub(super) orphans: Vec<Arc<PipelineSlot>>,
}

impl Slots {
    /// Files `slot` under `new` instead of `old`: called when a rebuild's
    /// pipeline lands, never before (a rebuild that fails leaves the slot
    /// where it was, with the pipeline it holds).
    pub(super) fn rekey(&mut self, slot: &Arc<PipelineSlot>, old: &PipelineKey, new: &PipelineKey) {
        if old == new {
            return;
        }
        if self.by_key.get(old).is_some_and(|s| Arc::ptr_eq(s, slot)) {
            self.by_key.remove(old);
        }
        if let Entry::Vacant(entry) = self.by_key.entry(new.clone()) {
            entry.insert(Arc::clone(slot));
        } else if !self.orphans.iter().any(|s| Arc::ptr_eq(s, slot)) {
            self.orphans.push(Arc::clone(slot));
        }
    }
}

/// The manager's compute slots by the stage whose pipeline each holds,
/// and the rebuilt ones whose new stage another slot had already.
#[derive(Default)]
pub(super) struct ComputeSlots {
    pub(super) by_key: HashMap<StageKey, Arc<ComputeSlot>>,
    /// Kept so that the manager still destroys their pipelines.
    pub(super) orphans: Vec<Arc<ComputeSlot>>,
}

impl ComputeSlots {
    /// Files `slot` under `new`, where it was filed under `old`.
    pub(super) fn rekey(&mut self, slot: &Arc<ComputeSlot>, new: &StageKey) {
        let old = self.by_key.iter().find(|(_, s)| Arc::ptr_eq(s, slot)).map(|(k, _)| k.clone());
        if old.as_ref() == Some(new) {
            return;
        }
        if let Some(old) = old {
            self.by_key.remove(&old);
        }
        if let Entry::Vacant(entry) = self.by_key.entry(new.clone()) {
            entry.insert(Arc::clone(slot));
        } else if !self.orphans.iter().any(|s| Arc::ptr_eq(s, slot)) {
            self.orphans.push(Arc::clone(slot));
        }
    }
}
