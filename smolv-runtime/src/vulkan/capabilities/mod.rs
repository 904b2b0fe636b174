//! What a shader's `OpCapability` and `OpExtension` need of the device, per the
//! specification's "SPIR-V Environment" appendix ([`capability`], [`spirv_extension`],
//! [`requirements`]); stages needing what [`DeviceFeatures`] lacks are refused.
//!
//! ```
//! use smolv_runtime::vulkan::capabilities::{Feature, Need, requirements};
//! // A module header, then OpCapability Shader and OpCapability Float64.
//! let spirv = [0x0723_0203, 0x0001_0000, 0, 8, 0, (2 << 16) | 17, 1, (2 << 16) | 17, 10];
//! let needs: Vec<_> = requirements(&spirv).into_iter().map(|r| r.any_of).collect();
//! assert_eq!(needs, [&[][..], &[Need::Feature(Feature::ShaderFloat64)][..]]);
//! ```

mod names;
mod table;

use ash::vk;
use smolv_format::spirv::{self, Op};

pub(crate) use names::FeatureStructure;
pub use names::{Extension, Feature};
pub use table::{Need, Requirement, capability, spirv_extension};

use super::VulkanError;
use super::device_features::DeviceFeatures;

/// What a module declares, in module order.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Declared {
    pub(crate) capabilities: Vec<u32>,
    pub(crate) extensions: Vec<String>,
}

/// The capabilities and extensions `spirv` declares (before any damage).
pub(crate) fn declared(spirv: &[u32]) -> Declared {
    let mut found = Declared::default();
    for inst in spirv::declarations(spirv) {
        match inst.op() {
            Some(Op::Capability) => found.capabilities.extend(inst.operands().first()),
            _ => found.extensions.push(inst.string(0)),
        }
    }
    found
}

/// The table's row for every capability and extension `spirv` declares, in module order.
///
/// ```
/// use smolv_runtime::vulkan::capabilities::requirements;
/// assert!(requirements(&[]).is_empty());
/// ```
pub fn requirements(spirv: &[u32]) -> Vec<Requirement> {
    let found = declared(spirv);
    let capabilities = found.capabilities.iter().filter_map(|&c| capability(c));
    capabilities.chain(found.extensions.iter().filter_map(|e| spirv_extension(e))).collect()
}

/// The stage and entry point that a refusal names.
pub(crate) struct ShaderName<'a> {
    pub(crate) stage: vk::ShaderStageFlags,
    pub(crate) stage_name: &'static str,
    pub(crate) entry_point: &'a str,
}

/// An error unless `device` (for `api_version`) allows all that `spirv` declares.
pub(crate) fn check(
    spirv: &[u32],
    shader: &ShaderName<'_>,
    device: &DeviceFeatures,
    api_version: u32,
) -> Result<(), VulkanError> {
    let allowed = |need: &Need| satisfied(*need, shader.stage, device, api_version);
    let denied = requirements(spirv).into_iter().find(|r| !r.any_of.is_empty() && !r.any_of.iter().any(allowed));
    let Some(denied) = denied else { return Ok(()) };
    let (feature, structure) = describe(denied.any_of[0]);
    let shader = Some(format!("{} shader `{}`", shader.stage_name, shader.entry_point));
    Err(VulkanError::FeatureNotEnabled { feature, structure, state: denied.declared, shader })
}

fn satisfied(need: Need, stage: vk::ShaderStageFlags, device: &DeviceFeatures, api_version: u32) -> bool {
    match need {
        Need::Feature(feature) => device.has(feature),
        Need::Extension(extension) => device.has_extension(extension),
        Need::Version(version) => {
            (vk::api_version_major(api_version), vk::api_version_minor(api_version))
                >= (vk::api_version_major(version), vk::api_version_minor(version))
        }
        Need::Subgroup(operations) => device.has_subgroup(operations, stage),
        // The manager does not know the device's properties: the driver checks.
        Need::Property(_) => true,
    }
}

/// The name and where it is enabled, for an error message.
fn describe(need: Need) -> (&'static str, &'static str) {
    match need {
        Need::Feature(feature) => (feature.name(), feature.structure()),
        Need::Extension(extension) => (extension.name(), "VkDeviceCreateInfo::ppEnabledExtensionNames"),
        Need::Version(version) => (
            match vk::api_version_minor(version) {
                1 => "Vulkan 1.1",
                2 => "Vulkan 1.2",
                _ => "Vulkan 1.3",
            },
            "VkApplicationInfo::apiVersion",
        ),
        Need::Subgroup(_) => ("supportedOperations", "VkPhysicalDeviceSubgroupProperties"),
        Need::Property(name) => (name, "VkPhysicalDeviceVulkan12Properties"),
    }
}

#[cfg(test)]
mod registry_tests;
#[cfg(test)]
mod tests;
