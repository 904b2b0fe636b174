//! Images for the golden tests of the example game and the wgpu example:
//! reading a PNG and comparing two. `example-wgpu/tests/common` includes
//! this file too.
#![allow(dead_code, unreachable_pub)] // each test uses a part of it

use std::path::Path;

/// An RGBA8 image.
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

impl Image {
    /// The RGBA of the pixel at `x`, `y`.
    pub fn at(&self, x: u32, y: u32) -> [u8; 4] {
        let i = ((y * self.width + x) * 4) as usize;
        [self.rgba[i], self.rgba[i + 1], self.rgba[i + 2], self.rgba[i + 3]]
    }
}

/// Reads an 8-bit RGBA PNG.
pub fn read_png(path: &Path) -> Image {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut reader = png::Decoder::new(std::io::BufReader::new(file)).read_info().expect("a PNG");
    let mut rgba = vec![0; reader.output_buffer_size().expect("a sane size")];
    let info = reader.next_frame(&mut rgba).expect("PNG pixels");
    assert_eq!((info.color_type, info.bit_depth), (png::ColorType::Rgba, png::BitDepth::Eight), "{}", path.display());
    rgba.truncate(info.buffer_size());
    Image { width: info.width, height: info.height, rgba }
}

/// How far apart two images are, with the golden tests' tolerance in
/// [`Difference::close`].
#[derive(Debug)]
pub struct Difference {
    /// Mean absolute difference per channel, 0–255.
    pub mean: f64,
    /// Fraction of pixels where some channel differs by more than 32.
    pub outliers: f64,
}

impl Difference {
    /// Within the game's golden-image tolerance: lavapipe's LLVM versions,
    /// or a real GPU, round a little differently.
    pub fn close(&self) -> bool {
        self.mean < 2.0 && self.outliers < 0.01
    }
}

/// Compares two images of the same size.
pub fn compare(a: &Image, b: &Image) -> Difference {
    assert_eq!((a.width, a.height), (b.width, b.height), "image sizes differ");
    let mut total = 0u64;
    let mut outliers = 0usize;
    for (p, q) in a.rgba.chunks_exact(4).zip(b.rgba.chunks_exact(4)) {
        let mut worst = 0;
        for c in 0..3 {
            let d = p[c].abs_diff(q[c]);
            total += u64::from(d);
            worst = worst.max(d);
        }
        outliers += usize::from(worst > 32);
    }
    let pixels = f64::from(a.width * a.height);
    Difference { mean: total as f64 / (pixels * 3.0), outliers: outliers as f64 / pixels }
}

/// Mean brightness (0–255) of an image, to tell a rendered frame from a black one.
pub fn mean_brightness(image: &Image) -> f64 {
    let sum: u64 = image.rgba.chunks_exact(4).map(|p| u64::from(p[0]) + u64::from(p[1]) + u64::from(p[2])).sum();
    sum as f64 / (f64::from(image.width * image.height) * 3.0)
}
