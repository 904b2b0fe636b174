//! Names of SPIR-V capabilities, for messages and for the Vulkan features a module needs, from the `spirv`
//! crate's `Capability` (the unified grammar; where numbers share names, the first).

use alloc::format;
use alloc::string::String;

use super::interface::Capability;
use crate::spirv::spec;

impl Capability {
    /// The capability as the `spirv` crate knows it, if it does.
    ///
    /// ```
    /// use smolv_format::reflect::Capability;
    /// use smolv_format::spirv::spec;
    /// assert_eq!(Capability(10).known(), Some(spec::Capability::Float64));
    /// assert_eq!(Capability(4_000_000).known(), None);
    /// ```
    pub fn known(self) -> Option<spec::Capability> {
        spec::Capability::from_u32(self.0)
    }

    /// The capability's name in the SPIR-V specification (`Float64`, `RayQueryKHR`), if this crate knows it.
    ///
    /// ```
    /// use smolv_format::reflect::Capability;
    /// assert_eq!(Capability(4433).name().as_deref(), Some("StorageBuffer16BitAccess"));
    /// assert_eq!(Capability(4472).name().as_deref(), Some("RayQueryKHR"));
    /// ```
    pub fn name(self) -> Option<String> {
        self.known().map(|known| format!("{known:?}"))
    }

    /// The capability a name (as [`name`](Self::name) gives it, or one of its aliases) stands for.
    ///
    /// ```
    /// use smolv_format::reflect::Capability;
    /// assert_eq!(Capability::from_name("Int64"), Some(Capability(11)));
    /// assert_eq!(Capability::from_name("Warp"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Self> {
        name.parse::<spec::Capability>().ok().map(|known| Self(known as u32))
    }
}

#[cfg(test)]
mod tests {
    use super::Capability;

    #[test]
    fn names_and_numbers_round_trip() {
        for number in [0, 1, 10, 11, 4433, 4472, 5345, 6528] {
            let name = Capability(number).name().unwrap();
            assert_eq!(Capability::from_name(&name), Some(Capability(number)), "{name}");
        }
        assert_eq!(Capability::from_name("StorageUniformBufferBlock16"), Some(Capability(4433)));
        assert_eq!(Capability(16).name(), None);
    }
}
