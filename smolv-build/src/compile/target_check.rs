//! Modules whose SPIR-V is newer than the target environment takes: Slang's
//! (it emits SPIR-V 1.3 at least) and precompiled `.spv` files. They build,
//! but a device of the target's Vulkan version refuses them, and the
//! Vulkan layer refuses them at pipeline creation; the build says so first.

use crate::options::TargetEnv;

/// Modules listed by name in the warning, before "and N more".
const NAMED: usize = 4;

/// One warning for every module in `modules` (name, SPIR-V words) whose
/// version `env` does not take, naming them in name order, or `None` when
/// there is none.
///
/// The warning names the SPIR-V version, the environment those modules
/// need, and how to raise the target.
pub(crate) fn newer_than_target<'a>(
    modules: impl IntoIterator<Item = (&'a str, &'a [u32])>,
    env: TargetEnv,
) -> Option<String> {
    let mut newest = 0;
    let mut names = Vec::new();
    for (name, spirv) in modules {
        let version = spirv.get(1).copied().unwrap_or(0);
        if TargetEnv::Vulkan1_0.accepting(version) > env {
            newest = newest.max(version);
            names.push(name);
        }
    }
    names.sort_unstable();
    let (first, count) = (*names.first()?, names.len());
    let needed = TargetEnv::Vulkan1_0.accepting(newest);
    let (target_major, target_minor) = env.default_spirv_version().major_minor();
    let mut listed = names.iter().take(NAMED).copied().collect::<Vec<_>>().join(", ");
    if count > NAMED {
        listed.push_str(&format!(" and {} more", count - NAMED));
    }
    let which = if count == 1 { format!("{first} is") } else { format!("{count} modules are") };
    let list = if count == 1 { String::new() } else { format!(" ({listed})") };
    Some(format!(
        "{which} SPIR-V up to {}.{}{list}, newer than the target {} takes (SPIR-V {target_major}.{target_minor}): \
         a {} device refuses {}. Slang emits SPIR-V 1.3 at least, and a precompiled .spv keeps its version. If \
         the application creates a {} instance, say so: `Config::target_env(TargetEnv::{:?})`, or `--target-env {}`",
        newest >> 16 & 0xff,
        newest >> 8 & 0xff,
        env.name(),
        env.name().replace("vulkan", "Vulkan "),
        if count == 1 { "it" } else { "them" },
        needed.name().replace("vulkan", "Vulkan "),
        needed,
        needed.name(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(major: u32, minor: u32) -> Vec<u32> {
        vec![0x0723_0203, major << 16 | minor << 8, 0, 1, 0]
    }

    #[test]
    fn modules_the_target_takes_need_no_word() {
        let (old, new) = (module(1, 0), module(1, 3));
        assert_eq!(newer_than_target([("a.vert", &old[..])], TargetEnv::Vulkan1_0), None);
        assert_eq!(newer_than_target([("a.vert", &new[..])], TargetEnv::Vulkan1_1), None);
        assert_eq!(newer_than_target([], TargetEnv::Vulkan1_0), None);
    }

    #[test]
    fn one_newer_module_is_named_with_the_target_it_needs() {
        let new = module(1, 3);
        let warning = newer_than_target([("tri.slang#vs_main", &new[..])], TargetEnv::Vulkan1_0).unwrap();
        assert!(warning.starts_with("tri.slang#vs_main is SPIR-V up to 1.3, newer than the target vulkan1.0 takes"));
        assert!(warning.contains("a Vulkan 1.0 device refuses it"), "{warning}");
        assert!(warning.contains("`Config::target_env(TargetEnv::Vulkan1_1)`, or `--target-env vulkan1.1`"));
    }

    #[test]
    fn many_are_counted_and_the_newest_sets_the_target() {
        let (old, v13, v15) = (module(1, 0), module(1, 3), module(1, 5));
        let modules = [
            ("a", &v13[..]),
            ("b", &old[..]),
            ("c", &v15[..]),
            ("d", &v13[..]),
            ("e", &v13[..]),
            ("f", &v13[..]),
            ("g", &v13[..]),
        ];
        let warning = newer_than_target(modules, TargetEnv::Vulkan1_0).unwrap();
        assert!(warning.starts_with("6 modules are SPIR-V up to 1.5 (a, c, d, e and 2 more), newer"), "{warning}");
        assert!(warning.contains("TargetEnv::Vulkan1_2"), "{warning}");
        assert!(warning.contains("refuses them"), "{warning}");
    }
}
