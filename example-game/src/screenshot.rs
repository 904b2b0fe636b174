//! Writing a frame as a PNG.

use std::path::Path;

use ash::vk;

use crate::error::GameError;

/// Writes `pixels` (tightly packed, 4 bytes per pixel in `format`) as an RGBA PNG.
pub(crate) fn write_png(path: &Path, pixels: &[u8], extent: vk::Extent2D, format: vk::Format) -> Result<(), GameError> {
    let error = |reason: String| GameError::Screenshot { path: path.to_owned(), reason };
    let mut rgba = pixels.to_vec();
    if matches!(format, vk::Format::B8G8R8A8_UNORM | vk::Format::B8G8R8A8_SRGB) {
        rgba.chunks_exact_mut(4).for_each(|p| p.swap(0, 2));
    }
    // The output is opaque; drop whatever alpha blending left behind.
    rgba.chunks_exact_mut(4).for_each(|p| p[3] = 255);
    let file = std::fs::File::create(path).map_err(|e| error(e.to_string()))?;
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), extent.width, extent.height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(|e| error(e.to_string()))?;
    writer.write_image_data(&rgba).map_err(|e| error(e.to_string()))?;
    writer.finish().map_err(|e| error(e.to_string()))
}
