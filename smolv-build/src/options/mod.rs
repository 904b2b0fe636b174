//! The option types a [`Config`](crate::Config) is made of, used by every build step.

use smolv_format::reflect::ShaderStage;

/// `ALL` (every variant, in order) and `name()`, from one table of the variants' names.
macro_rules! named {
    ($(#[$all_doc:meta])* $all_vis:vis ALL, $(#[$doc:meta])* $vis:vis name,
     $ty:ident { $($v:ident $({ $f:ident: $fv:path })? => $name:literal,)+ }) => {
        impl $ty {
            $(#[$all_doc])*
            $all_vis const ALL: [Self; [$($name),+].len()] = [$(Self::$v $({ $f: $fv })?),+];

            $(#[$doc])*
            $vis const fn name(self) -> &'static str {
                match self {
                    $(Self::$v $({ $f: $fv })? => $name,)+
                }
            }
        }
    };
}

mod language;
mod packing;
mod runtime;
mod target;

pub use language::Language;
pub use packing::{Framing, Packing, SizeGoal};
pub(crate) use runtime::{RuntimeCodecs, VARIABLES as RUNTIME_VARIABLES};
pub(crate) use target::Target;

/// Which Vulkan version the SPIR-V targets (see
/// [`Config::target_env`](crate::Config::target_env)).
///
/// ```
/// use smolv_build::{SpirvVersion, TargetEnv};
/// let env = TargetEnv::parse("vulkan1.3").unwrap();
/// assert_eq!(env, TargetEnv::Vulkan1_3);
/// assert_eq!(env.default_spirv_version(), SpirvVersion::V1_6);
/// assert_eq!(TargetEnv::default().name(), "vulkan1.0");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub enum TargetEnv {
    /// Vulkan 1.0 (SPIR-V 1.0). The default.
    #[default]
    Vulkan1_0,
    /// Vulkan 1.1 (SPIR-V up to 1.3).
    Vulkan1_1,
    /// Vulkan 1.2 (SPIR-V up to 1.5).
    Vulkan1_2,
    /// Vulkan 1.3 (SPIR-V up to 1.6).
    Vulkan1_3,
}

named!(ALL,
    /// The `spirv-opt --target-env` spelling: `vulkan1.2`.
    ///
    /// ```
    /// assert_eq!(smolv_build::TargetEnv::Vulkan1_0.name(), "vulkan1.0");
    /// ```
    pub name,
    TargetEnv {
        Vulkan1_0 => "vulkan1.0",
        Vulkan1_1 => "vulkan1.1",
        Vulkan1_2 => "vulkan1.2",
        Vulkan1_3 => "vulkan1.3",
    }
);

impl TargetEnv {
    /// The SPIR-V version this environment uses by default.
    ///
    /// ```
    /// use smolv_build::{SpirvVersion, TargetEnv};
    /// assert_eq!(TargetEnv::Vulkan1_1.default_spirv_version(), SpirvVersion::V1_3);
    /// ```
    pub fn default_spirv_version(self) -> SpirvVersion {
        match self {
            Self::Vulkan1_0 => SpirvVersion::V1_0,
            Self::Vulkan1_1 => SpirvVersion::V1_3,
            Self::Vulkan1_2 => SpirvVersion::V1_5,
            Self::Vulkan1_3 => SpirvVersion::V1_6,
        }
    }

    /// The lowest of `self` and newer environments that accepts header version word `version`.
    pub(crate) fn accepting(self, version: u32) -> Self {
        let needed = match (version >> 8) & 0xff {
            0 => Self::Vulkan1_0,
            1..=3 => Self::Vulkan1_1,
            4 | 5 => Self::Vulkan1_2,
            _ => Self::Vulkan1_3,
        };
        self.max(needed)
    }

    /// Parses `vulkan1.0` … `vulkan1.3` (also `1.2`).
    ///
    /// ```
    /// use smolv_build::TargetEnv;
    /// assert_eq!(TargetEnv::parse("vulkan1.1"), Some(TargetEnv::Vulkan1_1));
    /// assert_eq!(TargetEnv::parse("1.2"), Some(TargetEnv::Vulkan1_2));
    /// assert_eq!(TargetEnv::parse("opengl4.5"), None);
    /// ```
    pub fn parse(text: &str) -> Option<Self> {
        let version = text.trim_start_matches("vulkan");
        Self::ALL.into_iter().find(|env| env.name()["vulkan".len()..] == *version)
    }
}

/// A SPIR-V version.
///
/// ```
/// use smolv_build::SpirvVersion;
/// assert!(SpirvVersion::V1_3 < SpirvVersion::V1_6);
/// assert_eq!(SpirvVersion::V1_5.major_minor(), (1, 5));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub enum SpirvVersion {
    /// SPIR-V 1.0.
    V1_0,
    /// SPIR-V 1.1.
    V1_1,
    /// SPIR-V 1.2.
    V1_2,
    /// SPIR-V 1.3.
    V1_3,
    /// SPIR-V 1.4.
    V1_4,
    /// SPIR-V 1.5.
    V1_5,
    /// SPIR-V 1.6.
    V1_6,
}

