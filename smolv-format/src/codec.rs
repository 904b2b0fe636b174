//! How an embedded set stores its modules: its [`Codec`] and [`Framing`].

/// How an embedded set stores one module's bytes: the directory's codec byte and the name tools use.
///
/// ```
/// use smolv_format::Codec;
/// for codec in Codec::ALL {
///     assert_eq!(Codec::parse(codec.name()), Some(codec));
///     assert_eq!(Codec::from_byte(codec.byte()), Some(codec));
/// }
/// assert_eq!(Codec::parse("brotli"), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Codec {
    /// (`spirv`, byte 0) Raw SPIR-V, served zero-copy.
    Spirv,
    /// (`spirv-relative-ids`, byte 5) SPIR-V with relative ids, which compresses again.
    SpirvRelativeIds,
    /// (`spirv-relative-ids-lz4`, byte 6) SPIR-V with relative ids + LZ4 blocks.
    SpirvRelativeIdsLz4,
    /// (`smolv`, byte 1) SMOL-V, stored as is.
    Smolv,
    /// (`smolv-lz4`, byte 2) SMOL-V + LZ4 blocks.
    SmolvLz4,
    /// (`smolv-zstd`, byte 3) SMOL-V + zstd frames.
    SmolvZstd,
    /// (`smolv-zstd-dictionary`, byte 4) SMOL-V + zstd frames with a shared dictionary.
    SmolvZstdDictionary,
}

impl Codec {
    /// Every codec, simplest decoder first: the order of [`Codec::NAMES`].
    ///
    /// ```
    /// assert_eq!(smolv_format::Codec::ALL[0], smolv_format::Codec::Spirv);
    /// ```
    pub const ALL: [Codec; 7] = [
        Self::Spirv,
        Self::SpirvRelativeIds,
        Self::SpirvRelativeIdsLz4,
        Self::Smolv,
        Self::SmolvLz4,
        Self::SmolvZstd,
        Self::SmolvZstdDictionary,
    ];

    /// Every name [`Codec::parse`] takes, in [`Codec::ALL`] order.
    ///
    /// ```
    /// assert!(smolv_format::Codec::NAMES.contains(&"smolv-zstd-dictionary"));
    /// ```
    pub const NAMES: [&'static str; 7] = [
        "spirv",
        "spirv-relative-ids",
        "spirv-relative-ids-lz4",
        "smolv",
        "smolv-lz4",
        "smolv-zstd",
        "smolv-zstd-dictionary",
    ];

    /// The codec byte of the embedded set's directory.
    ///
    /// ```
    /// assert_eq!(smolv_format::Codec::SmolvZstd.byte(), 3);
    /// ```
    pub const fn byte(self) -> u8 {
        // In `ALL` order: spirv, spirv-relative-ids(-lz4), smolv, smolv-lz4, smolv-zstd(-dictionary).
        [0, 5, 6, 1, 2, 3, 4][self as usize]
    }

    /// The codec of a directory's codec byte; `None` for a byte no codec has.
    ///
    /// ```
    /// use smolv_format::Codec;
    /// assert_eq!(Codec::from_byte(6), Some(Codec::SpirvRelativeIdsLz4));
    /// assert_eq!(Codec::from_byte(7), None);
    /// ```
    pub const fn from_byte(byte: u8) -> Option<Self> {
        let mut i = 0;
        while i < Self::ALL.len() {
            if Self::ALL[i].byte() == byte {
                return Some(Self::ALL[i]);
            }
            i += 1;
        }
        None
    }

    /// Its name in the manifest and the report.
    ///
    /// ```
    /// assert_eq!(smolv_format::Codec::SpirvRelativeIds.name(), "spirv-relative-ids");
    /// ```
    pub const fn name(self) -> &'static str {
        // The variants are declared in `ALL` (and so `NAMES`) order.
        Self::NAMES[self as usize]
    }

    /// The codec [`Codec::name`] gives `name`; `None` for any other text.
    ///
    /// ```
    /// use smolv_format::Codec;
    /// assert_eq!(Codec::parse("smolv"), Some(Codec::Smolv));
    /// assert_eq!(Codec::parse("SMOLV"), None, "names are exact");
    /// ```
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|codec| codec.name() == name)
    }

    /// Whether it stores SPIR-V with relative ids (compressed or not).
    ///
    /// ```
    /// use smolv_format::Codec;
    /// assert!(Codec::SpirvRelativeIdsLz4.relative_ids() && !Codec::SmolvLz4.relative_ids());
    /// ```
    pub const fn relative_ids(self) -> bool {
        matches!(self, Self::SpirvRelativeIds | Self::SpirvRelativeIdsLz4)
    }

    /// Whether a module unpacks to SPIR-V (raw, or with relative ids), not SMOL-V.
    ///
    /// ```
    /// use smolv_format::Codec;
    /// assert!(Codec::Spirv.unpacks_to_spirv() && !Codec::SmolvZstd.unpacks_to_spirv());
    /// ```
    pub const fn unpacks_to_spirv(self) -> bool {
        matches!(self, Self::Spirv | Self::SpirvRelativeIds | Self::SpirvRelativeIdsLz4)
    }
}

