//! The shading languages the build compiles.

/// A shading language.
///
/// ```
/// use smolv_build::Language;
/// // As the JSON reports name it.
/// assert_eq!(serde_json::to_string(&Language::Wgsl)?, "\"wgsl\"");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    /// GLSL, compiled by glslang.
    Glsl,
    /// HLSL, compiled by glslang.
    Hlsl,
    /// WGSL, compiled by naga.
    Wgsl,
    /// Precompiled SPIR-V (`.spv`, `.spirv`), optimized and stripped like a compiled module; no defines.
    Spirv,
    /// Slang (`.slang`), compiled by `slangc`: one module per `[shader("…")]` entry point.
    Slang,
    /// WESL (`.wesl`), linked into WGSL by the `wesl` crate for naga: one module per entry point.
    Wesl,
}

named!(
    /// Every language.
    pub ALL,
    /// The lowercase name glslc's `-x` and the reports use: `glsl`, `hlsl`, `wgsl`, `spirv`, `slang`, `wesl`.
    pub name,
    Language {
        Glsl => "glsl",
        Hlsl => "hlsl",
        Wgsl => "wgsl",
        Spirv => "spirv",
        Slang => "slang",
        Wesl => "wesl",
    }
);

impl Language {
    /// Parses [`name`](Self::name), in any case.
    ///
    /// ```
    /// use smolv_build::Language;
    /// assert_eq!(Language::parse("HLSL"), Some(Language::Hlsl));
    /// assert_eq!(Language::parse("cg"), None);
    /// ```
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|language| language.name().eq_ignore_ascii_case(text.trim()))
    }

    /// Whether its compiler runs inside the build's process (glslang, naga, wesl), not as a child process.
    pub(crate) fn compiles_in_process(self) -> bool {
        matches!(self, Self::Glsl | Self::Hlsl | Self::Wgsl | Self::Wesl)
    }
}

impl std::fmt::Display for Language {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Glsl => "GLSL",
            Self::Hlsl => "HLSL",
            Self::Wgsl => "WGSL",
            Self::Spirv => "SPIR-V",
            Self::Slang => "Slang",
            Self::Wesl => "WESL",
        })
    }
}