impl SpirvVersion {
    const ALL: [Self; 7] = [Self::V1_0, Self::V1_1, Self::V1_2, Self::V1_3, Self::V1_4, Self::V1_5, Self::V1_6];

    /// `(major, minor)`.
    ///
    /// ```
    /// assert_eq!(smolv_build::SpirvVersion::V1_0.major_minor(), (1, 0));
    /// ```
    pub fn major_minor(self) -> (u8, u8) {
        (1, self as u8)
    }

    /// Parses `1.0` … `1.6` (also `spv1.3`, as glslc's `--target-spv` takes it).
    ///
    /// ```
    /// use smolv_build::SpirvVersion;
    /// assert_eq!(SpirvVersion::parse("1.4"), Some(SpirvVersion::V1_4));
    /// assert_eq!(SpirvVersion::parse("spv1.3"), Some(SpirvVersion::V1_3));
    /// assert_eq!(SpirvVersion::parse("1.7"), None);
    /// ```
    pub fn parse(text: &str) -> Option<Self> {
        let version = text.strip_prefix("spv").unwrap_or(text);
        Self::ALL.into_iter().find(|v| format!("1.{}", *v as u8) == version)
    }

    /// The version word of a module header: `0x0001_0400` for SPIR-V 1.4.
    pub(crate) fn word(self) -> u32 {
        0x0001_0000 | u32::from(self as u8) << 8
    }
}

/// What the application's Vulkan device takes, for the check that no module is newer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DeviceSpirv {
    pub(crate) vulkan: TargetEnv,
    /// The newest SPIR-V version it takes (1.4 on Vulkan 1.1 through VK_KHR_spirv_1_4).
    pub(crate) newest: SpirvVersion,
}

impl DeviceSpirv {
    /// The device `Config::target_env` and `Config::spirv_version` describe.
    pub(crate) fn new(env: TargetEnv, spirv_version: Option<SpirvVersion>) -> Self {
        let asked = spirv_version.map_or(env.default_spirv_version(), |v| v.max(env.default_spirv_version()));
        if env == TargetEnv::Vulkan1_1 && asked == SpirvVersion::V1_4 {
            return Self { vulkan: env, newest: asked };
        }
        let vulkan = env.accepting(asked.word());
        Self { vulkan, newest: vulkan.default_spirv_version() }
    }

    /// Whether the device takes its newest SPIR-V through VK_KHR_spirv_1_4.
    pub(crate) fn khr_spirv_1_4(self) -> bool {
        self.newest > self.vulkan.default_spirv_version()
    }
}

/// How hard to optimize.
///
/// ```
/// use smolv_build::{Config, Optimization};
/// assert_eq!(Optimization::default(), Optimization::Size);
/// Config::new().shader_dir("shaders").optimization(Optimization::None); // debugging a miscompile
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Optimization {
    /// No optimization.
    None,
    /// The SPIRV-Tools `-Os` recipe. The default: shaders ship smallest.
    #[default]
    Size,
    /// The SPIRV-Tools `-O` recipe.
    Performance,
}

/// Whether to train a shared zstd dictionary over the crate's shaders.
///
/// ```
/// use smolv_build::{bundle::compress_set, DictionaryMode};
/// # let spirv = smolv_format::doc_example_module();
/// let smolv = smolv_codec::encode(&spirv[..], &Default::default())?;
/// let alone = compress_set(&[smolv.clone(), smolv.clone()], 19, DictionaryMode::Off)?;
/// assert_eq!(alone.dictionary, None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DictionaryMode {
    /// Train one for two or more modules, and keep the best size only if it
    /// lowers the total *including* the dictionary. The default.
    #[default]
    Auto,
    /// Compress each module on its own.
    Off,
    /// Always use a dictionary of this many bytes (when there are two or
    /// more modules to train on).
    Size(usize),
}

