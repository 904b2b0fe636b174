//! The command line.

use std::path::PathBuf;

use clap::Parser;

use crate::render::PostPreset;

/// Rock Storm: a small Vulkan arena shooter whose shaders ship through smolv.
///
/// Steer with the arrow keys or WASD, thrust with Up/W, fire with Space,
/// switch the post-processing ubershader's feature set with P, quit with
/// Esc. Without a display (or with --headless) a scripted pilot plays.
#[derive(Debug, Parser)]
#[command(name = "example-game", version, about, long_about)]
pub(crate) struct Args {
    /// Render off-screen with the scripted pilot (the default with no display).
    #[arg(long, conflicts_with = "window")]
    pub(crate) headless: bool,
    /// Open a window and play with the keyboard (the default with a display).
    #[arg(long)]
    pub(crate) window: bool,
    /// Frames to run: headless runs default to 120, windows run until closed.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub(crate) frames: Option<u64>,
    /// Write the last frame to this PNG file.
    #[arg(long, value_name = "PATH")]
    pub(crate) screenshot: Option<PathBuf>,
    /// Frame size for headless runs, or the initial window size.
    #[arg(long, value_name = "WxH", default_value = "960x540", value_parser = parse_size)]
    pub(crate) size: (u32, u32),
    /// The post-processing ubershader's feature set (spec constants).
    #[arg(long, value_enum, default_value_t = PostPreset::Arcade)]
    pub(crate) post: PostPreset,
    /// Seed of the rock field.
    #[arg(long, default_value_t = 2026)]
    pub(crate) seed: u64,
    /// Require the Khronos validation layer (by default it is used when installed).
    #[arg(long, conflicts_with = "no_validation")]
    pub(crate) validation: bool,
    /// Run without the validation layer.
    #[arg(long)]
    pub(crate) no_validation: bool,
    /// Build monolithic pipelines instead of pipeline libraries (like
    /// SMOLV_FORCE_MONOLITHIC=1).
    #[arg(long)]
    pub(crate) monolithic: bool,
    /// Where the pipeline cache lives between runs (default: the user's
    /// cache directory, `rock-storm/pipelines.bin`).
    #[arg(long, value_name = "PATH", conflicts_with = "no_pipeline_cache")]
    pub(crate) pipeline_cache: Option<PathBuf>,
    /// Run without a persistent pipeline cache.
    #[arg(long)]
    pub(crate) no_pipeline_cache: bool,
    /// Record every pipeline the run asks for into FILE (written at the
    /// end of the run), for --replay.
    #[arg(long, value_name = "FILE")]
    pub(crate) record: Option<PathBuf>,
    /// Build the pipelines FILE (from --record) lists while loading, on
    /// the pipeline manager's background worker, so that none is compiled
    /// on the render thread.
    #[arg(long, value_name = "FILE")]
    pub(crate) replay: Option<PathBuf>,
    /// Switch the post-processing feature set every N frames, as the
    /// window's P key does (pipelines first asked for mid-game).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub(crate) post_cycle: Option<u64>,
    /// Watch the shader sources and reload every edit while the game runs
    /// (a build with the `hot-reload` feature).
    #[arg(long)]
    pub(crate) watch: bool,
    /// Where --watch reads the shaders from [default: the game's shaders/].
    #[arg(long, value_name = "DIR", requires = "watch")]
    pub(crate) shader_dir: Option<PathBuf>,
    /// With --watch, headless: write the frame after each reload (or
    /// refused reload) to DIR/reload-N.png.
    #[cfg(feature = "hot-reload")]
    #[arg(long, value_name = "DIR", requires = "watch", requires = "headless")]
    pub(crate) reload_screenshots: Option<PathBuf>,
    /// With --watch, headless: edit post.frag in the shader directory 20
    /// times, print the p50 and p95 from edit to the first frame drawn with
    /// the new pipeline, and stop.
    #[cfg(feature = "hot-reload")]
    #[arg(long, requires = "watch", requires = "headless")]
    pub(crate) reload_bench: bool,
}

fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let (w, h) = text.split_once(['x', 'X']).ok_or_else(|| format!("`{text}` is not WIDTHxHEIGHT, e.g. 960x540"))?;
    let parse = |s: &str| s.trim().parse::<u32>().ok().filter(|v| (16..=8192).contains(v));
    match (parse(w), parse(h)) {
        (Some(w), Some(h)) => Ok((w, h)),
        _ => Err(format!("`{text}`: width and height must be whole numbers from 16 to 8192")),
    }
}

impl Args {
    /// The pipeline cache file to load and save, if any: `--pipeline-cache`,
    /// else `$XDG_CACHE_HOME` or `~/.cache` (the temporary directory when
    /// neither is set), under `rock-storm/`.
    pub(crate) fn pipeline_cache_path(&self) -> Option<PathBuf> {
        let var = |name| crate::env_var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        let default = || {
            let dir = var("XDG_CACHE_HOME").or_else(|| Some(var("HOME")?.join(".cache")));
            dir.unwrap_or_else(std::env::temp_dir).join("rock-storm").join("pipelines.bin")
        };
        (!self.no_pipeline_cache).then(|| self.pipeline_cache.clone().unwrap_or_else(default))
    }

    /// Whether to run headless: asked for, or no display to open a window on.
    pub(crate) fn is_headless(&self) -> bool {
        let has = |var| crate::env_var_os(var).is_some_and(|v| !v.is_empty());
        self.headless || !(self.window || has("DISPLAY") || has("WAYLAND_DISPLAY"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("640x360"), Ok((640, 360)));
        assert!(parse_size("640").is_err());
        assert!(parse_size("0x10").is_err());
        assert!(parse_size("axb").is_err());
    }

    #[test]
    fn flags() {
        let args = Args::try_parse_from(["game", "--headless", "--frames", "5", "--post", "retro"]).unwrap();
        assert!(args.is_headless());
        assert_eq!(args.frames, Some(5));
        assert_eq!(args.post, PostPreset::Retro);
        assert!(Args::try_parse_from(["game", "--headless", "--window"]).is_err());
        assert!(Args::try_parse_from(["game", "--frames", "0"]).is_err());
        let watch = Args::try_parse_from(["game", "--watch", "--shader-dir", "copy"]).unwrap();
        assert!(watch.watch);
        assert_eq!(watch.shader_dir, Some(PathBuf::from("copy")));
        assert!(Args::try_parse_from(["game", "--shader-dir", "copy"]).is_err(), "--shader-dir needs --watch");
        let warm =
            Args::try_parse_from(["game", "--record", "a.pso", "--replay", "b.pso", "--post-cycle", "7"]).unwrap();
        assert_eq!((warm.record, warm.replay), (Some(PathBuf::from("a.pso")), Some(PathBuf::from("b.pso"))));
        assert_eq!(warm.post_cycle, Some(7));
        assert!(Args::try_parse_from(["game", "--post-cycle", "0"]).is_err());
    }
}
