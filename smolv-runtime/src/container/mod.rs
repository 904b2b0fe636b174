//! Shader containers and bundles: how smolv ships shaders.
//!
//! A **container** (`SMVC`) holds one shader: its payload (raw SPIR-V,
//! SMOL-V, or SMOL-V compressed with zstd, optionally with a shared
//! dictionary), the decoded size, a blake3 hash of the decoded SPIR-V, and
//! its [`Reflection`](crate::reflect::Reflection).
//!
//! A **bundle** (`SMVB`) holds many containers, one shared zstd dictionary
//! and a name index. `include_shaders!` embeds one, and games can ship
//! them as asset files. `docs/format.md` gives the byte layout of both.
//!
//! ```
//! use smolv_runtime::container::{Codec, Container, ContainerBuilder};
//! use smolv_runtime::reflect::{Reflection, ShaderStage};
//!
//! # let spirv = smolv_runtime::doc_example_module();
//! let reflection = Reflection::new(ShaderStage::Compute, "main");
//! let bytes = ContainerBuilder::new(&spirv, &reflection).codec(Codec::SmolvZstd).build()?;
//! let container = Container::parse(&bytes)?;
//! assert_eq!(container.reflection()?, reflection);
//! assert_eq!(container.decode()?, spirv);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod bundle;
mod error;
mod format;
mod payload;

pub(crate) use bundle::suggest;
pub use bundle::{Bundle, BundleBuilder, BundleEntry};
pub use error::ContainerError;
pub use format::{Codec, Container, ContentHash};
pub use payload::{ContainerBuilder, DecodeSettings, Dictionary, assemble, compress};
