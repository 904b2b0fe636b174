//! The kinds of shader set: the type parameter of `ShaderSet`, which says
//! whether its packing is read at run time or known, as raw SPIR-V, when
//! the binary is compiled.

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

/// A [`ShaderSet`](super::ShaderSet) of any packing: an embedded set whose
/// packing the build chose, or a loaded bundle. What `ShaderSet` means on
/// its own.
#[derive(Debug)]
pub enum Packed {}

/// A [`ShaderSet`](super::ShaderSet) of raw SPIR-V, as
/// `include_shaders!(static NAME);` declares for a set that smolv-build
/// ships raw: its shaders are [`RawShader`](super::RawShader)s, which
/// decode without fail.
#[derive(Debug)]
pub enum Raw {}

impl sealed::Sealed for Packed {}
impl sealed::Sealed for Raw {}
