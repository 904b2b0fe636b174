//! `SMOLV_FORCE_MONOLITHIC=1` turns pipeline libraries off. (Its own test
//! binary: the variable is process-wide.)
#![allow(unsafe_code)]

use ash::vk;
use smolv_runtime::vulkan::{DeviceFeatures, PipelineManager, PipelineOptions};
use smolv_tests::vulkan::Gpu;

#[test]
fn the_environment_variable_forces_monolithic_pipelines() {
    let gpu = Gpu::new();
    let manager = || {
        // SAFETY: `Gpu` enables what the manager needs; each is dropped
        // before the device.
        unsafe {
            PipelineManager::new(
                gpu.device.clone(),
                vk::PipelineCache::null(),
                &gpu.properties.limits,
                PipelineOptions::new()
                    .features(DeviceFeatures::default().with_graphics_pipeline_library(gpu.graphics_pipeline_library)),
            )
        }
    };
    let default = manager();
    assert!(default.uses_libraries());
    drop(default);
    // SAFETY: this test binary has no other threads reading the environment.
    unsafe { std::env::set_var("SMOLV_FORCE_MONOLITHIC", "1") };
    let forced = manager();
    assert!(!forced.uses_libraries());
    drop(forced);
    gpu.finish();
}
