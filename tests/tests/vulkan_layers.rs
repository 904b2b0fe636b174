//! The Vulkan layer's layouts and pipeline cache on a real device, with the
//! validation layers on: any validation message fails the test.
#![allow(unsafe_code)]

use ash::vk;
use smolv_runtime::reflect::{DescriptorBinding, DescriptorKind, PushConstantRange, Reflection, ShaderStage};
use smolv_runtime::vulkan::{BindlessSet, CacheLoad, LayoutCache, LayoutOptions, PipelineCacheFile, VulkanError};
use smolv_tests::vulkan::Gpu;

fn binding(set: u32, binding: u32, kind: DescriptorKind, stage: ShaderStage) -> DescriptorBinding {
    DescriptorBinding { set, binding, kind, count: 1, stages: stage.vk_stage_flag(), name: String::new() }
}

/// A vertex stage using set 0 and a fragment stage using set 1, with push
/// constants in both: the zink-style split of a separable program.
fn program() -> (Reflection, Reflection) {
    let mut vertex = Reflection::new(ShaderStage::Vertex, "main");
    vertex.bindings.push(binding(0, 0, DescriptorKind::UniformBuffer, ShaderStage::Vertex));
    vertex.push_constants.push(PushConstantRange { offset: 0, size: 64, stages: ShaderStage::Vertex.vk_stage_flag() });
    let mut fragment = Reflection::new(ShaderStage::Fragment, "main");
    fragment.bindings.push(binding(1, 0, DescriptorKind::CombinedImageSampler, ShaderStage::Fragment));
    fragment.bindings.push(binding(1, 1, DescriptorKind::UniformBuffer, ShaderStage::Fragment));
    fragment.push_constants.push(PushConstantRange {
        offset: 64,
        size: 16,
        stages: ShaderStage::Fragment.vk_stage_flag(),
    });
    (vertex, fragment)
}

#[test]
fn program_layouts_come_from_reflection_and_are_deduplicated() {
    let gpu = Gpu::new();
    {
        let cache = LayoutCache::new(gpu.device.clone());
        let (vertex, fragment) = program();
        let layout = cache.program(&[&vertex, &fragment], &LayoutOptions::default()).unwrap();
        assert_eq!(layout.set_layouts.len(), 2);
        assert_eq!(layout.push_constants.len(), 1);
        assert_eq!((layout.push_constants[0].offset, layout.push_constants[0].size), (0, 80));
        // One independent-sets layout per stage, each with the other stage's set left null.
        assert_eq!(layout.stage_layouts.len(), 2);
        assert_ne!(layout.stage_layouts[0].1, layout.stage_layouts[1].1);
        assert_ne!(layout.stage_layouts[0].1, layout.pipeline_layout);

        let again = cache.program(&[&vertex, &fragment], &LayoutOptions::default()).unwrap();
        assert_eq!(again.set_layouts, layout.set_layouts);
        assert_eq!(again.pipeline_layout, layout.pipeline_layout);
        let (sets, pipelines) = cache.len();
        assert_eq!((sets, pipelines), (2, 3), "two set layouts; the program's and one per stage");

        // A second program sharing the vertex stage shares its set layout.
        let mut other = Reflection::new(ShaderStage::Fragment, "main");
        other.bindings.push(binding(1, 0, DescriptorKind::StorageBuffer, ShaderStage::Fragment));
        let second = cache.program(&[&vertex, &other], &LayoutOptions::default()).unwrap();
        assert_eq!(second.set_layouts[0], layout.set_layouts[0]);
        assert_ne!(second.set_layouts[1], layout.set_layouts[1]);
    }
    gpu.assert_validation_clean();
}

