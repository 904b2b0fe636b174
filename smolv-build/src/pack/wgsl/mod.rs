//! WGSL for wgpu targets (`Config::for_wgpu`): each module translated
//! (`translations`), the texts packed as one stream (`stream`), and the
//! choice between that and SPIR-V, front ends included (`choose`).

mod choose;
mod stream;
mod translations;

pub(crate) use choose::{WgpuChoice, WgpuPath, choose};
pub(crate) use stream::{PackedWgsl, pack_texts};
pub(crate) use translations::{Translated, translate_modules};
