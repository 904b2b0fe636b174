//! The kinds of shader set: `ShaderSet`'s type parameter.

/// The kind of a [`ShaderSet`](super::ShaderSet): [`Packed`] or [`Raw`]. Sealed.
pub trait SetKind: sealed::Sealed {
    /// What a set of this kind holds. Not a stable API.
    #[doc(hidden)]
    type Source: core::fmt::Debug + Send + Sync + 'static;
}

mod sealed {
    pub trait Sealed {}
}

/// A [`ShaderSet`](super::ShaderSet) of any packing, embedded or loaded (the default).
#[derive(Debug)]
pub enum Packed {}

/// A [`ShaderSet`](super::ShaderSet) of raw SPIR-V ([`RawShader`](super::RawShader)s).
#[derive(Debug)]
pub enum Raw {}

impl sealed::Sealed for Packed {}
impl sealed::Sealed for Raw {}
