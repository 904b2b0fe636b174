//! What decoding a shader returns when it fails: [`ShaderError`].
//!
//! The error is a box around its cause, behind a trait object. A program
//! that prints one (`expect`, `{:?}`) calls through the cause's vtable,
//! and only code that can fail makes a vtable. So a binary whose shaders
//! cannot fail to decode (raw SPIR-V) links none of the causes' messages:
//! that is part of the promise that small sets never grow a binary.

use core::fmt;

use crate::reflect::ReflectionError;
use smolv_codec::container::ContainerError;
use smolv_codec::relative_ids::RelativeIdsError;
use smolv_codec::smolv::DecodeError;

/// Why a shader, embedded or loaded, could not be decoded or reflected.
///
/// Embedded shaders fail only if the binary was damaged after it was
/// built; a loaded container can also fail for what its file holds
/// ([`ContainerError`], its [`source`](std::error::Error::source)).
///
/// ```
/// use smolv_runtime::container::{BundleBuilder, ContainerBuilder};
/// use smolv_runtime::reflect::{Reflection, ShaderStage};
/// use smolv_runtime::{DecodeOptions, ShaderErrorKind, ShaderSet};
/// # let spirv = smolv_runtime::doc_example_module();
/// # let container = ContainerBuilder::new(&spirv, &Reflection::new(ShaderStage::Compute, "main")).build()?;
/// # let set = ShaderSet::from_vec(BundleBuilder::new().add("blur.comp", container).build()?)?;
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
    /// The shader declares more SPIR-V than
    /// [`DecodeOptions::max_decoded_len`](crate::DecodeOptions::max_decoded_len)
    /// allows.
    TooLarge,
    /// A loaded container needs a zstd dictionary that was not given.
    WrongDictionary,
    /// The reflection data (stored, or read from the SPIR-V) is invalid.
    Reflection,
    /// The build shipped this shader as WGSL for wgpu, so the binary holds
    /// no SPIR-V of it: [`Shader::wgsl`](crate::Shader::wgsl) gives its
    /// text.
    ShippedAsWgsl,
}

/// A cause of a [`ShaderError`]: the decoders' own failures, or
/// a container's.
trait Cause: fmt::Display + Send + Sync + 'static {
    fn kind(&self) -> ShaderErrorKind;
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)>;
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

// Written out and inline, as everything an embedded set's decoding reaches:
// code compiled into the binary that embeds the set, which so links none
// of this crate's object files (and their unwinding tables).
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

impl Cause for Failure {
    #[inline]
    fn kind(&self) -> ShaderErrorKind {
        match self {
            Self::Corrupt(_) => ShaderErrorKind::Corrupt,
            Self::TooLarge { .. } => ShaderErrorKind::TooLarge,
            Self::HashMismatch => ShaderErrorKind::HashMismatch,
        }
    }

    #[inline]
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        None
    }
}

/// Each decoder's own error is a cause of its own type, so that its
/// messages are linked only where that decoder is.
macro_rules! own_cause {
    ($type:ty, $kind:ident) => {
        impl Cause for $type {
            #[inline]
            fn kind(&self) -> ShaderErrorKind {
                ShaderErrorKind::$kind
            }

            #[inline]
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(self)
            }
        }

        impl From<$type> for ShaderError {
            #[inline]
            fn from(cause: $type) -> Self {
                Self { cause: Box::new(cause) }
            }
        }
    };
}

/// Asking a shader that the build shipped as WGSL for SPIR-V: a cause of
/// its own, so that only binaries with WGSL shaders link its message.
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

impl Cause for ShippedAsWgsl {
    #[inline]
    fn kind(&self) -> ShaderErrorKind {
        ShaderErrorKind::ShippedAsWgsl
    }

    #[inline]
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        None
    }
}

impl From<ShippedAsWgsl> for ShaderError {
    #[inline]
    fn from(cause: ShippedAsWgsl) -> Self {
        Self { cause: Box::new(cause) }
    }
}

own_cause!(DecodeError, Corrupt);
own_cause!(RelativeIdsError, Corrupt);
own_cause!(ReflectionError, Reflection);

impl Cause for ContainerError {
    #[inline]
    fn kind(&self) -> ShaderErrorKind {
        match self {
            Self::HashMismatch => ShaderErrorKind::HashMismatch,
            Self::TooLarge { .. } => ShaderErrorKind::TooLarge,
            Self::DictionaryMismatch { .. } => ShaderErrorKind::WrongDictionary,
            Self::Reflection(_) => ShaderErrorKind::Reflection,
            _ => ShaderErrorKind::Corrupt,
        }
    }

    #[inline]
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(self)
    }
}

impl ShaderError {
    /// What kind of failure this is.
    ///
    /// ```
    /// # use smolv_runtime::container::{BundleBuilder, ContainerBuilder};
    /// # use smolv_runtime::reflect::{Reflection, ShaderStage};
    /// # use smolv_runtime::{DecodeOptions, ShaderErrorKind, ShaderSet};
    /// # let spirv = smolv_runtime::doc_example_module();
    /// # let container = ContainerBuilder::new(&spirv, &Reflection::new(ShaderStage::Compute, "main")).build()?;
    /// # let set = ShaderSet::from_vec(BundleBuilder::new().add("blur.comp", container).build()?)?;
    /// let limit = DecodeOptions::new().max_decoded_len(16);
    /// let error = set.get("blur.comp")?.decode_with(&limit, &mut Vec::new()).unwrap_err();
    /// assert_eq!(error.kind(), ShaderErrorKind::TooLarge);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn kind(&self) -> ShaderErrorKind {
        self.cause.kind()
    }

    /// The container error behind this one, for a shader loaded from a
    /// file.
    ///
    /// ```
    /// # use smolv_runtime::container::{BundleBuilder, ContainerBuilder, ContainerError};
    /// # use smolv_runtime::reflect::{Reflection, ShaderStage};
    /// # use smolv_runtime::{DecodeOptions, ShaderSet};
    /// # let spirv = smolv_runtime::doc_example_module();
    /// # let container = ContainerBuilder::new(&spirv, &Reflection::new(ShaderStage::Compute, "main")).build()?;
    /// # let set = ShaderSet::from_vec(BundleBuilder::new().add("blur.comp", container).build()?)?;
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

impl From<Failure> for ShaderError {
    #[inline]
    fn from(cause: Failure) -> Self {
        Self { cause: Box::new(cause) }
    }
}

impl From<ContainerError> for ShaderError {
    #[inline]
    fn from(cause: ContainerError) -> Self {
        Self { cause: Box::new(cause) }
    }
}

/// The cause's message, as `Display` prints it: a program that unwraps a
/// [`ShaderError`] (`expect`) prints what went wrong and what to do, and
/// the causes' vtables carry no `Debug` code besides.
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
