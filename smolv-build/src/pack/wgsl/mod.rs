//! WGSL for wgpu targets (`Config::for_wgpu`): each module's SPIR-V
//! translated to minified WGSL by the compile stage's `translate` (in
//! workers, cached here: `translations`), the texts packed as one stream
//! (`stream`), and the choice between shipping that or SPIR-V, front ends
//! included (`choose`, with the cost table in `packing::cost`).

mod choose;
mod stream;
mod translations;

pub(crate) use choose::{WgpuChoice, WgpuPath, choose};
pub(crate) use stream::{PackedWgsl, pack_texts};
pub(crate) use translations::{Translated, translate_modules};
