//! What the smolv-runtime that embeds the set can unpack, from its `links` metadata (`DEP_SMOLV_RUNTIME_*`).

use smolv_format::Codec;

use crate::error::Error;

/// The variables read (watched, see `env::WATCHED`).
pub(crate) const VARIABLES: [&str; 3] =
    ["DEP_SMOLV_RUNTIME_CODECS", "DEP_SMOLV_RUNTIME_ZSTD", "DEP_SMOLV_RUNTIME_WGPU"];

/// A forced packing that this smolv-runtime is too old to know.
fn newer_runtime(packing: &str) -> Error {
    Error::Config(format!(
        "packing {packing} needs a newer smolv-runtime than this crate depends on: use the same version as \
         smolv-build, or choose another packing (Config::packing, SMOLV_PACKING)"
    ))
}

/// The codecs the runtime decodes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct RuntimeCodecs {
    /// `None` when unknown (no direct smolv-runtime dependency): every codec is allowed.
    codecs: Option<Vec<Codec>>,
    /// Its zstd is the full-speed build (feature `zstd-fast` without `zstd`).
    pub(crate) zstd_fast: bool,
    /// Whether its wgpu layer takes SPIR-V (`wgpu-spirv`); `None` when unknown or without one.
    pub(crate) wgpu_spirv: Option<bool>,
}

impl RuntimeCodecs {
    /// From the variables, looked up with `var`.
    pub(crate) fn from_env(var: impl Fn(&str) -> Option<String>) -> Self {
        let codecs = var(VARIABLES[0]).map(|list| {
            let names: Vec<&str> = list.split(',').map(str::trim).collect();
            Codec::ALL.into_iter().filter(|c| names.contains(&c.name())).collect()
        });
        Self {
            codecs,
            zstd_fast: var(VARIABLES[1]).is_some_and(|zstd| zstd.trim() == "fast"),
            wgpu_spirv: var(VARIABLES[2]).and_then(|wgpu| match wgpu.trim() {
                "spirv" => Some(true),
                "wgsl" => Some(false),
                _ => None,
            }),
        }
    }

    /// Whether wgpu can make modules of SPIR-V in the game: unknown counts as yes.
    pub(crate) fn wgpu_takes_spirv(&self) -> bool {
        self.wgpu_spirv != Some(false)
    }

    /// A warning when `spirv_modules` (naga refused them) ship as SPIR-V to a wgpu layer that takes none.
    pub(crate) fn wgpu_spirv_warning(&self, spirv_modules: &[&str]) -> Option<String> {
        if self.wgpu_takes_spirv() || spirv_modules.is_empty() {
            return None;
        }
        let count = spirv_modules.len();
        let mut names = spirv_modules.iter().take(4).copied().collect::<Vec<_>>().join(", ");
        if count > 4 {
            names.push_str(&format!(" and {} more", count - 4));
        }
        let which = if count == 1 { format!("{names} ships") } else { format!("{count} modules ({names}) ship") };
        Some(format!(
            "{which} as SPIR-V for wgpu (naga cannot express {them} as WGSL), and this crate's smolv-runtime has \
             no `wgpu-spirv` feature, so `smolv_runtime::wgpu::create_shader_module` refuses {them}: add the \
             feature (`smolv-runtime = {{ version = \"0.1\", features = [\"wgpu\", \"wgpu-spirv\"] }}`), or \
             create {them} with `create_shader_module_passthrough` (unsafe: Vulkan only)",
            them = if count == 1 { "it" } else { "them" },
        ))
    }

    /// Whether the runtime decodes `codec`.
    pub(crate) fn decodes(&self, codec: Codec) -> bool {
        self.codecs.as_ref().is_none_or(|codecs| codecs.contains(&codec))
    }

    /// An error unless the runtime decodes `codec`, the forced packing's.
    pub(crate) fn require(&self, codec: Codec, packing: &str) -> Result<(), Error> {
        if self.decodes(codec) {
            return Ok(());
        }
        let feature = match codec {
            // A runtime that lacks codec 5 predates relative ids: no feature of it helps.
            Codec::SpirvRelativeIdsLz4 if !self.decodes(Codec::SpirvRelativeIds) => {
                return Err(newer_runtime(packing));
            }
            Codec::SmolvLz4 | Codec::SpirvRelativeIdsLz4 => "lz4",
            Codec::SmolvZstd | Codec::SmolvZstdDictionary => "zstd",
            // Every smolv-runtime that knows these decodes them.
            Codec::Spirv | Codec::SpirvRelativeIds | Codec::Smolv => return Err(newer_runtime(packing)),
        };
        Err(Error::Config(format!(
            "packing {packing} needs smolv-runtime's `{feature}` feature, which this crate's smolv-runtime \
             dependency does not enable: enable it, or choose another packing (Config::packing, SMOLV_PACKING)"
        )))
    }

