//! Compute pipelines, handed out as a slot that fills when ready.

use std::sync::{Condvar, Mutex, PoisonError};
use std::time::Instant;

use ash::vk;

use super::modules::{OwnedStageCode, ShaderModules};
use super::rebuilds::Rebuilds;
use super::{VulkanError, check, lock};

/// A compute pipeline from [`PipelineManager::request_compute`](super::PipelineManager::request_compute).
///
/// ```no_run
/// # use ash::vk;
/// # fn record(device: &ash::Device, cmd: vk::CommandBuffer, slot: &smolv_runtime::vulkan::ComputeSlot) -> Result<(), smolv_runtime::vulkan::VulkanError> {
/// // From `PipelineManager::request_compute`, which returned at once.
/// let pipeline = slot.wait()?;
/// // SAFETY: `cmd` is a command buffer of `device` in the recording state.
/// unsafe { device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, pipeline) };
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct ComputeSlot {
    state: Mutex<Option<Result<vk::Pipeline, vk::Result>>>,
    ready: Condvar,
    layout: vk::PipelineLayout,
    pub(crate) rebuilds: Mutex<Rebuilds>,
}

impl ComputeSlot {
    pub(crate) fn pending(layout: vk::PipelineLayout) -> Self {
        Self { state: Mutex::new(None), ready: Condvar::new(), layout, rebuilds: Mutex::default() }
    }

    /// Stores the outcome and wakes the waiters; the first outcome stays.
    pub(crate) fn finish(&self, outcome: Result<vk::Pipeline, vk::Result>) {
        lock(&self.state).get_or_insert(outcome);
        self.ready.notify_all();
    }

    /// The pipeline, if it is ready.
    ///
    /// ```no_run
    /// # use ash::vk;
    /// # fn record(device: &ash::Device, cmd: vk::CommandBuffer, slot: &smolv_runtime::vulkan::ComputeSlot) {
    /// if let Some(pipeline) = slot.pipeline() {
    ///     // SAFETY: `cmd` is a command buffer of `device` in the recording state.
    ///     unsafe { device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, pipeline) };
    /// } // else: skip the effect this frame
    /// # }
    /// ```
    pub fn pipeline(&self) -> Option<vk::Pipeline> {
        lock(&self.state).and_then(Result::ok)
    }

    /// Whether creation has finished (successfully or not).
    ///
    /// ```no_run
    /// # fn example(slot: &smolv_runtime::vulkan::ComputeSlot) {
    /// while !slot.is_ready() {
    ///     std::thread::sleep(std::time::Duration::from_millis(1)); // a loading screen draws here
    /// }
    /// # }
    /// ```
    pub fn is_ready(&self) -> bool {
        lock(&self.state).is_some()
    }

    /// Waits until creation has finished and returns the pipeline.
    ///
    /// # Errors
    /// The error `vkCreateComputePipelines` (or module creation) returned.
    pub fn wait(&self) -> Result<vk::Pipeline, VulkanError> {
        let state = self.ready.wait_while(lock(&self.state), |state| state.is_none());
        // Never `None` once the wait returns.
        let outcome = (*state.unwrap_or_else(PoisonError::into_inner)).unwrap_or(Err(vk::Result::ERROR_UNKNOWN));
        check("vkCreateComputePipelines", outcome)
    }

    /// The pipeline layout to bind descriptor sets and push constants with.
    pub fn layout(&self) -> vk::PipelineLayout {
        self.layout
    }

    /// How many [rebuilds](super::PipelineManager::rebuild_compute) have been swapped in.
    ///
    /// ```no_run
    /// # fn example(manager: &smolv_runtime::vulkan::PipelineManager, slot: &std::sync::Arc<smolv_runtime::vulkan::ComputeSlot>, stage: &smolv_runtime::vulkan::Stage<'_>) -> Result<(), Box<dyn std::error::Error>> {
    /// // SAFETY: the module is valid SPIR-V, described by its reflection.
    /// let target = unsafe { manager.rebuild_compute(slot, stage)? };
    /// while slot.generation() < target && slot.rebuild_failure().is_none() {
    ///     std::thread::sleep(std::time::Duration::from_millis(1)); // frames go on with the old pipeline
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn generation(&self) -> u64 {
        lock(&self.rebuilds).generation
    }

    /// When the latest rebuild was swapped in (`None` before any).
    ///
    /// ```no_run
    /// # fn example(slot: &smolv_runtime::vulkan::ComputeSlot) {
    /// if let Some(at) = slot.ready_at() {
    ///     println!("rebuilt {} ms ago", at.elapsed().as_millis());
    /// }
    /// # }
    /// ```
    pub fn ready_at(&self) -> Option<Instant> {
        lock(&self.rebuilds).ready_at
    }

    /// The error of the latest rebuild, if it failed on the worker.
    ///
    /// ```no_run
    /// # fn example(slot: &smolv_runtime::vulkan::ComputeSlot) {
    /// if let Some(error) = slot.rebuild_failure() {
    ///     eprintln!("kept the previous compute pipeline: {error}");
    /// }
    /// # }
    /// ```
    pub fn rebuild_failure(&self) -> Option<VulkanError> {
        lock(&self.rebuilds).failure("vkCreateComputePipelines (rebuild)")
    }

    /// Puts `pipeline` in if `request` is newer, then calls `landed`; returns what it
    /// replaced, or `pipeline` back when a later rebuild is in.
    pub(crate) fn swap(
        &self,
        request: u64,
        pipeline: vk::Pipeline,
        landed: impl FnOnce(),
    ) -> Result<Option<vk::Pipeline>, vk::Pipeline> {
        let mut rebuilds = lock(&self.rebuilds);
        if !rebuilds.land(request) {
            return Err(pipeline);
        }
        let replaced = lock(&self.state).replace(Ok(pipeline));
        landed();
        drop(rebuilds);
        self.ready.notify_all();
        Ok(replaced.and_then(Result::ok))
    }

    /// The pipeline to destroy when the manager goes, if one was made.
    pub(crate) fn take(&self) -> Option<vk::Pipeline> {
        lock(&self.state).take().and_then(Result::ok)
    }
}

/// A compute pipeline to create: owned, so it can travel to a worker.
pub(crate) struct ComputeJob {
    pub(crate) stage: OwnedStageCode,
    pub(crate) layout: vk::PipelineLayout,
}

impl ComputeJob {
    /// # Safety
    /// The code is valid SPIR-V for `device`; the layout and (non-null) cache are `device`'s.
    pub(crate) unsafe fn create(
        &self,
        device: &ash::Device,
        cache: vk::PipelineCache,
    ) -> Result<vk::Pipeline, VulkanError> {
        // SAFETY: the code is valid SPIR-V (this function's contract).
        let modules = unsafe { ShaderModules::new(device, &[self.stage.borrow()])? };
        let specializations = modules.specialization_infos();
        let stages = modules.stage_infos(&specializations);
        let info = vk::ComputePipelineCreateInfo::default().stage(stages[0]).layout(self.layout);
        // SAFETY: `info` and what it points to live across the call.
        let result = unsafe { device.create_compute_pipelines(cache, std::slice::from_ref(&info), None) };
        check("vkCreateComputePipelines", result.map(|p| p[0]).map_err(|(_, e)| e))
    }
}
