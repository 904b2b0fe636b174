//! WGSL for wgpu targets (`Config::for_wgpu`): translated, packed as one stream, weighed against SPIR-V.

mod choose;
mod stream;
mod translations;

pub(crate) use choose::{WgpuChoice, WgpuPath, choose};
pub(crate) use stream::{PackedWgsl, pack_texts};
pub(crate) use translations::{Translated, translate_modules};
