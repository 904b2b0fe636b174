//! The Vulkan plumbing the game needs beyond what `smolv_runtime::vulkan`
//! provides: the device, memory, and a frame's synchronisation.
#![allow(unsafe_code)]

mod context;
mod memory;

pub(crate) use context::{Context, Validation};
pub(crate) use memory::{Buffer, COLOR_RANGE, Image, color_view};
