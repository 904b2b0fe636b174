//! Running the example binary on wgpu's Vulkan backend, and reading what
//! it wrote.
#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the example with `args` on wgpu's Vulkan backend (lavapipe in
/// CI), showing its output on failure.
pub fn run(args: &[&str]) -> Output {
    let output = Command::new(env!("CARGO_BIN_EXE_example-wgpu"))
        .args(args)
        .env("WGPU_BACKEND", "vulkan")
        .output()
        .expect("the example binary runs");
    eprintln!("--- stdout\n{}", String::from_utf8_lossy(&output.stdout));
    eprintln!("--- stderr\n{}", String::from_utf8_lossy(&output.stderr));
    output
}

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("example-wgpu").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

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

/// How far apart two images are: the measures of the game's golden test
/// (example-game/tests/common), with its tolerance in [`Difference::close`].
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
