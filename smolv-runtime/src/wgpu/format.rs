//! `VkFormat` as wgpu's vertex format, SPIR-V's `ImageFormat` as its storage texture format.

use wgpu::{TextureFormat as T, VertexFormat as V};

/// The wgpu vertex format of a `VkFormat` value
/// ([`VertexAttribute::format`](crate::interface::VertexAttribute::format)), if any.
///
/// ```
/// use smolv_runtime::wgpu::vertex_format;
/// assert_eq!(vertex_format(103), Some(wgpu::VertexFormat::Float32x2)); // R32G32_SFLOAT
/// assert_eq!(vertex_format(37), Some(wgpu::VertexFormat::Unorm8x4)); // R8G8B8A8_UNORM
/// assert_eq!(vertex_format(23), None); // R8G8B8_UNORM: wgpu has no 3-byte format
/// ```
pub fn vertex_format(vk_format: u32) -> Option<V> {
    Some(match vk_format {
        9 => V::Unorm8,
        10 => V::Snorm8,
        13 => V::Uint8,
        14 => V::Sint8,
        16 => V::Unorm8x2,
        17 => V::Snorm8x2,
        20 => V::Uint8x2,
        21 => V::Sint8x2,
        37 => V::Unorm8x4,
        38 => V::Snorm8x4,
        41 => V::Uint8x4,
        42 => V::Sint8x4,
        44 => V::Unorm8x4Bgra,
        70 => V::Unorm16,
        71 => V::Snorm16,
        74 => V::Uint16,
        75 => V::Sint16,
        76 => V::Float16,
        77 => V::Unorm16x2,
        78 => V::Snorm16x2,
        81 => V::Uint16x2,
        82 => V::Sint16x2,
        83 => V::Float16x2,
        91 => V::Unorm16x4,
        92 => V::Snorm16x4,
        95 => V::Uint16x4,
        96 => V::Sint16x4,
        97 => V::Float16x4,
        98 => V::Uint32,
        99 => V::Sint32,
        100 => V::Float32,
        101 => V::Uint32x2,
        102 => V::Sint32x2,
        103 => V::Float32x2,
        104 => V::Uint32x3,
        105 => V::Sint32x3,
        106 => V::Float32x3,
        107 => V::Uint32x4,
        108 => V::Sint32x4,
        109 => V::Float32x4,
        112 => V::Float64,
        115 => V::Float64x2,
        118 => V::Float64x3,
        121 => V::Float64x4,
        _ => return None,
    })
}

/// The wgpu texture format of a SPIR-V `ImageFormat` operand, if known and wgpu has it.
pub(crate) fn storage_format(image_format: u32) -> Option<T> {
    Some(match image_format {
        1 => T::Rgba32Float,
        2 => T::Rgba16Float,
        3 => T::R32Float,
        4 => T::Rgba8Unorm,
        5 => T::Rgba8Snorm,
        6 => T::Rg32Float,
        7 => T::Rg16Float,
        8 => T::Rg11b10Ufloat,
        9 => T::R16Float,
        10 => T::Rgba16Unorm,
        11 => T::Rgb10a2Unorm,
        12 => T::Rg16Unorm,
        13 => T::Rg8Unorm,
        14 => T::R16Unorm,
        15 => T::R8Unorm,
        16 => T::Rgba16Snorm,
        17 => T::Rg16Snorm,
        18 => T::Rg8Snorm,
        19 => T::R16Snorm,
        20 => T::R8Snorm,
        21 => T::Rgba32Sint,
        22 => T::Rgba16Sint,
        23 => T::Rgba8Sint,
        24 => T::R32Sint,
        25 => T::Rg32Sint,
        26 => T::Rg16Sint,
        27 => T::Rg8Sint,
        28 => T::R16Sint,
        29 => T::R8Sint,
        30 => T::Rgba32Uint,
        31 => T::Rgba16Uint,
        32 => T::Rgba8Uint,
        33 => T::R32Uint,
        34 => T::Rgb10a2Uint,
        35 => T::Rg32Uint,
        36 => T::Rg16Uint,
        37 => T::Rg8Uint,
        38 => T::R16Uint,
        39 => T::R8Uint,
        40 => T::R64Uint,
        _ => return None,
    })
}
