//! The rebuilds a worker runs: a changed graphics pipeline built again, or
//! a changed compute pipeline created again, and swapped into its slot.
//! `rebuild` checks and queues them; `worker` runs them.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use ash::vk;
use ash::vk::Handle;

use super::library_cache::{Built, Libraries, LibraryKey, PipelineKey, create_with_modules, keep_library};
use super::slot::{ComputeSlots, PipelineSlot, Slots};
use crate::reflect::Reflection;
use crate::vulkan::compute::{ComputeJob, ComputeSlot};
use crate::vulkan::library::{Parts, StageKey, link};
use crate::vulkan::modules::{ShaderModules, StageCode};
use crate::vulkan::{VulkanError, lock};
use smolv_codec::specialize::Value;

/// One stage of a rebuild, owned so that it can travel to a worker: the
/// code as the driver gets it (specialized ahead where the manager does
/// that) and the spec-constant values left for the driver.
pub(super) struct OwnedStage {
    pub(super) flags: vk::ShaderStageFlags,
    pub(super) code: Vec<u32>,
    pub(super) values: Vec<(u32, Value)>,
    pub(super) reflection: Reflection,
}

impl OwnedStage {
    fn code(&self) -> StageCode<'_> {
        StageCode { stage: self.flags, code: &self.code, values: &self.values, reflection: &self.reflection }
    }
}

/// A graphics pipeline to build again and swap into its slot.
pub(super) struct GraphicsRebuild {
    pub(super) slot: Arc<PipelineSlot>,
    pub(super) request: u64,
    pub(super) key: PipelineKey,
    /// Every stage, in pipeline order.
    pub(super) stages: Vec<OwnedStage>,
    /// The libraries that exist already, by part (vertex input, pre-rasterization,
    /// fragment shader, fragment output); `None` for a monolithic pipeline.
    pub(super) libraries: Option<[Option<vk::Pipeline>; 4]>,
    /// The manager's libraries, where the new ones go.
    pub(super) shared: Libraries,
    /// The manager's slots, where this one is filed under `key` once the
    /// new pipeline lands.
    pub(super) slots: Arc<Mutex<Slots>>,
    pub(super) retired: Arc<Mutex<Vec<vk::Pipeline>>>,
}

impl GraphicsRebuild {
    /// Builds the pipeline and swaps it in; then, with libraries, links
    /// the optimized pipeline and swaps that in too.
    ///
    /// # Safety
    /// The job's code is valid SPIR-V for `device`, its handles are
    /// `device`'s, and `cache` is null or a cache of `device`.
    pub(super) unsafe fn run(self, device: &ash::Device, cache: vk::PipelineCache) {
        // SAFETY: this function's contract.
        let built = unsafe { self.build(device, cache) };
        let (pipeline, libraries) = match built {
            Ok(built) => built,
            Err(error) => {
                lock(&self.slot.state).rebuilds.fail(self.request, error.result());
                return;
            }
        };
        if !self.swap(device, pipeline, libraries.is_none()) {
            return;
        }
        let Some(libraries) = libraries else { return };
        // SAFETY: the libraries are live (they belong to the manager) and
        // were made with this layout; this function's contract covers the rest.
        if let Ok(optimized) = unsafe { link(device, cache, &libraries, self.slot.layout(), true) }
            && let Err(stale) = self.slot.offer_optimized(self.request, optimized)
        {
            // SAFETY: a later rebuild is in the slot; this link was never handed out.
            unsafe { device.destroy_pipeline(stale, None) };
        }
    }

    /// Puts `pipeline` in the slot unless a later rebuild is there already
    /// (then destroys it); the replaced pipelines go to the retired list.
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
        // Filed under the new program now that it draws it, with the slot's
        // state locked, so that rebuilds landing one after the other re-key
        // in the order they land.
        let old = std::mem::replace(&mut state.key, self.key.clone());
        lock(&self.slots).rekey(&self.slot, &old, &self.key);
        drop(state);
        lock(&self.retired).extend(replaced);
        true
    }

    /// The new pipeline (a fast link, or monolithic) and, with libraries,
    /// the four it was linked from.
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
        let pre_raster = &self.stages[..self.stages.len() - 1];
        let fragment = &self.stages[self.stages.len() - 1..];
        let wanted: [(LibraryKey, Parts<'_>, &[OwnedStage], vk::PipelineLayout); 4] = [
            (
                LibraryKey::VertexInput(key.vertex_input.clone()),
                Parts { vertex_input: Some(&key.vertex_input), ..Parts::default() },
                &[],
                vk::PipelineLayout::null(),
            ),
            (
                LibraryKey::PreRaster(key.pre_raster.clone()),
                Parts { pre_raster: Some(&key.pre_raster), ..Parts::default() },
                pre_raster,
                vk::PipelineLayout::from_raw(key.pre_raster.layout),
            ),
            (
                LibraryKey::Fragment(key.fragment.clone()),
                Parts { fragment: Some(&key.fragment), ..Parts::default() },
                fragment,
                vk::PipelineLayout::from_raw(key.fragment.layout),
            ),
            (
                LibraryKey::Output(key.output.clone()),
                Parts { output: Some(&key.output), ..Parts::default() },
                &[],
                vk::PipelineLayout::null(),
            ),
        ];
        let mut libraries = [vk::Pipeline::null(); 4];
        for ((library, found), (library_key, parts, stages, layout)) in libraries.iter_mut().zip(found).zip(wanted) {
            *library = match found {
                Some(library) => library,
                None => {
                    // SAFETY: this function's contract.
                    let created = unsafe { create(device, cache, parts, true, stages, layout)? };
                    // SAFETY: just created, never handed out.
                    unsafe { keep_library(&self.shared, device, library_key, created) }
                }
            };
        }
        // SAFETY: the libraries were just made or are kept alive by the
        // manager, with this layout; this function's contract covers the rest.
        let fast = unsafe { link(device, cache, &libraries, self.slot.layout(), false) }?;
        Ok((fast, Some(libraries)))
    }
}

/// Creates the modules of `stages`, then the pipeline (or library) of
/// `parts`, which keeps their specialization data.
///
/// # Safety
/// As [`GraphicsRebuild::run`]; `layout` is `device`'s (or null for parts
/// without stages).
unsafe fn create(
    device: &ash::Device,
    cache: vk::PipelineCache,
    parts: Parts<'_>,
    as_library: bool,
    stages: &[OwnedStage],
    layout: vk::PipelineLayout,
) -> Result<Built, VulkanError> {
    let codes: Vec<StageCode<'_>> = stages.iter().map(OwnedStage::code).collect();
    // SAFETY: valid SPIR-V (this function's contract).
    let modules = unsafe { ShaderModules::new(device, &codes)? };
    // SAFETY: the stages are those of the parts, and the handles are `device`'s.
    unsafe { create_with_modules(device, cache, parts, as_library, modules, layout) }
}

/// A compute pipeline to create again and swap into its slot.
pub(super) struct ComputeRebuild {
    pub(super) slot: Arc<ComputeSlot>,
    pub(super) request: u64,
    /// The stage the new pipeline is made from, which the slot is filed
    /// under once it lands.
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
                lock(&self.compute).rekey(&self.slot, &self.key);
            }) {
                Ok(replaced) => lock(&self.retired).extend(replaced),
                // SAFETY: the slot did not take it; never handed out.
                Err(stale) => unsafe { device.destroy_pipeline(stale, None) },
            },
            Err(error) => self.slot.rebuild_failed(self.request, error.result()),
        }
    }
}
