//! Running the game binary and comparing its screenshots.
#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The game binary Cargo built for these tests.
pub fn game() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_example-game"));
    // Pipelines must come from the library path unless a test asks otherwise.
    command.env_remove("SMOLV_FORCE_MONOLITHIC");
    // The default pipeline cache goes under the test's target directory,
    // not the user's ~/.cache.
    command.env("XDG_CACHE_HOME", Path::new(env!("CARGO_TARGET_TMPDIR")).join("xdg-cache"));
    command
}

/// Runs `command`, returning its output, with stdout and stderr shown on failure.
pub fn run(command: &mut Command) -> Output {
    let output = command.output().expect("the game binary runs");
    eprintln!("--- stdout\n{}", String::from_utf8_lossy(&output.stdout));
    eprintln!("--- stderr\n{}", String::from_utf8_lossy(&output.stderr));
    output
}

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("example-game").join(name);
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

/// How far apart two images are.
#[derive(Debug)]
pub struct Difference {
    /// Mean absolute difference per channel, 0–255.
    pub mean: f64,
    /// Fraction of pixels where some channel differs by more than 32.
    pub outliers: f64,
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
    let pixels = (a.width * a.height) as f64;
    Difference { mean: total as f64 / (pixels * 3.0), outliers: outliers as f64 / pixels }
}

/// Mean brightness (0–255) of an image, to tell a rendered frame from a black one.
pub fn mean_brightness(image: &Image) -> f64 {
    let sum: u64 = image.rgba.chunks_exact(4).map(|p| u64::from(p[0]) + u64::from(p[1]) + u64::from(p[2])).sum();
    sum as f64 / (f64::from(image.width * image.height) * 3.0)
}