impl core::fmt::Display for Codec {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// Whether an embedded set's modules are compressed one by one or as one stream.
///
/// ```
/// use smolv_format::Framing;
/// assert_eq!(Framing::default(), Framing::PerModule);
/// assert_eq!(Framing::Stream.name(), "stream");
/// assert_eq!(Framing::from_byte(Framing::Stream.byte()), Some(Framing::Stream));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Framing {
    /// (`module`, byte 0) Each module packed alone. The default.
    #[default]
    PerModule,
    /// (`stream`, byte 1) Every module packed as one stream, unpacked on first decode.
    Stream,
}

impl Framing {
    /// Every name [`Framing::parse`] takes.
    ///
    /// ```
    /// assert_eq!(smolv_format::Framing::NAMES, ["module", "stream"]);
    /// ```
    pub const NAMES: [&'static str; 2] = ["module", "stream"];

    /// Its name in the manifest and the report: `module` or `stream`.
    ///
    /// ```
    /// assert_eq!(smolv_format::Framing::PerModule.name(), "module");
    /// ```
    pub const fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// The framing [`Framing::name`] gives `name`.
    ///
    /// ```
    /// use smolv_format::Framing;
    /// assert_eq!(Framing::parse("module"), Some(Framing::PerModule));
    /// assert_eq!(Framing::parse("per-module"), None);
    /// ```
    pub fn parse(name: &str) -> Option<Self> {
        [Self::PerModule, Self::Stream].into_iter().find(|framing| framing.name() == name)
    }

    /// The layout byte of the embedded set's directory.
    ///
    /// ```
    /// assert_eq!(smolv_format::Framing::Stream.byte(), 1);
    /// ```
    pub const fn byte(self) -> u8 {
        self as u8
    }

    /// The framing of a directory's layout byte.
    ///
    /// ```
    /// assert_eq!(smolv_format::Framing::from_byte(2), None);
    /// ```
    pub const fn from_byte(byte: u8) -> Option<Self> {
        match byte {
            0 => Some(Self::PerModule),
            1 => Some(Self::Stream),
            _ => None,
        }
    }
}

impl core::fmt::Display for Framing {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// Both (de)serialize as their names.
#[cfg(feature = "serde")]
mod names {
    use super::{Codec, Framing};

    macro_rules! by_name {
        ($ty:ty, $what:literal) => {
            impl serde::Serialize for $ty {
                fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                    serializer.serialize_str(self.name())
                }
            }

            impl<'de> serde::Deserialize<'de> for $ty {
                fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                    struct Name;
                    impl serde::de::Visitor<'_> for Name {
                        type Value = $ty;
                        fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                            f.write_str($what)
                        }
                        fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<$ty, E> {
                            <$ty>::parse(name).ok_or_else(|| E::unknown_variant(name, &<$ty>::NAMES))
                        }
                    }
                    deserializer.deserialize_str(Name)
                }
            }
        };
    }

    by_name!(Codec, "a codec name");
    by_name!(Framing, "a framing name (`module` or `stream`)");
}

#[cfg(all(test, feature = "serde", feature = "std"))]
mod tests {
    use super::*;

    #[test]
    fn codecs_and_framings_serialize_as_their_names() {
        for codec in Codec::ALL {
            let json = serde_json::to_string(&codec).unwrap();
            assert_eq!(json, format!("\"{}\"", codec.name()));
            assert_eq!(serde_json::from_str::<Codec>(&json).unwrap(), codec);
        }
        assert_eq!(serde_json::to_string(&Framing::Stream).unwrap(), "\"stream\"");
        let error = serde_json::from_str::<Codec>("\"brotli\"").unwrap_err().to_string();
        assert!(error.contains("brotli") && error.contains("smolv-lz4"), "{error}");
    }

    #[test]
    fn names_are_in_all_order() {
        assert_eq!(Codec::ALL.map(Codec::name), Codec::NAMES);
        for byte in 0..=u8::MAX {
            assert_eq!(Codec::from_byte(byte).map(Codec::byte), Codec::from_byte(byte).map(|_| byte));
        }
    }
}
