//! Which SPIR-V versions a device takes (some drivers run newer ones anyway).

use ash::vk;
use smolv_format::spirv::MAGIC;

use super::VulkanError;
use crate::reflect::Reflection;

/// The newest SPIR-V version a device takes, from its Vulkan version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SpirvSupport {
    /// The device's Vulkan version, as (major, minor).
    vulkan: (u32, u32),
    /// The newest SPIR-V version it takes, as (major, minor).
    newest: (u32, u32),
}

impl SpirvSupport {
    /// What a device created for `api_version` takes.
    pub(crate) fn new(api_version: u32, khr_spirv_1_4: bool) -> Self {
        let vulkan = (vk::api_version_major(api_version), vk::api_version_minor(api_version));
        let newest = match vulkan {
            (0, _) | (1, 0) => (1, 0),
            (1, 1) if khr_spirv_1_4 => (1, 4),
            (1, 1) => (1, 3),
            (1, 2) => (1, 5),
            _ => (1, 6),
        };
        Self { vulkan, newest }
    }

    /// An error if `code`'s SPIR-V version is newer than the device takes.
    pub(crate) fn check(&self, code: &[u32], reflection: &Reflection) -> Result<(), VulkanError> {
        match module_version(code) {
            Some(spirv) if spirv > self.newest => Err(VulkanError::SpirvVersionUnsupported {
                stage: reflection.stage.name(),
                entry_point: reflection.entry_point.clone(),
                spirv,
                vulkan: self.vulkan,
            }),
            _ => Ok(()),
        }
    }
}

/// The (major, minor) SPIR-V version in `code`'s header; `None` without a header.
pub(crate) fn module_version(code: &[u32]) -> Option<(u32, u32)> {
    if let [MAGIC, version, ..] = code { Some(((version >> 16) & 0xFF, (version >> 8) & 0xFF)) } else { None }
}

/// The Vulkan version SPIR-V `spirv` needs, in words, for error messages.
pub(crate) fn vulkan_needed(spirv: (u32, u32)) -> &'static str {
    match spirv {
        (1, 0) => "Vulkan 1.0",
        (1, 1..=3) => "Vulkan 1.1",
        (1, 4) => "Vulkan 1.2 (or 1.1 with VK_KHR_spirv_1_4)",
        (1, 5) => "Vulkan 1.2",
        (1, 6) => "Vulkan 1.3",
        _ => "a Vulkan version newer than any this crate knows",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reflect::ShaderStage;

    fn module(major: u32, minor: u32) -> Vec<u32> {
        vec![MAGIC, (major << 16) | (minor << 8), 0, 1, 0]
    }

    #[test]
    fn each_vulkan_version_takes_the_spirv_versions_the_spec_lists() {
        let cases = [
            (vk::API_VERSION_1_0, false, (1, 0)),
            (vk::API_VERSION_1_1, false, (1, 3)),
            (vk::API_VERSION_1_1, true, (1, 4)),
            (vk::API_VERSION_1_2, false, (1, 5)),
            (vk::API_VERSION_1_3, false, (1, 6)),
            (vk::make_api_version(0, 1, 4, 0), false, (1, 6)),
        ];
        let reflection = Reflection::new(ShaderStage::Compute, "main");
        for (api, khr_spirv_1_4, newest) in cases {
            let support = SpirvSupport::new(api, khr_spirv_1_4);
            assert_eq!(support.newest, newest);
            assert!(support.check(&module(newest.0, newest.1), &reflection).is_ok());
            let error = support.check(&module(newest.0, newest.1 + 1), &reflection).unwrap_err();
            assert!(matches!(error, VulkanError::SpirvVersionUnsupported { spirv, .. } if spirv == (1, newest.1 + 1)));
        }
    }

    #[test]
    fn the_error_names_the_shader_both_versions_and_what_to_change() {
        let reflection = Reflection::new(ShaderStage::Fragment, "shade");
        let error = SpirvSupport::new(vk::API_VERSION_1_0, false).check(&module(1, 5), &reflection).unwrap_err();
        let text = error.to_string();
        for part in ["fragment shader `shade`", "SPIR-V 1.5 needs Vulkan 1.2", "created for Vulkan 1.0", "target_env"] {
            assert!(text.contains(part), "{text:?} does not say {part:?}");
        }
    }

    #[test]
    fn code_without_a_header_is_left_alone() {
        let support = SpirvSupport::new(vk::API_VERSION_1_0, false);
        let reflection = Reflection::new(ShaderStage::Vertex, "main");
        for code in [&[][..], &[MAGIC], &[0x0203_2307, 0x0001_0600]] {
            assert_eq!(module_version(code), None);
            assert!(support.check(code, &reflection).is_ok());
        }
    }
}
