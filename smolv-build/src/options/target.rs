//! Which graphics API consumes the shaders: Vulkan, or wgpu, for which the build may ship WGSL.

/// What the game hands its shaders to ([`Config::for_wgpu`](crate::Config::for_wgpu)); the names in parentheses
/// are what `SMOLV_TARGET` and `--target-api` take.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) enum Target {
    /// (`vulkan`) SPIR-V for Vulkan. The default.
    #[default]
    Vulkan,
    /// (`wgpu`) wgpu: WGSL or SPIR-V, whichever makes the game smaller (WGSL for a runtime without `wgpu-spirv`).
    Wgpu,
    /// (`wgpu-wgsl`) wgpu, WGSL for every shader naga can translate (SPIR-V for the rest).
    WgpuWgsl,
    /// (`wgpu-spirv`) wgpu, SPIR-V for every shader: as [`Target::Vulkan`].
    WgpuSpirv,
}

named!(
    /// Every target.
    pub(crate) ALL,
    /// Its name: `vulkan`, `wgpu`, `wgpu-wgsl` or `wgpu-spirv`.
    pub(crate) name,
    Target {
        Vulkan => "vulkan",
        Wgpu => "wgpu",
        WgpuWgsl => "wgpu-wgsl",
        WgpuSpirv => "wgpu-spirv",
    }
);

impl Target {
    /// The target of a name; `None` for any other text.
    pub(crate) fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Whether the build may ship WGSL.
    pub(crate) fn may_ship_wgsl(self) -> bool {
        matches!(self, Self::Wgpu | Self::WgpuWgsl)
    }

    /// Whether WGSL and WESL negate the position's `y` by default: for Vulkan only, as wgpu flips the viewport.
    pub(crate) fn adjusts_wgsl_position(self) -> bool {
        self == Self::Vulkan
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_target_parses_from_its_name_and_only_wgpu_ones_may_ship_wgsl() {
        for target in Target::ALL {
            assert_eq!(Target::parse(target.name()), Some(target));
        }
        assert_eq!(Target::parse("metal"), None);
        let shipping: Vec<Target> = Target::ALL.into_iter().filter(|t| t.may_ship_wgsl()).collect();
        assert_eq!(shipping, [Target::Wgpu, Target::WgpuWgsl]);
    }

    #[test]
    fn only_vulkan_negates_the_wgsl_position_by_default() {
        let adjusting: Vec<Target> = Target::ALL.into_iter().filter(|t| t.adjusts_wgsl_position()).collect();
        assert_eq!(adjusting, [Target::Vulkan]);
    }
}