    /// The value for cache keys.
    pub(crate) fn identity(&self) -> String {
        format!(
            "{:?} fast={}",
            self.codecs.as_ref().map(|c| c.iter().map(|c| c.name()).collect::<Vec<_>>()),
            self.zstd_fast
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from(codecs: Option<&str>, zstd: Option<&str>) -> RuntimeCodecs {
        RuntimeCodecs::from_env(|name| match name {
            "DEP_SMOLV_RUNTIME_CODECS" => codecs.map(str::to_owned),
            "DEP_SMOLV_RUNTIME_ZSTD" => zstd.map(str::to_owned),
            _ => None,
        })
    }

    #[test]
    fn unknown_runtimes_allow_everything_and_known_ones_only_their_codecs() {
        let unknown = from(None, None);
        assert!(Codec::ALL.iter().all(|&c| unknown.decodes(c)));
        let lean = from(Some("spirv,smolv,smolv-lz4"), None);
        assert!(lean.decodes(Codec::SmolvLz4) && !lean.decodes(Codec::SmolvZstd));
        let error = lean.require(Codec::SmolvZstdDictionary, "zstd-dictionary").unwrap_err().to_string();
        assert!(error.contains("`zstd` feature"), "{error}");
        assert!(
            from(Some("spirv,smolv"), None).require(Codec::SmolvLz4, "lz4").unwrap_err().to_string().contains("`lz4`")
        );
        assert!(from(Some("spirv,smolv,smolv-zstd"), Some("fast")).zstd_fast);
        // A runtime from before relative ids, with its `lz4` feature on.
        let older = from(Some("spirv,smolv,smolv-lz4"), None).require(Codec::SpirvRelativeIdsLz4, "relative-ids-lz4");
        assert!(older.unwrap_err().to_string().contains("newer smolv-runtime"));
        // …and with it off: turning it on would not help.
        let older = from(Some("spirv,smolv"), None).require(Codec::SpirvRelativeIdsLz4, "relative-ids-lz4");
        assert!(older.unwrap_err().to_string().contains("newer smolv-runtime"));
        // A current runtime without `lz4`.
        let lean = from(Some("spirv,spirv-relative-ids,smolv"), None);
        let error = lean.require(Codec::SpirvRelativeIdsLz4, "relative-ids-lz4").unwrap_err().to_string();
        assert!(error.contains("`lz4` feature"), "{error}");
        assert!(!from(Some("spirv,smolv,smolv-zstd"), Some("thin")).zstd_fast);
    }

    fn wgpu(value: Option<&str>) -> RuntimeCodecs {
        RuntimeCodecs::from_env(|name| (name == "DEP_SMOLV_RUNTIME_WGPU").then(|| value.map(str::to_owned)).flatten())
    }

    #[test]
    fn only_a_runtime_known_to_lack_wgpu_spirv_warns_about_spirv_for_wgpu() {
        assert!(wgpu(None).wgpu_takes_spirv() && wgpu(Some("spirv")).wgpu_takes_spirv());
        assert_eq!(wgpu(None).wgpu_spirv_warning(&["a.frag"]), None, "unknown: no word");
        assert_eq!(wgpu(Some("spirv")).wgpu_spirv_warning(&["a.frag"]), None);
        assert_eq!(wgpu(Some("wgsl")).wgpu_spirv_warning(&[]), None, "nothing ships SPIR-V");
        assert!(!wgpu(Some("wgsl")).wgpu_takes_spirv());
        // No wgpu layer: the game hands wgpu its shaders itself.
        assert!(wgpu(Some("none")).wgpu_takes_spirv());
        assert_eq!(wgpu(Some("none")).wgpu_spirv_warning(&["a.frag"]), None);
        let one = wgpu(Some("wgsl")).wgpu_spirv_warning(&["combined.frag"]).unwrap();
        assert!(one.starts_with("combined.frag ships as SPIR-V for wgpu (naga cannot express it as WGSL)"), "{one}");
        assert!(one.contains("refuses it: add the feature"), "{one}");
        let names = ["a", "b", "c", "d", "e", "f"];
        let many = wgpu(Some("wgsl")).wgpu_spirv_warning(&names).unwrap();
        assert!(many.starts_with("6 modules (a, b, c, d and 2 more) ship as SPIR-V for wgpu"), "{many}");
        assert!(many.contains(r#"features = ["wgpu", "wgpu-spirv"]"#), "{many}");
    }
}
