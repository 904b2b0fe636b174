//! [`ShaderError`]: its cause is a trait object, so a binary whose shaders cannot
//! fail to decode (raw SPIR-V) links none of the causes' messages.

use core::fmt;

use crate::reflect::ReflectionError;
use smolv_codec::container::ContainerError;
use smolv_codec::relative_ids::RelativeIdsError;
use smolv_codec::smolv::DecodeError;

/// Why a shader, embedded or loaded, could not be decoded or reflected.
///
/// Embedded shaders fail only if the binary was damaged; a loaded container can also
/// fail for what its file holds ([`ContainerError`], its [`source`](std::error::Error::source)).
///
/// ```
/// use smolv_runtime::{DecodeOptions, ShaderErrorKind};
/// # let (_, set) = smolv_runtime::shader::doc_example_set();
/// let blur = set.get("blur.comp")?;
/// let mut words = Vec::new();
/// let error = blur.decode_with(&DecodeOptions::new().max_decoded_len(16), &mut words).unwrap_err();
/// assert_eq!(error.kind(), ShaderErrorKind::TooLarge);
/// println!("{error}"); // names the limit and how to raise it
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ShaderError {
    cause: Box<dyn Cause>,
}

/// What kind of failure a [`ShaderError`] is.
///
/// ```
/// use smolv_runtime::ShaderErrorKind;
/// assert_ne!(ShaderErrorKind::HashMismatch, ShaderErrorKind::Corrupt);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ShaderErrorKind {
    /// The stored data is inconsistent: a damaged binary or file.
    Corrupt,
    /// The decoded SPIR-V does not have the hash recorded at build time.
    HashMismatch,
    /// The shader declares more SPIR-V than [`DecodeOptions::max_decoded_len`](crate::DecodeOptions::max_decoded_len).
    TooLarge,
    /// A loaded container needs a zstd dictionary that was not given.
    WrongDictionary,
    /// The reflection data (stored, or read from the SPIR-V) is invalid.
    Reflection,
    /// The build shipped this shader as WGSL, without SPIR-V: see [`Shader::wgsl`](crate::Shader::wgsl).
    ShippedAsWgsl,
}

/// A cause of a [`ShaderError`].
trait Cause: fmt::Display + Send + Sync + 'static {
    fn kind(&self) -> ShaderErrorKind;

    #[inline]
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        None
    }
}

/// Why a shader did not decode or reflect, when no container error is behind it.
#[derive(Debug)]
pub(crate) enum Failure {
    /// A table or the data of an embedded set is inconsistent.
    Corrupt(&'static str),
    /// The declared SPIR-V is over the caller's limit.
    TooLarge { declared: usize, limit: usize },
    /// The decoded words do not hash to the recorded check.
    HashMismatch,
}

// Written out and inline, as all that embedded decoding reaches (`embed`).
impl fmt::Display for Failure {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Corrupt(reason) => {
                write!(f, "embedded shader is corrupt: {reason}; the binary was damaged after it was built, rebuild it")
            }
            Self::TooLarge { declared, limit } => write!(
                f,
                "shader declares {declared} bytes of SPIR-V, over the limit of {limit} bytes; raise \
                 DecodeOptions::max_decoded_len if shaders are expected to be this large"
            ),
            Self::HashMismatch => f.write_str(
                "embedded shader does not match the hash recorded at build time; the binary was damaged after \
                 it was built, rebuild it",
            ),
        }
    }
}

/// Asking a shader shipped as WGSL for SPIR-V.
#[derive(Debug)]
pub(crate) struct ShippedAsWgsl;

impl fmt::Display for ShippedAsWgsl {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "this shader was shipped as WGSL for wgpu and has no SPIR-V in the binary: take its text from \
             Shader::wgsl, or build with Config::for_wgpu_shipping(false) (SPIR-V) instead of Config::for_wgpu",
        )
    }
}

/// Each cause is a type of its own, so its messages are linked only where it can happen;
/// one marked `source` is the error behind the `ShaderError`.
macro_rules! causes {
    ($($type:ty => |$cause:ident| $kind:expr $(, $source:ident)?;)*) => {$(
        impl Cause for $type {
            #[inline]
            fn kind(&self) -> ShaderErrorKind {
                let $cause = self;
                $kind
            }

            $(#[inline]
            fn $source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(self)
            })?
        }

        impl From<$type> for ShaderError {
            #[inline]
            fn from(cause: $type) -> Self {
                Self { cause: Box::new(cause) }
            }
        }
    )*};
}

causes! {
    Failure => |failure| match failure {
        Failure::Corrupt(_) => ShaderErrorKind::Corrupt,
        Failure::TooLarge { .. } => ShaderErrorKind::TooLarge,
        Failure::HashMismatch => ShaderErrorKind::HashMismatch,
    };
    ShippedAsWgsl => |_shipped| ShaderErrorKind::ShippedAsWgsl;
    DecodeError => |_error| ShaderErrorKind::Corrupt, source;
    RelativeIdsError => |_error| ShaderErrorKind::Corrupt, source;
    ReflectionError => |_error| ShaderErrorKind::Reflection, source;
    ContainerError => |error| match error {
        ContainerError::HashMismatch => ShaderErrorKind::HashMismatch,
        ContainerError::TooLarge { .. } => ShaderErrorKind::TooLarge,
        ContainerError::DictionaryMismatch { .. } => ShaderErrorKind::WrongDictionary,
        ContainerError::Reflection(_) => ShaderErrorKind::Reflection,
        _ => ShaderErrorKind::Corrupt,
    }, source;
}

impl ShaderError {
    /// What kind of failure this is.
    ///
    /// ```
    /// # use smolv_runtime::{DecodeOptions, ShaderErrorKind};
    /// # let (spirv, set) = smolv_runtime::shader::doc_example_set();
    /// let limit = DecodeOptions::new().max_decoded_len(16);
    /// let error = set.get("blur.comp")?.decode_with(&limit, &mut Vec::new()).unwrap_err();
    /// assert_eq!(error.kind(), ShaderErrorKind::TooLarge);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn kind(&self) -> ShaderErrorKind {
        self.cause.kind()
    }

    /// The container error behind this one, for a loaded shader.
    ///
    /// ```
    /// # use smolv_runtime::{DecodeOptions, container::ContainerError};
    /// # let (_, set) = smolv_runtime::shader::doc_example_set();
    /// let limit = DecodeOptions::new().max_decoded_len(16);
    /// let error = set.get("blur.comp")?.decode_with(&limit, &mut Vec::new()).unwrap_err();
    /// assert!(matches!(error.container_error(), Some(ContainerError::TooLarge { .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn container_error(&self) -> Option<&ContainerError> {
        self.cause.source()?.downcast_ref()
    }
}

/// The cause's message, as `Display` prints it (the vtables carry no `Debug` code).
impl fmt::Debug for ShaderError {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.cause, f)
    }
}

impl fmt::Display for ShaderError {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.cause, f)
    }
}

impl std::error::Error for ShaderError {
    #[inline]
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.cause.source()
    }
}