#[test]
fn the_bindless_set_sits_at_its_fixed_index() {
    let gpu = Gpu::new();
    {
        let cache = LayoutCache::new(gpu.device.clone());
        let (vertex, fragment) = program();
        // lavapipe 22.3 has no descriptor indexing, so a plain array here.
        let bindless = BindlessSet { max_descriptors: 16, descriptor_indexing: false, ..BindlessSet::default() };
        let options = LayoutOptions { bindless: Some(bindless), ..LayoutOptions::default() };
        let layout = cache.program(&[&vertex, &fragment], &options).unwrap();
        assert_eq!(layout.set_layouts.len(), 4, "sets 0, 1, an empty 2 and the bindless 3");
        let mut taken = Reflection::new(ShaderStage::Fragment, "main");
        taken.bindings.push(binding(3, 0, DescriptorKind::UniformBuffer, ShaderStage::Fragment));
        assert!(matches!(cache.program(&[&taken], &options), Err(VulkanError::BindlessSetTaken(3))));
    }
    gpu.assert_validation_clean();
}

#[test]
fn conflicting_bindings_are_an_error() {
    let gpu = Gpu::new();
    {
        let cache = LayoutCache::new(gpu.device.clone());
        let mut vertex = Reflection::new(ShaderStage::Vertex, "main");
        vertex.bindings.push(binding(0, 0, DescriptorKind::UniformBuffer, ShaderStage::Vertex));
        let mut fragment = Reflection::new(ShaderStage::Fragment, "main");
        fragment.bindings.push(binding(0, 0, DescriptorKind::StorageBuffer, ShaderStage::Fragment));
        let err = cache.program(&[&vertex, &fragment], &LayoutOptions::default()).unwrap_err();
        assert!(matches!(err, VulkanError::BindingConflict { set: 0, binding: 0, .. }), "{err}");
        // The same binding in both stages merges its stage flags instead.
        let mut shared = Reflection::new(ShaderStage::Fragment, "main");
        shared.bindings.push(binding(0, 0, DescriptorKind::UniformBuffer, ShaderStage::Fragment));
        assert!(cache.program(&[&vertex, &shared], &LayoutOptions::default()).is_ok());
    }
    gpu.assert_validation_clean();
}

#[test]
fn pipeline_cache_persists_and_refuses_foreign_or_corrupt_files() {
    let gpu = Gpu::new();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pipelines.bin");
    // SAFETY: a plain query on a live physical device.
    let properties = unsafe { gpu.instance.get_physical_device_properties(gpu.physical) };
    {
        let (cache, load) = PipelineCacheFile::open(gpu.device.clone(), &properties, &path).unwrap();
        assert_eq!(load, CacheLoad::Missing);
        assert!(cache.handle() != vk::PipelineCache::null());
        assert!(cache.save().unwrap() >= 32);
    }
    {
        let (_, load) = PipelineCacheFile::open(gpu.device.clone(), &properties, &path).unwrap();
        assert!(matches!(load, CacheLoad::Loaded { bytes } if bytes >= 32), "{load:?}");
    }
    let good = std::fs::read(&path).unwrap();
    let mut foreign = good.clone();
    foreign[8] ^= 0xFF; // vendor id
    let mut other_driver = good.clone();
    other_driver[20] ^= 0xFF; // pipeline cache UUID
    for (name, bytes) in [("truncated", good[..10].to_vec()), ("foreign", foreign), ("other driver", other_driver)] {
        std::fs::write(&path, &bytes).unwrap();
        let (cache, load) = PipelineCacheFile::open(gpu.device.clone(), &properties, &path).unwrap();
        assert!(matches!(load, CacheLoad::Ignored { .. }), "{name}: {load:?}");
        drop(cache);
    }
    gpu.assert_validation_clean();
}

#[test]
fn monolithic_programs_get_plain_layouts() {
    let gpu = Gpu::new();
    {
        let cache = LayoutCache::new(gpu.device.clone());
        let (vertex, fragment) = program();
        let options = LayoutOptions { independent_sets: false, ..LayoutOptions::default() };
        let plain = cache.program(&[&vertex, &fragment], &options).unwrap();
        assert!(plain.stage_layouts.is_empty());
        let separable = cache.program(&[&vertex, &fragment], &LayoutOptions::default()).unwrap();
        assert_eq!(plain.set_layouts, separable.set_layouts, "set layouts are shared");
        assert_ne!(plain.pipeline_layout, separable.pipeline_layout);
    }
    gpu.assert_validation_clean();
}
