//! Headless runs: the scripted pilot plays `--frames` frames into an
//! off-screen image on any Vulkan device (lavapipe is enough).

use std::time::Instant;

use ash::vk;

use crate::cli::Args;
use crate::error::GameError;
use crate::game::World;
use crate::gpu::{Buffer, Context, Image};
use crate::pilot::scripted_input;
use crate::reload::HotReload;
use crate::render::{FrameSync, Renderer, Target};
use crate::report::{self, RunSummary};
use crate::shaders::Shaders;
use crate::{Outcome, validation_mode};

/// The format of the off-screen output (and so of the screenshot).
const OUTPUT_FORMAT: vk::Format = vk::Format::R8G8B8A8_UNORM;

/// Frames a headless run plays unless `--frames` says otherwise.
pub(crate) const DEFAULT_FRAMES: u64 = 120;

/// Plays the scripted game off-screen.
pub(crate) fn run(
    args: &Args,
    shaders: &mut Shaders,
    mut reload: Option<&mut HotReload>,
) -> Result<Outcome, GameError> {
    let warmup = crate::warmup::Plan::from_args(args)?;
    let context = Context::new(validation_mode(args), &[])?;
    let extent = vk::Extent2D { width: args.size.0, height: args.size.1 };
    let usage = vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC;
    let output = Image::new(&context, OUTPUT_FORMAT, extent, usage)?;
    let readback = Buffer::readback(&context, extent)?;
    let mut renderer = Renderer::new(&context, shaders, OUTPUT_FORMAT, extent, args, &warmup)?;
    let target =
        Target { image: output.handle, view: output.view, extent, final_layout: vk::ImageLayout::TRANSFER_SRC_OPTIMAL };
    let frames = args.frames.unwrap_or(DEFAULT_FRAMES);
    let mut world = World::new(args.seed);
    let start = Instant::now();
    let mut played = 0;
    let mut play = crate::warmup::PlayLog::default();
    for frame in 0..frames {
        let frame_start = Instant::now();
        renderer.cycle_post(shaders, args.post_cycle, frame)?;
        world.step(&scripted_input(&world, frame));
        played += 1;
        let news =
            reload.as_deref_mut().map(|r| r.before_frame(shaders, &mut renderer)).transpose()?.unwrap_or_default();
        let last = frame + 1 == frames;
        let read = (last && args.screenshot.is_some()) || news.capture;
        renderer.draw(&context, &world, target, FrameSync::default(), read.then_some(&readback))?;
        play.drawn(&renderer, frame_start);
        if let Some(reload) = reload.as_deref_mut()
            && !reload.after_frame(&news, &renderer, Some((&readback, extent, OUTPUT_FORMAT)))?
        {
            break;
        }
    }
    renderer.wait()?;
    let frame_time = start.elapsed();
    if let Some(path) = &args.screenshot {
        crate::screenshot::write_png(path, &readback.read(), extent, OUTPUT_FORMAT)?;
    }
    let run = RunSummary {
        mode: "headless",
        size: args.size,
        frames: played,
        frame_time,
        score: world.score,
        wave: world.wave,
        screenshot: args.screenshot.as_deref(),
    };
    report::outcome(shaders, &mut renderer, &context, &play, run)
}
