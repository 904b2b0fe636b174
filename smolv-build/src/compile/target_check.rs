//! The warning for modules whose SPIR-V is newer than the target environment takes.

use crate::options::{DeviceSpirv, Language, SpirvVersion, TargetEnv};

/// Modules listed by name in the warning, before "and N more".
const NAMED: usize = 4;

pub(crate) struct Checked<'a> {
    pub(crate) name: &'a str,
    pub(crate) language: Language,
    pub(crate) spirv: &'a [u32],
}

/// One warning naming every module whose SPIR-V version `device` does not take; `None` if none.
pub(crate) fn newer_than_target<'a>(
    modules: impl IntoIterator<Item = Checked<'a>>,
    device: DeviceSpirv,
) -> Option<String> {
    let mut newer: Vec<(&str, Language, u32)> = modules
        .into_iter()
        .map(|module| (module.name, module.language, module.spirv.get(1).copied().unwrap_or(0)))
        .filter(|&(_, _, version)| version > device.newest.word())
        .collect();
    newer.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let &(first, _, _) = newer.first()?;
    let count = newer.len();
    let newest = newer.iter().map(|&(_, _, version)| version).max().unwrap_or(0);
    let oldest = newer.iter().map(|&(_, _, version)| version).min().unwrap_or(0);
    let needed = TargetEnv::Vulkan1_0.accepting(newest);

    let modules = if count == 1 {
        format!("{first} is")
    } else {
        let mut names = newer.iter().take(NAMED).map(|&(name, _, _)| name).collect::<Vec<_>>().join(", ");
        if count > NAMED {
            names.push_str(&format!(" and {} more", count - NAMED));
        }
        format!("{count} modules ({names}) are")
    };
    let versions = if oldest == newest {
        format!("SPIR-V {}", version_name(newest))
    } else {
        format!("SPIR-V {} to {}", version_name(oldest), version_name(newest))
    };
    let takes = version_name(device.newest.word());
    let khr = if device.khr_spirv_1_4() { " with VK_KHR_spirv_1_4" } else { "" };
    let target = format!("{}{khr}", device.vulkan.name());
    let refusing = format!("{} device{khr}", device_name(device.vulkan));
    let them = if count == 1 { "it" } else { "them" };
    let mut why = Vec::new();
    if newer.iter().any(|&(_, language, _)| language == Language::Slang) {
        why.push("Slang emits SPIR-V 1.3 at least".to_owned());
    }
    if newer.iter().any(|&(_, language, _)| language == Language::Spirv) {
        why.push(format!("a precompiled .spv keeps the version it was built for (or rebuild it for SPIR-V {takes})"));
    }
    let why = if why.is_empty() { String::new() } else { format!(" ({})", why.join("; ")) };
    let extension = if newest == SpirvVersion::V1_4.word() { format!("; {KHR_SPIRV_1_4}") } else { String::new() };
    Some(format!(
        "{modules} {versions}, newer than the target {target} takes (SPIR-V {takes}): a {refusing} \
         refuses {them}{why}. If the application creates a {needed_device} instance or newer, say so: \
         {raise}{extension}",
        needed_device = device_name(needed),
        raise = raise_to(needed),
    ))
}

/// How to tell the build that the device is `vulkan` or newer.
pub(crate) fn raise_to(vulkan: TargetEnv) -> String {
    format!("`Config::target_env(TargetEnv::{vulkan:?})`, or `--target-env {}`", vulkan.name())
}

/// The other way a device takes SPIR-V 1.4.
pub(crate) const KHR_SPIRV_1_4: &str = "a Vulkan 1.1 device that enables VK_KHR_spirv_1_4 takes SPIR-V 1.4 too: \
    `Config::target_env(TargetEnv::Vulkan1_1).spirv_version(SpirvVersion::V1_4)`, or `--target-env vulkan1.1 \
    --spirv-version 1.4`, with `PipelineOptions::khr_spirv_1_4(true)` for smolv's Vulkan layer";

/// `1.3` for the version word `0x0001_0300`.
fn version_name(word: u32) -> String {
    format!("{}.{}", (word >> 16) & 0xff, (word >> 8) & 0xff)
}

