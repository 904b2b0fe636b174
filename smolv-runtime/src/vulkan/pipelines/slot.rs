//! A graphics pipeline that gets better: swapped when a better one lands.

use std::borrow::Cow;
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::hash::Hash;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use ash::vk;
use ash::vk::Handle;

use super::library_cache::PipelineKey;
use crate::vulkan::compute::ComputeSlot;
use crate::vulkan::layout::ProgramLayout;
use crate::vulkan::library::{StageKey, link};
use crate::vulkan::rebuilds::Rebuilds;
use crate::vulkan::state::GraphicsState;
use crate::vulkan::{VulkanError, lock, wait_for};

/// A fast-linked (or monolithic) pipeline, swapped atomically for the optimized one when its link finishes (see the
/// [example](super::PipelineManager#example)).
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
    /// The pipeline to bind now, read without a lock.
    pub(super) current: AtomicU64,
    pub(super) program_layout: ProgramLayout,
    pub(super) state: Mutex<SlotState>,
    /// Signalled when the optimized link lands or fails.
    pub(super) optimized_landed: Condvar,
}

/// What a slot holds, and its rebuilds (see [`PipelineManager::rebuild`](super::PipelineManager::rebuild)).
#[derive(Debug)]
pub(super) struct SlotState {
    pub(super) fast: vk::Pipeline,
    /// The optimized pipeline once linked (`fast` for monolithic pipelines).
    pub(super) optimized: Option<vk::Pipeline>,
    pub(super) rebuilds: Rebuilds,
    /// The rebuild generation whose optimized link failed, and why.
    pub(super) link_failure: Option<(u64, vk::Result)>,
    pub(super) key: PipelineKey,
    pub(super) graphics: GraphicsState,
}

impl PipelineSlot {
    pub(super) fn new(
        fast: vk::Pipeline,
        monolithic: bool,
        program_layout: ProgramLayout,
        key: PipelineKey,
        graphics: GraphicsState,
    ) -> Self {
        Self {
            current: AtomicU64::new(fast.as_raw()),
            program_layout,
            state: Mutex::new(SlotState {
                fast,
                optimized: monolithic.then_some(fast),
                rebuilds: Rebuilds::default(),
                link_failure: None,
                key,
                graphics,
            }),
            optimized_landed: Condvar::new(),
        }
    }

    /// The pipelines the slot holds now (one for monolithic pipelines).
    pub(super) fn held(state: &SlotState) -> Vec<vk::Pipeline> {
        std::iter::once(state.fast).chain(state.optimized.filter(|&o| o != state.fast)).collect()
    }

    /// Links `libraries` optimized for rebuild `request` (0: the first build) and swaps the result in, unless the
    /// slot moved on or has one; a failure is kept for [`wait_optimized`](Self::wait_optimized).
    ///
    /// # Safety
    /// `libraries` are live libraries of `device` made with the slot's layout; `cache` is null or `device`'s.
    pub(super) unsafe fn link_optimized(
        &self,
        device: &ash::Device,
        cache: vk::PipelineCache,
        libraries: &[vk::Pipeline; 4],
        request: u64,
    ) {
        // SAFETY: this function's contract.
        let linked = unsafe { link(device, cache, libraries, self.layout(), true) };
        let mut state = lock(&self.state);
        let wanted = state.rebuilds.generation == request && state.optimized.is_none();
        match linked {
            Ok(optimized) if !wanted => {
                drop(state);
                // SAFETY: a later rebuild is in the slot; this link was never handed out.
                unsafe { device.destroy_pipeline(optimized, None) };
                return;
            }
            Ok(optimized) => {
                state.optimized = Some(optimized);
                state.link_failure = None;
                self.current.store(optimized.as_raw(), Ordering::Release);
            }
            Err(error) if wanted => state.link_failure = Some((request, error.result())),
            Err(_) => {}
        }
        drop(state);
        self.optimized_landed.notify_all();
    }

    /// The best pipeline available now.
    ///
    /// ```no_run
    /// # fn example(slot: &smolv_runtime::vulkan::PipelineSlot) {
    /// let pipeline = slot.current(); // read again every frame
    /// # }
    /// ```
    pub fn current(&self) -> vk::Pipeline {
        vk::Pipeline::from_raw(self.current.load(Ordering::Acquire))
    }

