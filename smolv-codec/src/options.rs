//! The checks and limits every decoder applies.

/// The default limit on decoded SPIR-V: far above any real module.
const DEFAULT_MAX_DECODED_LEN: usize = 256 << 20;

/// Options for [`decode`](crate::decode) and [`Container::decode_with`](crate::container::Container::decode_with).
///
/// ```
/// use smolv_codec::DecodeOptions;
///
/// // Unity 2017-2020 shipped SMOL-V in the 2016-08-31 dialect.
/// let unity = DecodeOptions::new().legacy_2016_08_31(true);
/// // Refuse anything that would decode to more than 1 MiB.
/// let bounded = DecodeOptions::new().max_decoded_len(1 << 20);
/// assert!(bounded.verifies_hash(), "the hash check stays on");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct DecodeOptions {
    verify_hash: bool,
    max_decoded_len: usize,
    legacy_2016_08_31: bool,
}

impl Default for DecodeOptions {
    #[inline]
    fn default() -> Self {
        Self::new()
    }
}

impl DecodeOptions {
    /// The defaults: hash checked, at most 256 MiB of SPIR-V, the current dialect.
    ///
    /// ```
    /// use smolv_codec::{decode, encode, DecodeOptions, EncodeOptions};
    /// # let spirv = smolv_codec::doc_example_module();
    /// let smolv = encode(&spirv[..], &EncodeOptions::new())?;
    /// assert_eq!(decode(&smolv, &DecodeOptions::new())?, spirv);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub const fn new() -> Self {
        Self { verify_hash: true, max_decoded_len: DEFAULT_MAX_DECODED_LEN, legacy_2016_08_31: false }
    }

    /// Whether to check the decoded SPIR-V against the hash recorded at build time.
    ///
    /// ```
    /// let trusting = smolv_codec::DecodeOptions::new().verify_hash(false);
    /// assert!(!trusting.verifies_hash());
    /// ```
    #[inline]
    #[must_use]
    pub const fn verify_hash(mut self, verify: bool) -> Self {
        self.verify_hash = verify;
        self
    }

    /// Refuses data that declares more than `max` bytes of SPIR-V (default 256 MiB).
    ///
    /// ```
    /// use smolv_codec::{decode, encode, DecodeOptions, EncodeOptions};
    /// # let spirv = smolv_codec::doc_example_module();
    /// let smolv = encode(&spirv[..], &EncodeOptions::new())?;
    /// let too_small = DecodeOptions::new().max_decoded_len(16);
    /// assert!(decode(&smolv, &too_small).is_err(), "refused before allocating");
    /// assert!(decode(&smolv, &DecodeOptions::new().max_decoded_len(1 << 20)).is_ok());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    #[must_use]
    pub const fn max_decoded_len(mut self, max: usize) -> Self {
        self.max_decoded_len = max;
        self
    }

    /// Reads SMOL-V version 0 in the (undetectable) dialect of the 2016-08-31 encoder, as Unity 2017–2020 wrote.
    ///
    /// ```no_run
    /// use smolv_codec::{decode, DecodeOptions};
    /// let unity = std::fs::read("unity-2019.smolv")?;
    /// let words = decode(&unity, &DecodeOptions::new().legacy_2016_08_31(true))?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    #[must_use]
    pub const fn legacy_2016_08_31(mut self, legacy: bool) -> Self {
        self.legacy_2016_08_31 = legacy;
        self
    }

    /// Whether the recorded hash is checked.
    ///
    /// ```
    /// assert!(smolv_codec::DecodeOptions::new().verifies_hash());
    /// ```
    #[inline]
    pub const fn verifies_hash(&self) -> bool {
        self.verify_hash
    }

    /// The most bytes of SPIR-V a decode may produce.
    ///
    /// ```
    /// assert_eq!(smolv_codec::DecodeOptions::new().decoded_len_limit(), 256 << 20);
    /// ```
    #[inline]
    pub const fn decoded_len_limit(&self) -> usize {
        self.max_decoded_len
    }

    /// Whether SMOL-V version 0 is read in the 2016-08-31 dialect.
    ///
    /// ```
    /// assert!(!smolv_codec::DecodeOptions::new().reads_legacy_2016_08_31());
    /// ```
    #[inline]
    pub const fn reads_legacy_2016_08_31(&self) -> bool {
        self.legacy_2016_08_31
    }
}