/// A preprocessor define: `NAME` or `NAME=value`.
///
/// ```
/// use smolv_build::Define;
/// let debug = Define::new("DEBUG", None); // #define DEBUG
/// let lights = Define::new("MAX_LIGHTS", Some("16")); // #define MAX_LIGHTS 16
/// assert_eq!((debug.value, lights.value.as_deref()), (None, Some("16")));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct Define {
    /// The macro name.
    pub name: String,
    /// Its value, if any.
    pub value: Option<String>,
}

impl Define {
    /// `NAME=value`, or just `NAME` for `None`.
    ///
    /// ```
    /// let define = smolv_build::Define::new("MAX_LIGHTS", Some("16"));
    /// assert_eq!(define.name, "MAX_LIGHTS");
    /// ```
    pub fn new(name: impl Into<String>, value: Option<&str>) -> Self {
        Self { name: name.into(), value: value.map(str::to_owned) }
    }
}

/// A named set of defines that turns one source into one more module,
/// addressed as `shader@variant` (for example `lit.frag@shadows`).
///
/// ```
/// use smolv_build::Variant;
///
/// let shadows = Variant::new("shadows").define("SHADOWS", "1").define("PCF_TAPS", "16");
/// assert_eq!(shadows.name(), "shadows");
///
/// // Every combination of feature values: 2 × 3 = 6 variants,
/// // named "FOG=0,QUALITY=low" and so on.
/// let all = Variant::permutations(&[("FOG", &["0", "1"]), ("QUALITY", &["low", "mid", "high"])]);
/// assert_eq!(all.len(), 6);
/// assert_eq!(all[0].name(), "FOG=0,QUALITY=low");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Variant {
    pub(crate) name: String,
    pub(crate) defines: Vec<Define>,
    pub(crate) spec_constants: Vec<(u32, smolv_codec::specialize::Value)>,
    pub(crate) wesl_features: Vec<(String, bool)>,
}

impl Variant {
    /// A variant with no defines yet.
    ///
    /// ```
    /// let plain = smolv_build::Variant::new("plain");
    /// assert_eq!(plain.name(), "plain");
    /// ```
    pub fn new(name: impl Into<String>) -> Self {
        Self { name: name.into(), defines: Vec::new(), spec_constants: Vec::new(), wesl_features: Vec::new() }
    }

    /// Freezes specialization constant `id` to `value` at build time
    /// (`smolv_codec::specialize`).
    ///
    /// ```
    /// use smolv_build::Variant;
    /// let low = Variant::new("low").spec_constant(0, false).spec_constant(4, 1);
    /// # let _ = low;
    /// ```
    pub fn spec_constant(mut self, id: u32, value: impl Into<smolv_codec::specialize::Value>) -> Self {
        self.spec_constants.push((id, value.into()));
        self
    }

    /// Adds `#define name value`.
    ///
    /// ```
    /// let fog = smolv_build::Variant::new("fog").define("FOG", "1").define("FOG_DENSITY", "0.02");
    /// # let _ = fog;
    /// ```
    pub fn define(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.defines.push(Define { name: name.into(), value: Some(value.into()) });
        self
    }

    /// Sets WESL's `@if` feature `name` to `value`, for a WESL shader.
    ///
    /// ```
    /// use smolv_build::{Config, Variant};
    /// let mut config = Config::new();
    /// // lit.wesl with `@if(shadows)` code off, and lit.wesl@shadows with it on.
    /// config.shader_dir("shaders").variants("lit.wesl", [Variant::new("shadows").wesl_feature("shadows", true)]);
    /// ```
    pub fn wesl_feature(mut self, name: impl Into<String>, value: bool) -> Self {
        self.wesl_features.push((name.into(), value));
        self
    }

    /// The variant's name.
    ///
    /// ```
    /// assert_eq!(smolv_build::Variant::new("shadows").name(), "shadows");
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// One variant per combination of the given define values, named
    /// `A=x,B=y`.
    ///
    /// ```
    /// use smolv_build::Variant;
    /// let all = Variant::permutations(&[("MSAA", &["1", "4"]), ("HDR", &["0", "1"])]);
    /// let names: Vec<&str> = all.iter().map(Variant::name).collect();
    /// assert_eq!(names, ["MSAA=1,HDR=0", "MSAA=1,HDR=1", "MSAA=4,HDR=0", "MSAA=4,HDR=1"]);
    /// ```
    pub fn permutations(axes: &[(&str, &[&str])]) -> Vec<Variant> {
        axes.iter().fold(vec![Variant::new("")], |variants, (name, values)| {
            variants
                .iter()
                .flat_map(|v| {
                    values.iter().map(move |value| {
                        let mut next = v.clone().define(*name, *value);
                        let comma = if v.name.is_empty() { "" } else { "," };
                        next.name = format!("{}{comma}{name}={value}", v.name);
                        next
                    })
                })
                .collect()
        })
    }
}