    /// Whether the optimized pipeline has arrived (always for monolithic ones).
    ///
    /// ```no_run
    /// # fn example(slot: &smolv_runtime::vulkan::PipelineSlot) {
    /// let label = if slot.is_optimized() { "optimized" } else { "fast link" };
    /// # }
    /// ```
    pub fn is_optimized(&self) -> bool {
        lock(&self.state).optimized.is_some()
    }

    /// Waits at most `timeout` for the optimized pipeline: `Ok(true)` once it is [`current`](Self::current),
    /// `Ok(false)` if `timeout` passed first.
    ///
    /// # Errors
    /// [`VulkanError::Call`] when the background link failed: the slot keeps the fast link for good.
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
        wait_for(&self.optimized_landed, lock(&self.state), timeout, |state| {
            if state.optimized.is_some() {
                return Some(Ok(true));
            }
            let (_, result) = state.link_failure.filter(|&(generation, _)| generation == state.rebuilds.generation)?;
            Some(Err(VulkanError::Call { call: "vkCreateGraphicsPipelines (optimized link)", result }))
        })
        .unwrap_or(Ok(false))
    }

    /// The fast-linked pipeline (or the monolithic one).
    pub fn fast(&self) -> vk::Pipeline {
        lock(&self.state).fast
    }

    /// The pipeline layout to bind descriptor sets and push constants with.
    pub fn layout(&self) -> vk::PipelineLayout {
        self.program_layout.pipeline_layout
    }

    /// The program's layouts, as [`PipelineManager::program_layout`](super::PipelineManager::program_layout) gives them.
    ///
    /// ```no_run
    /// # use ash::vk;
    /// # fn example(device: &ash::Device, pool: vk::DescriptorPool, slot: &smolv_runtime::vulkan::PipelineSlot) -> Result<(), smolv_runtime::vulkan::VulkanError> {
    /// use smolv_runtime::vulkan::descriptors;
    /// // SAFETY: `pool` is a pool of `device`, the manager's device, used by this thread only.
    /// let set = unsafe { descriptors::allocate(device, pool, slot.program_layout(), 0)? };
    /// # Ok(())
    /// # }
    /// ```
    pub fn program_layout(&self) -> &ProgramLayout {
        &self.program_layout
    }

    /// Records `vkCmdPushConstants` of `block` (from offset 0: the generated type's `as_bytes()`) for each of the
    /// program's ranges, with the flags of every stage reading it (`VUID-vkCmdPushConstants-offset-01795`, `-01796`).
    ///
    /// # Errors
    /// [`VulkanError::PushConstantsTooShort`] where `block` ends before a range does (beyond a word's padding).
    ///
    /// # Safety
    /// - `device` is the manager's device, `cmd` a command buffer of it in the recording state;
    /// - the manager that made this slot (and owns its layout) is alive.
    ///
    /// ```no_run
    /// # use ash::vk;
    /// # fn example(device: &ash::Device, cmd: vk::CommandBuffer, slot: &smolv_runtime::vulkan::PipelineSlot) -> Result<(), smolv_runtime::vulkan::VulkanError> {
    /// let block = [0u8; 8]; // a generated push-constant type's `as_bytes()`
    /// // SAFETY: `cmd` is recording, on the manager's device.
    /// unsafe { slot.cmd_push_constants(device, cmd, &block)? };
    /// # Ok(())
    /// # }
    /// ```
    pub unsafe fn cmd_push_constants(
        &self,
        device: &ash::Device,
        cmd: vk::CommandBuffer,
        block: &[u8],
    ) -> Result<(), VulkanError> {
        for range in &self.program_layout.push_constants {
            let words = push_constant_words(block, range)?;
            // SAFETY: the caller's contract; offset, size and flags are the layout's own range.
            unsafe { device.cmd_push_constants(cmd, self.layout(), range.stage_flags, range.offset, &words) };
        }
        Ok(())
    }

    /// How many rebuilds have been swapped in (see [`PipelineManager::rebuild`](super::PipelineManager::rebuild)).
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

    /// The error of the latest rebuild, if it failed on the worker (the slot keeps its previous pipeline).
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

