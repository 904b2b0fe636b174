//! The table the game prints when it exits.

use std::time::Duration;

use smolv_runtime::vulkan::CacheLoad;

use crate::Outcome;
use crate::gpu::Context;
use crate::render::Renderer;
use crate::shaders::Shaders;
use crate::warmup::PlayLog;

/// What a run did, for the table.
pub(crate) struct RunSummary<'a> {
    pub(crate) mode: &'static str,
    pub(crate) size: (u32, u32),
    pub(crate) frames: u64,
    pub(crate) frame_time: Duration,
    pub(crate) score: u32,
    pub(crate) wave: u32,
    pub(crate) screenshot: Option<&'a std::path::Path>,
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

/// The end of a run: saves the recording, measures the pipelines, and formats the table.
pub(crate) fn outcome(
    shaders: &Shaders,
    renderer: &mut Renderer,
    context: &Context,
    play: &PlayLog,
    run: RunSummary<'_>,
) -> Result<Outcome, crate::error::GameError> {
    renderer.warmup().save()?;
    let pipelines = &renderer.pipeline_timings(shaders)?;
    let validation_messages = context.validation_messages();
    let (width, height, device) = (run.size.0, run.size.1, &context.device_name);
    let mut out = format!("Rock Storm: {} frames, {}, {width}x{height}, on {device}\n", run.frames, run.mode);
    // One `name value` row of the table.
    macro_rules! row {
        ($name:expr, $($value:tt)+) => {
            out.push_str(&format!("  {:<24} {}\n", $name, format_args!($($value)+)))
        };
    }
    row!("shader modules", "{}", shaders.all().len());
    row!("  by language", "{}", shaders.languages());
    row!("raw SPIR-V", "{} bytes", shaders.spirv_bytes);
    row!(
        "embedded",
        "{} bytes ({:.1}% of raw, {})",
        shaders.embedded_bytes,
        100.0 * shaders.embedded_bytes as f64 / shaders.spirv_bytes.max(1) as f64,
        shaders.encoding
    );
    // What the build weighed: the packing against raw SPIR-V, decoder code included.
    row!("packing", "{}", env!("ROCK_STORM_PACKING"));
    row!("  for xz downloads", "shipped compressed (installer, store, archive)? build with SMOLV_SIZE_GOAL=download");
    row!("decode (all modules)", "{}", ms(shaders.decode_time));
    let per = |d: Duration| format!("{} ({} per pipeline)", ms(d), ms(d / pipelines.count.max(1) as u32));
    if let Some(fast) = pipelines.fast_link {
        row!("pipelines", "{}, from graphics pipeline libraries", pipelines.count);
        row!("  fast link", "{} (first load: every library new)", per(fast));
        match pipelines.optimized {
            Some(d) => row!("  LTO link (background)", "all ready {} after the first request", ms(d)),
            None => row!("  LTO link (background)", "not finished"),
        }
        row!("  monolithic", "{} (first-load ratio {})", per(pipelines.monolithic), ratio(pipelines.monolithic, fast));
        let counts = &pipelines.library_counts;
        row!(
            "  libraries",
            "{} for {} pipelines: vertex input {}, pre-rasterization {}, fragment shader {}, fragment output {}",
            counts.total(),
            pipelines.count,
            counts.vertex_input,
            counts.pre_rasterization,
            counts.fragment_shader,
            counts.fragment_output
        );
        for material in &pipelines.new_materials {
            row!(
                "  new material",
                "{}: {} (new: {}; vertex input and pre-rasterization reused), monolithic {} ({})",
                material.name,
                ms(material.libraries),
                material.new_parts.join(", "),
                ms(material.monolithic),
                ratio(material.monolithic, material.libraries)
            );
        }
        row!("  Mesa shader cache", "{}", mesa_shader_cache());
    } else {
        row!("pipelines", "{}, monolithic (no pipeline libraries)", pipelines.count);
        row!("  fast link", "n/a");
        row!("  LTO link (background)", "n/a");
        row!("  monolithic", "{}", per(pipelines.monolithic));
    }
    let (compute, waited) = pipelines.compute;
    row!(
        "compute pipeline",
        "particles, on the background worker: in hand {} after the request, {} of it waiting",
        ms(compute),
        ms(waited)
    );
    match &pipelines.cache {
        None => row!("pipeline cache", "off (--no-pipeline-cache)"),
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
            row!("pipeline cache", "{load} from {}", cache.path.display());
            match &cache.saved {
                Ok(bytes) => row!("  saved", "{bytes} bytes of driver data"),
                Err(e) => row!("  saved", "failed: {e}"),
            }
            let with = pipelines.fast_link.unwrap_or(pipelines.monolithic);
            row!("  load with the cache", "{}", ms(with));
            if let Some(without) = pipelines.without_cache {
                row!("  load without a cache", "{} ({})", ms(without), ratio(without, with));
            }
        }
    }
    let per_frame = ms(run.frame_time / run.frames.max(1) as u32);
    row!("frames", "{} in {} ({per_frame} per frame)", run.frames, ms(run.frame_time));
    if context.validating() {
        row!("validation", "on, {validation_messages} messages");
    } else {
        row!("validation", "off");
    }
    if let Some(path) = run.screenshot {
        row!("screenshot", "{}", path.display());
    }
    row!("score", "{} (wave {})", run.score, run.wave);
    out.push_str(&play.lines(renderer));
    Ok(Outcome { table: out, validation_messages })
}
