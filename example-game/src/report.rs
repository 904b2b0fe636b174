//! The table the game prints when it exits.

use std::time::Duration;

use crate::render::PipelineTimings;
use crate::shaders::Shaders;

/// What a run did, for the table.
pub(crate) struct RunSummary<'a> {
    pub(crate) mode: &'static str,
    pub(crate) device: &'a str,
    pub(crate) size: (u32, u32),
    pub(crate) frames: u64,
    pub(crate) frame_time: Duration,
    pub(crate) score: u32,
    pub(crate) wave: u32,
    /// `None` when validation was off.
    pub(crate) validation_messages: Option<usize>,
    pub(crate) screenshot: Option<&'a std::path::Path>,
}

/// Whether Mesa's shader cache is off in this process, read as Mesa reads
/// it (`main` turns it off unless the user chose).
fn mesa_shader_cache() -> String {
    let setting = ["MESA_SHADER_CACHE_DISABLE", "MESA_GLSL_CACHE_DISABLE"]
        .iter()
        .find_map(|name| std::env::var(name).ok().map(|value| (*name, value)));
    match setting {
        Some((_, value)) if !matches!(value.to_ascii_lowercase().as_str(), "0" | "n" | "no" | "f" | "false") => {
            "off (both sides compile cold)".to_owned()
        }
        Some((name, value)) => format!("on ({name}={value}): times may include cache hits"),
        None => "on: times may include cache hits".to_owned(),
    }
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

/// Formats the table.
pub(crate) fn table(shaders: &Shaders, pipelines: &PipelineTimings, run: &RunSummary<'_>) -> String {
    let mut rows: Vec<(&str, String)> = Vec::new();
    rows.push(("shader modules", shaders.len().to_string()));
    rows.push(("  by language", shaders.languages()));
    rows.push(("raw SPIR-V", format!("{} bytes", shaders.spirv_bytes)));
    rows.push((
        "embedded",
        format!(
            "{} bytes ({:.1}% of raw, {})",
            shaders.embedded_bytes,
            100.0 * shaders.embedded_bytes as f64 / shaders.spirv_bytes.max(1) as f64,
            shaders.encoding
        ),
    ));
    // What the build weighed: the packing against raw SPIR-V, decoder
    // code included (README, "What smolv does to a binary's size").
    rows.push(("packing", env!("ROCK_STORM_PACKING").to_owned()));
    rows.push(("  for xz downloads", "build with SMOLV_SIZE_GOAL=download".to_owned()));
    rows.push(("decode (all modules)", ms(shaders.decode_time)));
    let per = |d: Duration| format!("{} ({} per pipeline)", ms(d), ms(d / pipelines.count.max(1) as u32));
    match (pipelines.fast_link, pipelines.optimized) {
        (Some(fast), optimized) => {
            rows.push(("pipelines", format!("{}, from graphics pipeline libraries", pipelines.count)));
            rows.push(("  fast link", per(fast)));
            rows.push((
                "  LTO link (background)",
                optimized.map_or_else(
                    || "not finished".to_owned(),
                    |d| format!("all ready {} after the first request", ms(d)),
                ),
            ));
            rows.push(("  monolithic", per(pipelines.monolithic)));
            rows.push(("  Mesa shader cache", mesa_shader_cache()));
        }
        (None, _) => {
            rows.push(("pipelines", format!("{}, monolithic (no pipeline libraries)", pipelines.count)));
            rows.push(("  fast link", "n/a".to_owned()));
            rows.push(("  LTO link (background)", "n/a".to_owned()));
            rows.push(("  monolithic", per(pipelines.monolithic)));
        }
    }
    rows.push((
        "frames",
        format!(
            "{} in {} ({} per frame)",
            run.frames,
            ms(run.frame_time),
            ms(run.frame_time / run.frames.max(1) as u32)
        ),
    ));
    rows.push((
        "validation",
        run.validation_messages.map_or_else(|| "off".to_owned(), |n| format!("on, {n} messages")),
    ));
    if let Some(path) = run.screenshot {
        rows.push(("screenshot", path.display().to_string()));
    }
    rows.push(("score", format!("{} (wave {})", run.score, run.wave)));
    let mut out =
        format!("Rock Storm: {} frames, {}, {}x{}, on {}\n", run.frames, run.mode, run.size.0, run.size.1, run.device);
    for (name, value) in rows {
        out.push_str(&format!("  {name:<24} {value}\n"));
    }
    out
}
