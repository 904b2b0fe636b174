//! How the embedded set is packed, and what packing makes smallest.

pub use smolv_format::Framing;

/// How the embedded set is packed (see [`Config::packing`](crate::Config::packing)).
///
/// The names in parentheses are what `SMOLV_PACKING` and `--packing` take.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Packing {
    /// (`auto`) The smallest total of stored bytes and decoder for the [`SizeGoal`]. The default.
    ///
    /// ```
    /// smolv_build::Config::new().packing(smolv_build::Packing::Auto);
    /// ```
    #[default]
    Auto,
    /// (`raw`) Plain SPIR-V, served zero-copy: no decoder at all.
    ///
    /// ```
    /// smolv_build::Config::new().packing(smolv_build::Packing::Raw);
    /// ```
    Raw,
    /// (`relative-ids`) SPIR-V with relative ids ([`smolv_codec::relative_ids`]): raw's size installed,
    /// smaller after `xz -9`, for a small decoder.
    ///
    /// ```
    /// smolv_build::Config::new().packing(smolv_build::Packing::RelativeIds);
    /// ```
    RelativeIds,
    /// (`relative-ids-lz4`, `relative-ids-lz4-stream`) SPIR-V with relative ids + LZ4 (HC 12).
    ///
    /// ```
    /// use smolv_build::{Config, Framing, Packing};
    /// Config::new().packing(Packing::RelativeIdsLz4 { framing: Framing::Stream });
    /// ```
    RelativeIdsLz4 {
        /// Per module, or one stream.
        framing: Framing,
    },
    /// (`smolv`) SMOL-V, uncompressed: the SMOL-V decoder only.
    ///
    /// ```
    /// smolv_build::Config::new().packing(smolv_build::Packing::Smolv);
    /// ```
    Smolv,
    /// (`lz4`, `lz4-stream`) SMOL-V + LZ4 (HC 12): the usual winner for installed size.
    ///
    /// ```
    /// use smolv_build::{Config, Framing, Packing};
    /// Config::new().packing(Packing::Lz4 { framing: Framing::Stream });
    /// ```
    Lz4 {
        /// Per module, or one stream.
        framing: Framing,
    },
    /// (`zstd`, `zstd-stream`) SMOL-V + zstd at [`Config::zstd_level`](crate::Config::zstd_level).
    ///
    /// ```
    /// use smolv_build::{Config, Framing, Packing};
    /// Config::new().packing(Packing::Zstd { framing: Framing::PerModule });
    /// ```
    Zstd {
        /// Per module, or one stream.
        framing: Framing,
    },
    /// (`zstd-dictionary`) SMOL-V + zstd per module with a [trained dictionary](crate::Config::dictionary);
    /// needs two or more modules.
    ///
    /// ```
    /// smolv_build::Config::new().packing(smolv_build::Packing::ZstdDictionary);
    /// ```
    ZstdDictionary,
}

named!(
    /// Every packing, in [`Packing::NAMES`] order.
    ALL,
    /// The name [`Packing::parse`] reads.
    ///
    /// ```
    /// use smolv_build::{Framing, Packing};
    /// assert_eq!(Packing::Lz4 { framing: Framing::Stream }.name(), "lz4-stream");
    /// ```
    pub name,
    Packing {
        Auto => "auto",
        Raw => "raw",
        RelativeIds => "relative-ids",
        RelativeIdsLz4 { framing: Framing::PerModule } => "relative-ids-lz4",
        RelativeIdsLz4 { framing: Framing::Stream } => "relative-ids-lz4-stream",
        Smolv => "smolv",
        Lz4 { framing: Framing::PerModule } => "lz4",
        Lz4 { framing: Framing::Stream } => "lz4-stream",
        Zstd { framing: Framing::PerModule } => "zstd",
        Zstd { framing: Framing::Stream } => "zstd-stream",
        ZstdDictionary => "zstd-dictionary",
    }
);

impl Packing {
    /// Every name [`Packing::parse`] takes.
    pub const NAMES: &'static [&'static str] = &{
        let mut names = [""; Self::ALL.len()];
        let mut i = 0;
        while i < names.len() {
            names[i] = Self::ALL[i].name();
            i += 1;
        }
        names
    };

    /// Parses one of [`Packing::NAMES`].
    ///
    /// ```
    /// use smolv_build::{Framing, Packing};
    /// assert_eq!(Packing::parse("lz4-stream"), Some(Packing::Lz4 { framing: Framing::Stream }));
    /// assert_eq!(Packing::parse("brotli"), None);
    /// ```
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|packing| packing.name() == text)
    }
}

/// What [`Packing::Auto`] makes smallest (see [`Config::size_goal`](crate::Config::size_goal)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SizeGoal {
    /// (`installed`) The binary as installed. The default.
    #[default]
    Installed,
    /// (`download`) The binary after `xz -9`, for stores and installers that compress it; usually picks
    /// [`Packing::RelativeIds`].
    Download,
}

named!(ALL,
    /// The name [`SizeGoal::parse`] reads.
    ///
    /// ```
    /// assert_eq!(smolv_build::SizeGoal::Download.name(), "download");
    /// ```
    pub name,
    SizeGoal {
        Installed => "installed",
        Download => "download",
    }
);

impl SizeGoal {
    /// Parses `installed` or `download`.
    ///
    /// ```
    /// assert_eq!(smolv_build::SizeGoal::parse("download"), Some(smolv_build::SizeGoal::Download));
    /// ```
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|goal| goal.name() == text)
    }
}
