use ash::vk;

use super::*;

const OP_EXTENSION: u32 = Op::Extension as u32;
const OP_CAPABILITY: u32 = Op::Capability as u32;
const OP_MEMORY_MODEL: u32 = Op::MemoryModel as u32;

/// A module header followed by `body`.
fn module(body: &[u32]) -> Vec<u32> {
    let mut words = vec![spirv::MAGIC, 0x0001_0300, 0, 16, 0];
    words.extend_from_slice(body);
    words
}

fn op_capability(capability: u32) -> [u32; 2] {
    [(2 << 16) | OP_CAPABILITY, capability]
}

fn op_extension(name: &str) -> Vec<u32> {
    let mut bytes = name.as_bytes().to_vec();
    bytes.resize(bytes.len() / 4 * 4 + 4, 0);
    let operands: Vec<u32> = bytes.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    let count = u32::try_from(1 + operands.len()).unwrap();
    let mut words = vec![(count << 16) | OP_EXTENSION];
    words.extend(operands);
    words
}

const FRAGMENT: ShaderName<'static> =
    ShaderName { stage: vk::ShaderStageFlags::FRAGMENT, stage_name: "fragment", entry_point: "main" };

#[test]
fn every_feature_and_extension_has_its_vulkan_name() {
    for feature in Feature::ALL {
        assert!(feature.structure().starts_with("VkPhysicalDevice"), "{feature:?}");
        assert!(feature.name().starts_with(|c: char| c.is_ascii_lowercase()), "{feature:?}");
    }
    for &extension in Extension::ALL {
        assert!(extension.name().starts_with("VK_"), "{extension:?}");
        assert_eq!(Extension::from_name(extension.name()), Some(extension));
    }
}

#[test]
fn spirv_extensions_map_to_device_extensions_or_the_version_that_promoted_them() {
    assert_eq!(spirv_extension("SPV_KHR_ray_query").unwrap().any_of, &[Need::Extension(Extension::KhrRayQuery)]);
    assert_eq!(spirv_extension("SPV_EXT_mesh_shader").unwrap().any_of, &[Need::Extension(Extension::ExtMeshShader)]);
    assert_eq!(
        spirv_extension("SPV_KHR_vulkan_memory_model").unwrap().any_of,
        &[Need::Version(vk::API_VERSION_1_2), Need::Extension(Extension::KhrVulkanMemoryModel)]
    );
    assert_eq!(spirv_extension("SPV_NOT_A_THING"), None);
}

#[test]
fn a_module_declares_its_capabilities_and_extensions_before_the_memory_model() {
    let mut body = Vec::new();
    body.extend(op_capability(1));
    body.extend(op_capability(10));
    body.extend(op_extension("SPV_KHR_ray_query"));
    body.extend([(3 << 16) | OP_MEMORY_MODEL, 0, 1]);
    // After the memory model: not read.
    body.extend(op_capability(11));
    let found = declared(&module(&body));
    assert_eq!(found.capabilities, [1, 10]);
    assert_eq!(found.extensions, ["SPV_KHR_ray_query"]);
}

#[test]
fn a_damaged_module_gives_what_came_before_the_damage_never_a_panic() {
    let mut body = Vec::new();
    body.extend(op_capability(10));
    body.push(0); // a zero word count
    body.extend(op_capability(11));
    assert_eq!(declared(&module(&body)).capabilities, [10]);
    // An instruction longer than the module.
    assert_eq!(declared(&module(&[(9 << 16) | OP_CAPABILITY, 10])).capabilities, Vec::<u32>::new());
    assert_eq!(declared(&[1, 2]), Declared::default());
}

#[test]
fn a_stage_is_refused_naming_the_capability_feature_and_shader() {
    let spirv = module(&op_capability(10));
    let error = check(&spirv, &FRAGMENT, &DeviceFeatures::default(), vk::API_VERSION_1_3).unwrap_err();
    let VulkanError::FeatureNotEnabled { feature, structure, state, shader } = &error else {
        panic!("expected FeatureNotEnabled, got {error:?}")
    };
    assert_eq!((*feature, *structure, *state), ("shaderFloat64", "VkPhysicalDeviceFeatures", "OpCapability Float64"));
    assert_eq!(shader.as_deref(), Some("fragment shader `main`"));
    let message = error.to_string();
    assert!(message.contains("OpCapability Float64") && message.contains("shaderFloat64"), "{message}");
    assert!(message.contains("fragment shader `main`"), "{message}");

    let enabled = DeviceFeatures::default().with(Feature::ShaderFloat64, true);
    check(&spirv, &FRAGMENT, &enabled, vk::API_VERSION_1_3).unwrap();
}

#[test]
fn alternatives_versions_extensions_and_subgroup_stages_are_each_enough() {
    // ShaderNonUniform: Vulkan 1.2, or VK_EXT_descriptor_indexing on 1.1.
    let non_uniform = module(&op_capability(5301));
    let none = DeviceFeatures::default();
    check(&non_uniform, &FRAGMENT, &none, vk::API_VERSION_1_2).unwrap();
    assert!(check(&non_uniform, &FRAGMENT, &none, vk::API_VERSION_1_1).is_err());
    let indexing = none.with_extension(Extension::ExtDescriptorIndexing);
    check(&non_uniform, &FRAGMENT, &indexing, vk::API_VERSION_1_1).unwrap();

    // GroupNonUniformBallot: the operation, in the shader's stage.
    let ballot = module(&op_capability(64));
    let subgroup = vk::PhysicalDeviceSubgroupProperties::default()
        .supported_operations(vk::SubgroupFeatureFlags::BASIC | vk::SubgroupFeatureFlags::BALLOT)
        .supported_stages(vk::ShaderStageFlags::COMPUTE);
    let compute_only = none.with_subgroup(&subgroup);
    let compute = ShaderName { stage: vk::ShaderStageFlags::COMPUTE, ..FRAGMENT };
    check(&ballot, &compute, &compute_only, vk::API_VERSION_1_3).unwrap();
    assert!(matches!(
        check(&ballot, &FRAGMENT, &compute_only, vk::API_VERSION_1_3),
        Err(VulkanError::FeatureNotEnabled { state: "OpCapability GroupNonUniformBallot", .. })
    ));

    // SPV_KHR_ray_query: the device extension.
    let ray_query = module(&op_extension("SPV_KHR_ray_query"));
    assert!(matches!(
        check(&ray_query, &FRAGMENT, &none, vk::API_VERSION_1_3),
        Err(VulkanError::FeatureNotEnabled { feature: "VK_KHR_ray_query", .. })
    ));
    check(&ray_query, &FRAGMENT, &none.with_extension(Extension::KhrRayQuery), vk::API_VERSION_1_3).unwrap();
}
