//! The Vulkan layer's layouts and pipeline cache on a real device, with the
//! validation layers on: any validation message fails the test.
#![allow(unsafe_code)]

use ash::vk;
use smolv_runtime::reflect::{DescriptorBinding, DescriptorKind, PushConstantRange, Reflection, ShaderStage};
use smolv_runtime::vulkan::{
    BindlessSet, CacheLoad, CacheRejected, LayoutCache, LayoutOptions, PipelineCacheFile, VulkanError,
};
use smolv_tests::vulkan::Gpu;

fn layout_cache(gpu: &Gpu) -> LayoutCache {
    // SAFETY: the device and its limits; every test drops the cache before
    // finishing the device, and uses no layout after that.
    unsafe { LayoutCache::new(gpu.device.clone(), &gpu.properties.limits) }
}

fn open_cache(gpu: &Gpu, path: &std::path::Path) -> (PipelineCacheFile, CacheLoad) {
    // SAFETY: the device and its properties; every test drops the cache
    // before finishing the device, and makes no pipeline with it.
    unsafe { PipelineCacheFile::open(gpu.device.clone(), &gpu.properties, path) }.unwrap()
}

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
        let cache = layout_cache(&gpu);
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
    gpu.finish();
}

#[test]
fn the_bindless_set_sits_at_its_fixed_index() {
    let gpu = Gpu::new();
    {
        let cache = layout_cache(&gpu);
        let (vertex, fragment) = program();
        // lavapipe 22.3 has no descriptor indexing, so a plain array here.
        let bindless = BindlessSet { max_descriptors: 16, descriptor_indexing: false, ..BindlessSet::default() };
        let options = LayoutOptions::new().bindless(bindless);
        let layout = cache.program(&[&vertex, &fragment], &options).unwrap();
        assert_eq!(layout.set_layouts.len(), 4, "sets 0, 1, an empty 2 and the bindless 3");
        let mut taken = Reflection::new(ShaderStage::Fragment, "main");
        taken.bindings.push(binding(3, 0, DescriptorKind::UniformBuffer, ShaderStage::Fragment));
        assert!(matches!(cache.program(&[&taken], &options), Err(VulkanError::BindlessSetTaken(3))));
    }
    gpu.finish();
}

