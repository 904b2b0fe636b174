//! A slot's rebuilds.

use std::time::Instant;

use ash::vk;

use super::VulkanError;

/// Rebuilds, numbered from 1: a slow one never replaces a later one.
#[derive(Debug, Default)]
pub(crate) struct Rebuilds {
    /// Rebuilds asked for so far.
    requested: u64,
    /// The rebuild whose pipeline the slot holds (0: the first build).
    pub(crate) generation: u64,
    /// When that rebuild's pipeline was swapped in.
    pub(crate) ready_at: Option<Instant>,
    /// The newest rebuild that failed, with what Vulkan returned.
    failure: Option<(u64, vk::Result)>,
}

impl Rebuilds {
    /// Numbers a new rebuild.
    pub(crate) fn request(&mut self) -> u64 {
        self.requested += 1;
        self.requested
    }

    /// Whether `request` is newer than the slot's pipeline; if so it lands now.
    pub(crate) fn land(&mut self, request: u64) -> bool {
        if request <= self.generation {
            return false;
        }
        self.generation = request;
        self.ready_at = Some(Instant::now());
        true
    }

    /// Rebuild `request` failed with `result`.
    pub(crate) fn fail(&mut self, request: u64, result: vk::Result) {
        if request > self.generation && self.failure.is_none_or(|(newest, _)| newest < request) {
            self.failure = Some((request, result));
        }
    }

    /// The failure of a rebuild newer than the slot's pipeline, as an error of `call`.
    pub(crate) fn failure(&self, call: &'static str) -> Option<VulkanError> {
        self.failure
            .filter(|&(request, _)| request > self.generation)
            .map(|(_, result)| VulkanError::Call { call, result })
    }
}