/// The bytes of `range` from `block`, zero-padded to whole words.
fn push_constant_words<'a>(block: &'a [u8], range: &vk::PushConstantRange) -> Result<Cow<'a, [u8]>, VulkanError> {
    let too_short = || VulkanError::PushConstantsTooShort {
        len: block.len(),
        end: u64::from(range.offset) + u64::from(range.size),
    };
    let start = usize::try_from(range.offset).map_err(|_| too_short())?;
    let end = start.checked_add(usize::try_from(range.size).map_err(|_| too_short())?).ok_or_else(too_short)?;
    // Reflection rounds a block's range up to whole words.
    if block.len() + 3 < end {
        return Err(too_short());
    }
    if let Some(words) = block.get(start..end) {
        return Ok(Cow::Borrowed(words));
    }
    let mut words = vec![0; end - start];
    let available = block.get(start..).unwrap_or_default();
    words[..available.len()].copy_from_slice(available);
    Ok(Cow::Owned(words))
}

/// A manager's slots by what their pipelines are made of; `orphans`: rebuilt ones whose new key another slot had.
pub(super) struct Filed<K, S> {
    pub(super) by_key: HashMap<K, Arc<S>>,
    pub(super) orphans: Vec<Arc<S>>,
}

impl<K, S> Default for Filed<K, S> {
    fn default() -> Self {
        Self { by_key: HashMap::new(), orphans: Vec::new() }
    }
}

impl<K: Clone + Eq + Hash, S> Filed<K, S> {
    pub(super) fn key_of(&self, slot: &Arc<S>) -> Option<K> {
        self.by_key.iter().find(|(_, s)| Arc::ptr_eq(s, slot)).map(|(k, _)| k.clone())
    }

    /// Files `slot` under `new` instead of `old` (`None`: wherever it is filed), once a rebuild lands.
    pub(super) fn rekey(&mut self, slot: &Arc<S>, old: Option<K>, new: &K) {
        let old = old.or_else(|| self.key_of(slot));
        if old.as_ref() == Some(new) {
            return;
        }
        if let Some(old) = old
            && self.by_key.get(&old).is_some_and(|s| Arc::ptr_eq(s, slot))
        {
            self.by_key.remove(&old);
        }
        if let Entry::Vacant(entry) = self.by_key.entry(new.clone()) {
            entry.insert(Arc::clone(slot));
        } else if !self.orphans.iter().any(|s| Arc::ptr_eq(s, slot)) {
            self.orphans.push(Arc::clone(slot));
        }
    }
}

pub(super) type Slots = Filed<PipelineKey, PipelineSlot>;
pub(super) type ComputeSlots = Filed<StageKey, ComputeSlot>;

#[cfg(test)]
mod tests {
    use super::*;

    fn range(offset: u32, size: u32) -> vk::PushConstantRange {
        vk::PushConstantRange { stage_flags: vk::ShaderStageFlags::ALL_GRAPHICS, offset, size }
    }

    #[test]
    fn the_range_is_cut_from_the_block_at_its_offset() {
        let block: Vec<u8> = (0..16).collect();
        assert_eq!(*push_constant_words(&block, &range(0, 16)).unwrap(), block[..]);
        assert_eq!(*push_constant_words(&block, &range(8, 8)).unwrap(), block[8..]);
        assert_eq!(*push_constant_words(&block, &range(4, 4)).unwrap(), block[4..8]);
        assert!(matches!(push_constant_words(&block, &range(0, 8)).unwrap(), Cow::Borrowed(_)), "no copy");
    }

    #[test]
    fn a_block_ending_inside_the_last_word_is_padded_with_zeros() {
        // A block whose last member is 16-bit: its range is rounded up to whole words.
        assert_eq!(*push_constant_words(&[1, 2, 3, 4, 5, 6], &range(0, 8)).unwrap(), [1, 2, 3, 4, 5, 6, 0, 0]);
    }

    #[test]
    fn a_block_shorter_than_the_range_is_refused() {
        let err = push_constant_words(&[0; 8], &range(0, 16)).unwrap_err();
        assert!(matches!(err, VulkanError::PushConstantsTooShort { len: 8, end: 16 }), "{err}");
        let err = push_constant_words(&[0; 4], &range(u32::MAX - 3, 4)).unwrap_err();
        assert!(matches!(err, VulkanError::PushConstantsTooShort { len: 4, .. }), "{err}");
    }
}
