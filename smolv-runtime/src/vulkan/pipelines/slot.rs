//! A graphics pipeline that gets better: what the manager hands out, read
//! without a lock every draw, swapped when a better pipeline lands.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

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
    /// Signalled when the optimized pipeline lands, or its link fails.
    pub(super) optimized_landed: Condvar,
}

/// What a slot holds, and its rebuilds (see [`PipelineManager::rebuild`](super::PipelineManager::rebuild)).
#[derive(Debug)]
pub(super) struct SlotState {
    pub(super) fast: vk::Pipeline,
    /// The link-time-optimized pipeline once linked; for monolithic
    /// pipelines the same handle as `fast`.
    pub(super) optimized: Option<vk::Pipeline>,
    pub(super) rebuilds: Rebuilds,
    /// Why the optimized link failed, with the rebuild generation it was
    /// for (0: the first build): the slot keeps the fast link. A later
    /// generation makes it stale.
    pub(super) link_failure: Option<(u64, vk::Result)>,
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
        let state = SlotState {
            fast,
            optimized: monolithic.then_some(fast),
            rebuilds: Rebuilds::default(),
            link_failure: None,
            key,
            graphics,
        };
        Self {
            current: AtomicU64::new(fast.as_raw()),
            layout,
            state: Mutex::new(state),
            optimized_landed: Condvar::new(),
        }
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
            state.link_failure = None;
            self.current.store(optimized.as_raw(), Ordering::Release);
            drop(state);
            self.optimized_landed.notify_all();
            Ok(())
        } else {
            Err(optimized)
        }
    }

    /// Records that the optimized link for rebuild `request` failed with
    /// `result`, unless a later rebuild is in the slot, and wakes
    /// [`wait_optimized`](Self::wait_optimized).
    pub(super) fn optimized_failed(&self, request: u64, result: vk::Result) {
        let mut state = lock(&self.state);
        if state.rebuilds.generation == request && state.optimized.is_none() {
            state.link_failure = Some((request, result));
        }
        drop(state);
        self.optimized_landed.notify_all();
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
    /// monolithic pipelines, which are optimized from the start). To wait
    /// for it, use [`wait_optimized`](Self::wait_optimized).
    ///
    /// ```no_run
    /// # fn example(slot: &smolv_runtime::vulkan::PipelineSlot) {
    /// let label = if slot.is_optimized() { "optimized" } else { "fast link" };
    /// # let _ = label;
    /// # }
    /// ```
    pub fn is_optimized(&self) -> bool {
        lock(&self.state).optimized.is_some()
    }

    /// Waits until the optimized pipeline has arrived, for at most
    /// `timeout`: `Ok(true)` once it is [`current`](Self::current)
    /// (at once for monolithic pipelines), `Ok(false)` if `timeout` passed
    /// first. The calling thread sleeps meanwhile; the slot keeps drawing
    /// with the fast link.
    ///
    /// # Errors
    /// [`VulkanError::Call`] when the background link failed: the slot
    /// keeps the fast-linked pipeline for good.
    ///
    /// ```no_run
    /// # fn example(slot: &smolv_runtime::vulkan::PipelineSlot) -> Result<(), smolv_runtime::vulkan::VulkanError> {
    /// use std::time::Duration;
    /// // A loading screen: give the background link up to a second.
    /// if !slot.wait_optimized(Duration::from_secs(1))? {
    ///     eprintln!("still on the fast link; it is swapped in when ready");
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn wait_optimized(&self, timeout: Duration) -> Result<bool, VulkanError> {
        let deadline = Instant::now().checked_add(timeout);
        let mut state = lock(&self.state);
        loop {
            if state.optimized.is_some() {
                return Ok(true);
            }
            if let Some((generation, result)) = state.link_failure
                && generation == state.rebuilds.generation
            {
                return Err(VulkanError::Call { call: "vkCreateGraphicsPipelines (optimized link)", result });
            }
            // A deadline past what `Instant` holds: wait as long as it takes.
            let left = match deadline {
                Some(deadline) => deadline.saturating_duration_since(Instant::now()),
                None => Duration::from_secs(3600),
            };
            if left.is_zero() {
                return Ok(false);
            }
            state = match self.optimized_landed.wait_timeout(state, left) {
                Ok((state, _)) => state,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
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
