//! What a build for wgpu ships as WGSL: the [`WgslCodec`] of its stream.

/// How the WGSL a build for wgpu shipped is stored: one stream of minified text.
///
/// ```
/// use smolv_format::WgslCodec;
/// for codec in WgslCodec::ALL {
///     assert_eq!(WgslCodec::parse(codec.name()), Some(codec));
/// }
/// assert_eq!(WgslCodec::WgslLz4.name(), "wgsl-lz4");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(rename_all = "kebab-case"))]
pub enum WgslCodec {
    /// (`wgsl`) The text as it is, served from the binary.
    Wgsl,
    /// (`wgsl-lz4`) One LZ4 block, unpacked on first use.
    WgslLz4,
    /// (`wgsl-zstd`) One zstd frame, unpacked on first use.
    WgslZstd,
}

impl WgslCodec {
    /// Every WGSL codec, simplest decoder first.
    pub const ALL: [WgslCodec; 3] = [Self::Wgsl, Self::WgslLz4, Self::WgslZstd];

    /// Its name in the manifest and the report.
    ///
    /// ```
    /// assert_eq!(smolv_format::WgslCodec::Wgsl.name(), "wgsl");
    /// ```
    pub const fn name(self) -> &'static str {
        ["wgsl", "wgsl-lz4", "wgsl-zstd"][self as usize]
    }

    /// The codec of a name; `None` for a name no codec has.
    ///
    /// ```
    /// assert_eq!(smolv_format::WgslCodec::parse("wgsl-zstd"), Some(smolv_format::WgslCodec::WgslZstd));
    /// assert_eq!(smolv_format::WgslCodec::parse("wgsl-brotli"), None);
    /// ```
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.name() == name)
    }
}

impl core::fmt::Display for WgslCodec {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}