#[test]
fn conflicting_bindings_are_an_error() {
    let gpu = Gpu::new();
    {
        let cache = layout_cache(&gpu);
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
    gpu.finish();
}

#[test]
fn pipeline_cache_round_trips_and_refuses_damaged_files() {
    let gpu = Gpu::new();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pipelines.bin");
    let saved;
    {
        let (cache, load) = open_cache(&gpu, &path);
        assert_eq!(load, CacheLoad::Missing);
        assert!(cache.handle() != vk::PipelineCache::null());
        saved = cache.data().unwrap();
        assert_eq!(cache.save().unwrap(), saved.len());
    }
    let good = std::fs::read(&path).unwrap();
    assert_eq!(good.len(), 56 + saved.len(), "a 56-byte header, then the driver's data");
    assert_eq!(&good[..8], b"SMOLVPC\0");
    assert_eq!(&good[56..], &saved[..]);
    {
        let (cache, load) = open_cache(&gpu, &path);
        assert_eq!(load, CacheLoad::Loaded { bytes: saved.len() });
        assert_eq!(cache.data().unwrap(), saved, "the driver took the data back");
    }

    let mut flipped = good.clone();
    *flipped.last_mut().unwrap() ^= 0x01;
    let mut wrong_length = good.clone();
    wrong_length[16] ^= 0x01;
    let mut appended = good.clone();
    appended.push(0);
    type IsExpected = fn(&CacheRejected) -> bool;
    let cases: [(&str, Vec<u8>, IsExpected); 6] = [
        ("truncated in the header", good[..10].to_vec(), |r| matches!(r, CacheRejected::NotACacheFile(_))),
        ("truncated in the body", good[..good.len() - 1].to_vec(), |r| matches!(r, CacheRejected::Length { .. })),
        ("a flipped body byte", flipped, |r| matches!(r, CacheRejected::Checksum(_))),
        ("a wrong length", wrong_length, |r| matches!(r, CacheRejected::Length { .. })),
        ("appended bytes", appended, |r| matches!(r, CacheRejected::Length { .. })),
        ("bare driver data (no smolv header)", saved.clone(), |r| matches!(r, CacheRejected::NotACacheFile(_))),
    ];
    for (name, bytes, expected) in cases {
        std::fs::write(&path, &bytes).unwrap();
        let (cache, load) = open_cache(&gpu, &path);
        match &load {
            CacheLoad::Ignored { reason } => assert!(expected(reason), "{name}: {reason}"),
            other => panic!("{name}: {other:?}"),
        }
        assert!(cache.handle() != vk::PipelineCache::null(), "{name}: an empty cache all the same");
        // Saving over a damaged file repairs it.
        cache.save().unwrap();
        drop(cache);
        assert!(matches!(open_cache(&gpu, &path).1, CacheLoad::Loaded { .. }), "{name}");
    }
    gpu.finish();
}

#[test]
fn hostile_set_numbers_descriptor_counts_and_push_constants_are_errors() {
    let gpu = Gpu::new();
    let limits = gpu.properties.limits;
    {
        let cache = layout_cache(&gpu);
        for set in [limits.max_bound_descriptor_sets, u32::MAX - 1, u32::MAX] {
            let mut hostile = Reflection::new(ShaderStage::Fragment, "main");
            hostile.bindings.push(binding(set, 0, DescriptorKind::UniformBuffer, ShaderStage::Fragment));
            let err = cache.program(&[&hostile], &LayoutOptions::default()).unwrap_err();
            assert!(matches!(err, VulkanError::SetOutOfRange { set: s, .. } if s == set), "{err}");
        }
        let mut last = Reflection::new(ShaderStage::Fragment, "main");
        let top = limits.max_bound_descriptor_sets - 1;
        last.bindings.push(binding(top, 0, DescriptorKind::UniformBuffer, ShaderStage::Fragment));
        let layout = cache.program(&[&last], &LayoutOptions::default()).unwrap();
        assert_eq!(
            layout.set_layouts.len(),
            usize::try_from(top).unwrap() + 1,
            "the highest set the device binds works"
        );

        let bindless = BindlessSet { set: u32::MAX, descriptor_indexing: false, ..BindlessSet::default() };
        let options = LayoutOptions::new().bindless(bindless);
        let err = cache.program(&[&last], &options).unwrap_err();
        assert!(matches!(err, VulkanError::SetOutOfRange { set: u32::MAX, .. }), "{err}");

        for (kind, limit) in [
            (DescriptorKind::UniformBuffer, limits.max_per_stage_descriptor_uniform_buffers),
            (DescriptorKind::SampledImage, limits.max_per_stage_descriptor_sampled_images),
            (DescriptorKind::StorageImage, limits.max_per_stage_descriptor_storage_images),
        ] {
            let mut hostile = Reflection::new(ShaderStage::Fragment, "main");
            hostile.bindings.push(DescriptorBinding { count: u32::MAX, ..binding(0, 0, kind, ShaderStage::Fragment) });
            let err = cache.program(&[&hostile], &LayoutOptions::default()).unwrap_err();
            assert!(matches!(err, VulkanError::DescriptorLimit { count, .. } if count == u64::from(u32::MAX)), "{err}");
            // Right at the limit is fine.
            let mut full = Reflection::new(ShaderStage::Fragment, "main");
            full.bindings.push(DescriptorBinding { count: limit, ..binding(0, 0, kind, ShaderStage::Fragment) });
            assert!(cache.program(&[&full], &LayoutOptions::default()).is_ok(), "{kind:?} × {limit}");
        }

        for (offset, size) in [(u32::MAX, u32::MAX), (0, limits.max_push_constants_size + 4)] {
            let mut pushy = Reflection::new(ShaderStage::Vertex, "main");
            pushy.push_constants.push(PushConstantRange { offset, size, stages: ShaderStage::Vertex.vk_stage_flag() });
            let err = cache.program(&[&pushy], &LayoutOptions::default()).unwrap_err();
            assert!(matches!(err, VulkanError::PushConstantsOutOfRange { .. }), "{err}");
        }
    }
    gpu.finish();
}

#[test]
fn push_constant_blocks_ending_in_16_bit_members_get_ranges_of_whole_words() {
    // `layout(push_constant) uniform P { vec4 a; float16_t b; }` reflects
    // 18 bytes; Vulkan takes multiples of 4 (VUID-VkPushConstantRange-size-00297),
    // which the validation layer would report here.
    let gpu = Gpu::new();
    {
        let cache = layout_cache(&gpu);
        let mut vertex = Reflection::new(ShaderStage::Vertex, "main");
        vertex.push_constants.push(PushConstantRange {
            offset: 0,
            size: 18,
            stages: ShaderStage::Vertex.vk_stage_flag(),
        });
        let mut fragment = Reflection::new(ShaderStage::Fragment, "main");
        fragment.push_constants.push(PushConstantRange {
            offset: 18,
            size: 2,
            stages: ShaderStage::Fragment.vk_stage_flag(),
        });
        for independent_sets in [false, true] {
            let options = LayoutOptions::new().independent_sets(independent_sets);
            let layout = cache.program(&[&vertex, &fragment], &options).unwrap();
            let range = layout.push_constants[0];
            assert_eq!((range.offset, range.size), (0, 20), "independent sets: {independent_sets}");
            assert_eq!(range.stage_flags, vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT);
            let fragment_only = cache.program(&[&fragment], &options).unwrap();
            let range = fragment_only.push_constants[0];
            assert_eq!((range.offset, range.size), (16, 4), "independent sets: {independent_sets}");
        }
    }
    gpu.finish();
}

#[test]
fn monolithic_programs_get_plain_layouts() {
    let gpu = Gpu::new();
    {
        let cache = layout_cache(&gpu);
        let (vertex, fragment) = program();
        let options = LayoutOptions::new().independent_sets(false);
        let plain = cache.program(&[&vertex, &fragment], &options).unwrap();
        assert!(plain.stage_layouts.is_empty());
        let separable = cache.program(&[&vertex, &fragment], &LayoutOptions::default()).unwrap();
        assert_eq!(plain.set_layouts, separable.set_layouts, "set layouts are shared");
        assert_ne!(plain.pipeline_layout, separable.pipeline_layout);
    }
    gpu.finish();
}
