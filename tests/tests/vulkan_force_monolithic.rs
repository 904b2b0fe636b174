//! `SMOLV_FORCE_MONOLITHIC=1` turns pipeline libraries off. (Its own test
//! binary: the variable is process-wide.)
#![allow(unsafe_code)]

use ash::vk;
use smolv_runtime::vulkan::{PipelineManager, PipelineOptions};
use smolv_tests::vulkan::Gpu;

#[test]
fn the_environment_variable_forces_monolithic_pipelines() {
    let gpu = Gpu::new();
    let default = PipelineManager::new(gpu.device.clone(), vk::PipelineCache::null(), PipelineOptions::default());
    assert!(default.uses_libraries());
    drop(default);
    // SAFETY: this test binary has no other threads reading the environment.
    unsafe { std::env::set_var("SMOLV_FORCE_MONOLITHIC", "1") };
    let forced = PipelineManager::new(gpu.device.clone(), vk::PipelineCache::null(), PipelineOptions::default());
    assert!(!forced.uses_libraries());
    drop(forced);
    gpu.assert_validation_clean();
}