/// A kind of shader resource, for [`Config::binding_base`](crate::Config::binding_base):
/// glslc's `-f<kind>-binding-base` flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub enum ResourceKind {
    /// Storage images and image buffers (`image`).
    Image,
    /// Pure samplers (`sampler`; HLSL `s` registers).
    Sampler,
    /// Sampled textures (`texture`; HLSL `t` registers, shader resource views).
    Texture,
    /// Uniform buffers (`ubo`, also `cbuffer`; HLSL `b` registers).
    UniformBuffer,
    /// Storage buffers (`ssbo`).
    StorageBuffer,
    /// HLSL unordered access views (`uav`; `u` registers).
    UnorderedAccessView,
}

named!(
    /// Every kind, in glslc's order.
    pub ALL,
    /// glslc's name, as in `-fubo-binding-base`: `image`, `sampler`,
    /// `texture`, `ubo`, `ssbo`, `uav`.
    pub name,
    ResourceKind {
        Image => "image",
        Sampler => "sampler",
        Texture => "texture",
        UniformBuffer => "ubo",
        StorageBuffer => "ssbo",
        UnorderedAccessView => "uav",
    }
);

impl ResourceKind {
    /// Parses glslc's names (and `cbuffer`, glslc's other name for `ubo`).
    ///
    /// ```
    /// use smolv_build::ResourceKind;
    /// assert_eq!(ResourceKind::parse("cbuffer"), Some(ResourceKind::UniformBuffer));
    /// assert_eq!(ResourceKind::parse("uav"), Some(ResourceKind::UnorderedAccessView));
    /// ```
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "cbuffer" => Some(Self::UniformBuffer),
            _ => Self::ALL.into_iter().find(|kind| kind.name() == text),
        }
    }
}

/// The lowest binding of resources of one kind (glslc's binding base), in every stage or in one.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub(crate) struct BindingBase {
    pub(crate) stage: Option<ShaderStage>,
    pub(crate) kind: ResourceKind,
    pub(crate) base: u32,
}

/// An HLSL register placed at a set and binding (`-fresource-set-binding`), in every stage or in one.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub(crate) struct RegisterBinding {
    pub(crate) stage: Option<ShaderStage>,
    pub(crate) register: String,
    pub(crate) set: u32,
    pub(crate) binding: u32,
}

/// HLSL's resource and layout rules (glslc's `-fhlsl-*` flags).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub(crate) struct HlslOptions {
    pub(crate) io_mapping: bool,
    pub(crate) offsets: bool,
    pub(crate) register_bindings: Vec<RegisterBinding>,
    /// `half`, `min16float`, … as 16-bit types.
    pub(crate) sixteen_bit_types: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_takes_its_target_s_spirv_or_the_newer_one_asked_for() {
        use SpirvVersion::*;
        use TargetEnv::*;
        let cases = [
            (Vulkan1_0, None, Vulkan1_0, V1_0),
            (Vulkan1_1, None, Vulkan1_1, V1_3),
            (Vulkan1_1, Some(V1_0), Vulkan1_1, V1_3),
            (Vulkan1_0, Some(V1_3), Vulkan1_1, V1_3),
            (Vulkan1_1, Some(V1_4), Vulkan1_1, V1_4),
            (Vulkan1_0, Some(V1_4), Vulkan1_2, V1_5),
            (Vulkan1_2, Some(V1_4), Vulkan1_2, V1_5),
            (Vulkan1_0, Some(V1_6), Vulkan1_3, V1_6),
        ];
        for (env, asked, device_env, newest) in cases {
            let device = DeviceSpirv::new(env, asked);
            assert_eq!((device.vulkan, device.newest), (device_env, newest), "{env:?} with {asked:?}");
            assert_eq!(device.khr_spirv_1_4(), (env, asked) == (Vulkan1_1, Some(V1_4)));
        }
    }
}
