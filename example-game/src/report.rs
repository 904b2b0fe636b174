//! The table the game prints when it exits.

use std::time::Duration;

use smolv_runtime::vulkan::CacheLoad;

use crate::Outcome;
use crate::gpu::Context;
use crate::render::{PipelineTimings, Renderer};
use crate::shaders::Shaders;
use crate::warmup::PlayLog;

/// What a run did, for the table.
pub(crate) struct RunSummary<'a> {
    pub(crate) mode: &'static str,
    pub(crate) device: &'a str,
    pub(crate) size: (u32, u32),
    pub(crate) frames: u64,
    pub(crate) frame_time: Duration,
    pub(crate) score: u32,
    pub(crate) wave: u32,
    /// `None` when validation was off (filled in by [`outcome`]).
    pub(crate) validation_messages: Option<usize>,
    pub(crate) screenshot: Option<&'a std::path::Path>,
}

/// The end of a run: saves the recording, measures the pipelines, and formats the table.
pub(crate) fn outcome(
    shaders: &Shaders,
    renderer: &mut Renderer,
    context: &Context,
    play: &PlayLog,
    mut run: RunSummary<'_>,
) -> Result<Outcome, crate::error::GameError> {
    renderer.warmup().save()?;
    let timings = renderer.pipeline_timings(shaders)?;
    let validation_messages = context.validation_messages();
    run.validation_messages = context.validating().then_some(validation_messages);
    let mut table = table(shaders, &timings, &run);
    table.push_str(&play.lines(renderer));
    Ok(Outcome { table, validation_messages })
}

/// Whether Mesa's shader cache is off in this process, read as Mesa reads it.
fn mesa_shader_cache() -> String {
    let setting = ["MESA_SHADER_CACHE_DISABLE", "MESA_GLSL_CACHE_DISABLE"]
        .iter()
        .find_map(|name| crate::env_var_os(name)?.into_string().ok().map(|value| (*name, value)));
    match setting {
        Some((_, value)) if !matches!(value.to_ascii_lowercase().as_str(), "0" | "n" | "no" | "f" | "false") => {
            "off (both sides compile cold)".to_owned()
        }
        Some((name, value)) => format!("on ({name}={value}): times may include cache hits"),
        None => "on: times may include cache hits".to_owned(),
    }
}

/// How many times faster `fast` was than `slow`.
fn ratio(slow: Duration, fast: Duration) -> String {
    format!("{:.2}× the time", slow.as_secs_f64() / fast.as_secs_f64().max(1e-9))
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
    // What the build weighed: the packing against raw SPIR-V, decoder code included.
    rows.push(("packing", env!("ROCK_STORM_PACKING").to_owned()));
    rows.push((
        "  for xz downloads",
        "shipped compressed (installer, store, archive)? build with SMOLV_SIZE_GOAL=download".to_owned(),
    ));
    rows.push(("decode (all modules)", ms(shaders.decode_time)));
    let per = |d: Duration| format!("{} ({} per pipeline)", ms(d), ms(d / pipelines.count.max(1) as u32));
    match (pipelines.fast_link, pipelines.optimized) {
        (Some(fast), optimized) => {
            rows.push(("pipelines", format!("{}, from graphics pipeline libraries", pipelines.count)));
            rows.push(("  fast link", format!("{} (first load: every library new)", per(fast))));
            rows.push((
                "  LTO link (background)",
                optimized.map_or_else(
                    || "not finished".to_owned(),
                    |d| format!("all ready {} after the first request", ms(d)),
                ),
            ));
            rows.push((
                "  monolithic",
                format!("{} (first-load ratio {})", per(pipelines.monolithic), ratio(pipelines.monolithic, fast)),
            ));
            let counts = &pipelines.library_counts;
            rows.push((
                "  libraries",
                format!(
                    "{} for {} pipelines: vertex input {}, pre-rasterization {}, fragment shader {}, fragment output {}",
                    counts.total(),
                    pipelines.count,
                    counts.vertex_input,
                    counts.pre_rasterization,
                    counts.fragment_shader,
                    counts.fragment_output
                ),
            ));
            for material in &pipelines.new_materials {
                rows.push((
                    "  new material",
                    format!(
                        "{}: {} (new: {}; vertex input and pre-rasterization reused), monolithic {} ({})",
                        material.name,
                        ms(material.libraries),
                        material.new_parts.join(", "),
                        ms(material.monolithic),
                        ratio(material.monolithic, material.libraries)
                    ),
                ));
            }
            rows.push(("  Mesa shader cache", mesa_shader_cache()));
        }
        (None, _) => {
            rows.push(("pipelines", format!("{}, monolithic (no pipeline libraries)", pipelines.count)));
            rows.push(("  fast link", "n/a".to_owned()));
            rows.push(("  LTO link (background)", "n/a".to_owned()));
            rows.push(("  monolithic", per(pipelines.monolithic)));
        }
    }
    let (compute, waited) = pipelines.compute;
    rows.push((
        "compute pipeline",
        format!(
            "particles, on the background worker: in hand {} after the request, {} of it waiting",
            ms(compute),
            ms(waited)
        ),
    ));
    match &pipelines.cache {
        None => rows.push(("pipeline cache", "off (--no-pipeline-cache)".to_owned())),
        Some(cache) => {
            let load = match &cache.load {
                // 32 bytes are VkPipelineCacheHeaderVersionOne alone.
                CacheLoad::Loaded { bytes } if *bytes <= 32 => {
                    format!("hit: loaded {bytes} bytes, only the header (this driver keeps no pipelines in it)")
                }
                CacheLoad::Loaded { bytes } => format!("hit: loaded {bytes} bytes of driver data"),
                CacheLoad::Missing => "miss: no file yet (first run)".to_owned(),
                CacheLoad::Ignored { reason } => format!("miss: file ignored ({reason})"),
            };
            rows.push(("pipeline cache", format!("{load} from {}", cache.path.display())));
            let saved = match &cache.saved {
                Some(Ok(bytes)) => format!("{bytes} bytes of driver data"),
                Some(Err(e)) => format!("failed: {e}"),
                None => "not yet".to_owned(),
            };
            rows.push(("  saved", saved));
            let with = pipelines.fast_link.unwrap_or(pipelines.monolithic);
            rows.push(("  load with the cache", ms(with)));
            if let Some(without) = pipelines.without_cache {
                rows.push(("  load without a cache", format!("{} ({})", ms(without), ratio(without, with))));
            }
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
