//! The kinds of shader set: `ShaderSet`'s type parameter.

/// The kind of a [`ShaderSet`](super::ShaderSet): [`Packed`] (any
/// packing, chosen when the crate was built and read at run time) or
/// [`Raw`] (raw SPIR-V, known at compile time). Sealed: smolv defines both.
pub trait SetKind: sealed::Sealed {
    /// What a set of this kind holds. Not a stable API.
    #[doc(hidden)]
    type Source: core::fmt::Debug + Send + Sync + 'static;
}

mod sealed {
    pub trait Sealed {}
}

/// A [`ShaderSet`](super::ShaderSet) of any packing, embedded or loaded:
/// what `ShaderSet` means on its own.
#[derive(Debug)]
pub enum Packed {}

/// A [`ShaderSet`](super::ShaderSet) of raw SPIR-V
/// ([`RawShader`](super::RawShader)s, which decode without fail).
#[derive(Debug)]
pub enum Raw {}

impl sealed::Sealed for Packed {}
impl sealed::Sealed for Raw {}
