//! The rebuilds a worker runs, swapped into their slots.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use ash::vk;
use ash::vk::Handle;

use super::library_cache::{Built, Libraries, PipelineKey, create_from_code, keep_library};
use super::slot::{ComputeSlots, PipelineSlot, Slots};
use crate::vulkan::compute::{ComputeJob, ComputeSlot};
use crate::vulkan::library::{Parts, StageKey, link};
use crate::vulkan::modules::{OwnedStageCode, StageCode};
use crate::vulkan::{VulkanError, lock};

/// A graphics pipeline to build again and swap into its slot.
pub(super) struct GraphicsRebuild {
    pub(super) slot: Arc<PipelineSlot>,
    pub(super) request: u64,
    pub(super) key: PipelineKey,
    pub(super) stages: Vec<OwnedStageCode>,
    /// The libraries that exist already, by part; `None`: monolithic.
    pub(super) libraries: Option<[Option<vk::Pipeline>; 4]>,
    /// Where the new libraries go.
    pub(super) shared: Libraries,
    /// Where this slot is filed under `key` once it lands.
    pub(super) slots: Arc<Mutex<Slots>>,
    pub(super) retired: Arc<Mutex<Vec<vk::Pipeline>>>,
}

impl GraphicsRebuild {
    /// Builds the pipeline and swaps it in, then the optimized link.
    ///
    /// # Safety
    /// The job's code is valid SPIR-V for `device`, its handles are `device`'s, `cache` is null or `device`'s.
    pub(super) unsafe fn run(self, device: &ash::Device, cache: vk::PipelineCache) {
        // SAFETY: this function's contract.
        let (pipeline, libraries) = match unsafe { self.build(device, cache) } {
            Ok(built) => built,
            Err(error) => {
                lock(&self.slot.state).rebuilds.fail(self.request, error.result());
                return;
            }
        };
        if !self.swap(device, pipeline, libraries.is_none()) {
            return;
        }
        if let Some(libraries) = libraries {
            // SAFETY: the manager's live libraries, of this layout; this function's contract.
            // A failed link keeps the rebuilt fast link, reported by `wait_optimized`.
            unsafe { self.slot.link_optimized(device, cache, &libraries, self.request) };
        }
    }

    /// Puts `pipeline` in the slot, retiring the replaced ones, unless a later rebuild is there (then destroys it).
    fn swap(&self, device: &ash::Device, pipeline: vk::Pipeline, monolithic: bool) -> bool {
        let mut state = lock(&self.slot.state);
        if !state.rebuilds.land(self.request) {
            drop(state);
            // SAFETY: never handed out: the slot did not take it.
            unsafe { device.destroy_pipeline(pipeline, None) };
            return false;
        }
        let replaced = PipelineSlot::held(&state);
        state.fast = pipeline;
        state.optimized = monolithic.then_some(pipeline);
        self.slot.current.store(pipeline.as_raw(), Ordering::Release);
        // Under the slot's lock, so that rebuilds re-key in the order they land.
        let old = std::mem::replace(&mut state.key, self.key.clone());
        lock(&self.slots).rekey(&self.slot, Some(old), &self.key);
        drop(state);
        lock(&self.retired).extend(replaced);
        true
    }

    /// The new pipeline and, with libraries, the four it was linked from.
    ///
    /// # Safety
    /// As [`run`](Self::run).
    unsafe fn build(
        &self,
        device: &ash::Device,
        cache: vk::PipelineCache,
    ) -> Result<(vk::Pipeline, Option<[vk::Pipeline; 4]>), VulkanError> {
        let key = &self.key;
        let Some(found) = self.libraries else {
            // SAFETY: this function's contract.
            let built = unsafe { create(device, cache, key.parts(), false, &self.stages, self.slot.layout())? };
            return Ok((built.pipeline, None));
        };
        let (pre_raster, fragment) = self.stages.split_at(self.stages.len() - 1);
        let stages: [&[OwnedStageCode]; 4] = [&[], pre_raster, fragment, &[]];
        let mut libraries = [vk::Pipeline::null(); 4];
        for (((library, found), library_key), stages) in
            libraries.iter_mut().zip(found).zip(key.libraries()).zip(stages)
        {
            *library = match found {
                Some(library) => library,
                None => {
                    let (parts, layout) = library_key.parts();
                    // SAFETY: this function's contract.
                    let created = unsafe { create(device, cache, parts, true, stages, layout)? };
                    // SAFETY: just created, never handed out.
                    unsafe { keep_library(&self.shared, device, library_key, created) }
                }
            };
        }
        // SAFETY: libraries just made or kept by the manager, of this layout; this function's contract.
        let fast = unsafe { link(device, cache, &libraries, self.slot.layout(), false) }?;
        Ok((fast, Some(libraries)))
    }
}

/// Creates the pipeline (or library) of `parts` from `stages`.
///
/// # Safety
/// As [`GraphicsRebuild::run`]; `layout` is `device`'s (or null for parts without stages).
unsafe fn create(
    device: &ash::Device,
    cache: vk::PipelineCache,
    parts: Parts<'_>,
    as_library: bool,
    stages: &[OwnedStageCode],
    layout: vk::PipelineLayout,
) -> Result<Built, VulkanError> {
    let codes: Vec<StageCode<'_>> = stages.iter().map(OwnedStageCode::borrow).collect();
    // SAFETY: this function's contract.
    unsafe { create_from_code(device, cache, parts, as_library, &codes, layout) }
}

/// A compute pipeline to create again and swap into its slot.
pub(super) struct ComputeRebuild {
    pub(super) slot: Arc<ComputeSlot>,
    pub(super) request: u64,
    /// The new pipeline's stage, the slot's key once it lands.
    pub(super) key: StageKey,
    pub(super) job: ComputeJob,
    pub(super) compute: Arc<Mutex<ComputeSlots>>,
    pub(super) retired: Arc<Mutex<Vec<vk::Pipeline>>>,
}

impl ComputeRebuild {
    /// # Safety
    /// As [`GraphicsRebuild::run`].
    pub(super) unsafe fn run(self, device: &ash::Device, cache: vk::PipelineCache) {
        // SAFETY: this function's contract.
        match unsafe { self.job.create(device, cache) } {
            // Filed under the new stage only once it holds its pipeline.
            Ok(pipeline) => match self.slot.swap(self.request, pipeline, || {
                lock(&self.compute).rekey(&self.slot, None, &self.key);
            }) {
                Ok(replaced) => lock(&self.retired).extend(replaced),
                // SAFETY: the slot did not take it; never handed out.
                Err(stale) => unsafe { device.destroy_pipeline(stale, None) },
            },
            Err(error) => lock(&self.slot.rebuilds).fail(self.request, error.result()),
        }
    }
}