/// `Vulkan 1.1` for [`TargetEnv::Vulkan1_1`].
pub(crate) fn device_name(env: TargetEnv) -> String {
    env.name().replace("vulkan", "Vulkan ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(major: u32, minor: u32) -> Vec<u32> {
        vec![0x0723_0203, major << 16 | minor << 8, 0, 1, 0]
    }

    fn checked<'a>(name: &'a str, language: Language, spirv: &'a [u32]) -> Checked<'a> {
        Checked { name, language, spirv }
    }

    fn device(env: TargetEnv) -> DeviceSpirv {
        DeviceSpirv::new(env, None)
    }

    #[test]
    fn modules_the_target_takes_need_no_word() {
        let (old, new) = (module(1, 0), module(1, 3));
        assert_eq!(newer_than_target([checked("a.vert", Language::Glsl, &old)], device(TargetEnv::Vulkan1_0)), None);
        assert_eq!(
            newer_than_target([checked("a.slang#vs", Language::Slang, &new)], device(TargetEnv::Vulkan1_1)),
            None
        );
        assert_eq!(newer_than_target([], device(TargetEnv::Vulkan1_0)), None);
    }

    #[test]
    fn one_slang_module_is_named_with_the_target_it_needs() {
        let new = module(1, 3);
        let warning =
            newer_than_target([checked("tri.slang#vs_main", Language::Slang, &new)], device(TargetEnv::Vulkan1_0))
                .unwrap();
        assert_eq!(
            warning,
            "tri.slang#vs_main is SPIR-V 1.3, newer than the target vulkan1.0 takes (SPIR-V 1.0): a Vulkan 1.0 \
             device refuses it (Slang emits SPIR-V 1.3 at least). If the application creates a Vulkan 1.1 \
             instance or newer, say so: `Config::target_env(TargetEnv::Vulkan1_1)`, or `--target-env vulkan1.1`"
        );
    }

    #[test]
    fn many_are_counted_in_name_order_and_the_newest_sets_the_target() {
        let (old, v13, v15) = (module(1, 0), module(1, 3), module(1, 5));
        let modules = [
            checked("g", Language::Slang, &v13),
            checked("b", Language::Glsl, &old),
            checked("c.spv", Language::Spirv, &v15),
            checked("a", Language::Slang, &v13),
            checked("d", Language::Slang, &v13),
            checked("e", Language::Slang, &v13),
            checked("f", Language::Slang, &v13),
        ];
        let warning = newer_than_target(modules, device(TargetEnv::Vulkan1_0)).unwrap();
        assert!(
            warning.starts_with("6 modules (a, c.spv, d, e and 2 more) are SPIR-V 1.3 to 1.5, newer than the target"),
            "{warning}"
        );
        assert!(warning.contains("refuses them (Slang emits SPIR-V 1.3 at least; a precompiled .spv keeps"));
        assert!(warning.contains("(or rebuild it for SPIR-V 1.0)"), "{warning}");
        assert!(warning.contains("a Vulkan 1.2 instance or newer"), "{warning}");
        assert!(warning.ends_with("`Config::target_env(TargetEnv::Vulkan1_2)`, or `--target-env vulkan1.2`"));
    }

    #[test]
    fn spirv_1_4_also_names_the_vulkan_1_1_extension_that_takes_it() {
        let v14 = module(1, 4);
        let warning =
            newer_than_target([checked("m.spv", Language::Spirv, &v14)], device(TargetEnv::Vulkan1_1)).unwrap();
        assert!(warning.contains("a Vulkan 1.2 instance or newer"), "{warning}");
        assert!(
            warning.ends_with(
                "`--target-env vulkan1.2`; a Vulkan 1.1 device that enables VK_KHR_spirv_1_4 takes SPIR-V 1.4 too: \
                 `Config::target_env(TargetEnv::Vulkan1_1).spirv_version(SpirvVersion::V1_4)`, or `--target-env \
                 vulkan1.1 --spirv-version 1.4`, with `PipelineOptions::khr_spirv_1_4(true)` for smolv's Vulkan layer"
            ),
            "{warning}"
        );
        // Newer than 1.4, the extension does not help.
        let v15 = module(1, 5);
        let warning =
            newer_than_target([checked("m.spv", Language::Spirv, &v15)], device(TargetEnv::Vulkan1_0)).unwrap();
        assert!(!warning.contains("VK_KHR_spirv_1_4"), "{warning}");
    }

    #[test]
    fn the_advised_vulkan_1_1_with_spirv_1_4_takes_1_4_and_still_refuses_1_5() {
        let extended = DeviceSpirv::new(TargetEnv::Vulkan1_1, Some(SpirvVersion::V1_4));
        let (v14, v15) = (module(1, 4), module(1, 5));
        assert_eq!(newer_than_target([checked("m.spv", Language::Spirv, &v14)], extended), None);
        let warning = newer_than_target([checked("n.spv", Language::Spirv, &v15)], extended).unwrap();
        assert!(
            warning.starts_with(
                "n.spv is SPIR-V 1.5, newer than the target vulkan1.1 with VK_KHR_spirv_1_4 takes (SPIR-V 1.4): a \
                 Vulkan 1.1 device with VK_KHR_spirv_1_4 refuses it"
            ),
            "{warning}"
        );
        assert!(warning.contains("`Config::target_env(TargetEnv::Vulkan1_2)`"), "{warning}");
    }
}
