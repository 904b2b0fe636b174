//! Window mode: winit, an ash surface and a FIFO (vsync) swapchain,
//! keyboard controls, resizing; Esc or closing the window quits.
#![allow(unsafe_code)]

mod swapchain;

use std::time::{Duration, Instant};

use ash::vk;
use raw_window_handle::{HasDisplayHandle, HasWindowHandle};
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, KeyEvent, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{KeyCode, PhysicalKey};
use winit::window::{Window, WindowId};

use crate::cli::Args;
use crate::error::{GameError, vk_check};
use crate::game::{Input, STEP, World};
use crate::gpu::{Buffer, Context};
use crate::reload::HotReload;
use crate::render::{FrameSync, Renderer, Target};
use crate::report::{self, RunSummary};
use crate::shaders::Shaders;
use crate::{Outcome, validation_mode};
use swapchain::{Surface, Swapchain};

/// Plays in a window until Esc, the window closes, or `--frames` frames.
pub(crate) fn run(args: &Args, shaders: &mut Shaders, reload: Option<&mut HotReload>) -> Result<Outcome, GameError> {
    let event_loop = EventLoop::new().map_err(|e| GameError::Window(e.to_string()))?;
    event_loop.set_control_flow(ControlFlow::Poll);
    let mut app = App { args, shaders, reload, running: None, error: None, outcome: None };
    event_loop.run_app(&mut app).map_err(|e| GameError::Window(e.to_string()))?;
    if let Some(error) = app.error {
        return Err(error);
    }
    app.outcome.ok_or_else(|| GameError::Window("the window closed before the game started".to_owned()))
}

/// Which keys are down.
#[derive(Default)]
struct Keys {
    left: bool,
    right: bool,
    thrust: bool,
    fire: bool,
}

impl Keys {
    fn input(&self) -> Input {
        Input {
            turn: f32::from(u8::from(self.left)) - f32::from(u8::from(self.right)),
            thrust: self.thrust,
            fire: self.fire,
        }
    }
}

/// The game in a window. Fields drop in order: renderer and swapchain, surface, context, window.
struct Running {
    renderer: Renderer,
    swapchain: Option<Swapchain>,
    surface: Surface,
    context: Context,
    window: Window,
    world: World,
    keys: Keys,
    frames: u64,
    /// The warm-up lines of the summary.
    play: crate::warmup::PlayLog,
    started: Instant,
    last_step: Instant,
    lag: Duration,
}

struct App<'a> {
    args: &'a Args,
    shaders: &'a mut Shaders,
    reload: Option<&'a mut HotReload>,
    running: Option<Running>,
    error: Option<GameError>,
    outcome: Option<Outcome>,
}

impl App<'_> {
    fn start(&mut self, event_loop: &ActiveEventLoop) -> Result<Running, GameError> {
        let window_error = |e: &dyn std::fmt::Display| GameError::Window(e.to_string());
        let size = PhysicalSize::new(self.args.size.0, self.args.size.1);
        let attributes = Window::default_attributes().with_title("Rock Storm (smolv example)").with_inner_size(size);
        let window = event_loop.create_window(attributes).map_err(|e| window_error(&e))?;
        let display = event_loop.display_handle().map_err(|e| window_error(&e))?.as_raw();
        let extensions = ash_window::enumerate_required_extensions(display).map_err(|result| GameError::Vulkan {
            call: "vkEnumerateInstanceExtensionProperties (surface extensions)",
            result,
        })?;
        let context = Context::new(validation_mode(self.args), extensions)?;
        let window_handle = window.window_handle().map_err(|e| window_error(&e))?.as_raw();
        // SAFETY: the live window's and event loop's handles; the surface goes (field order of
        // `Running`) before the window and the instance.
        let handle = vk_check("vkCreate*SurfaceKHR", unsafe {
            ash_window::create_surface(&context.entry, &context.instance, display, window_handle, None)
        })?;
        let surface = Surface { loader: ash::khr::surface::Instance::new(&context.entry, &context.instance), handle };
        // SAFETY: a query on live handles.
        let supported = unsafe {
            surface.loader.get_physical_device_surface_support(context.physical, context.queue_family, surface.handle)
        }
        .unwrap_or(false);
        if !supported {
            return Err(GameError::Window(format!("{} cannot present to this window", context.device_name)));
        }
        let size = window.inner_size();
        let swapchain = Swapchain::new(&context, &surface, (size.width, size.height), None)?;
        let plan = crate::warmup::Plan::from_args(self.args)?;
        let renderer = Renderer::new(&context, self.shaders, swapchain.format, swapchain.extent, self.args, &plan)?;
        let now = Instant::now();
        Ok(Running {
            renderer,
            swapchain: Some(swapchain),
            surface,
            context,
            window,
            world: World::new(self.args.seed),
            keys: Keys::default(),
            frames: 0,
            play: crate::warmup::PlayLog::default(),
            started: now,
            last_step: now,
            lag: Duration::ZERO,
        })
    }

    /// Steps the game and draws one frame; returns whether to go on.
    fn frame(&mut self) -> Result<bool, GameError> {
        let Some(running) = &mut self.running else { return Ok(true) };
        let frame_start = Instant::now();
        let size = running.window.inner_size();
        if size.width == 0 || size.height == 0 {
            return Ok(true); // minimized
        }
        running.renderer.wait()?;
        let stale =
            running.swapchain.as_ref().is_none_or(|s| s.extent.width != size.width || s.extent.height != size.height);
        if stale {
            recreate(running)?;
        }
        let Some(swapchain) = &running.swapchain else { return Ok(true) };
        let Some((index, ready, rendered)) = swapchain.acquire()? else {
            recreate(running)?;
            return Ok(true);
        };
        // Fixed 60 Hz steps; one per frame when a frame count makes the run reproducible.
        let now = Instant::now();
        running.lag = (running.lag + (now - running.last_step)).min(Duration::from_millis(250));
        running.last_step = now;
        let step = Duration::from_secs_f32(STEP);
        let input = running.keys.input();
        if self.args.frames.is_some() {
            running.world.step(&input);
        } else {
            while running.lag >= step {
                running.world.step(&input);
                running.lag -= step;
            }
        }
        running.renderer.cycle_post(self.shaders, self.args.post_cycle, running.frames)?;
        running.frames += 1;
        let last = self.args.frames.is_some_and(|n| running.frames >= n);
        let want_screenshot = last && self.args.screenshot.is_some();
        if want_screenshot && !swapchain.readable {
            return Err(GameError::Screenshot {
                path: self.args.screenshot.clone().unwrap_or_default(),
                reason: "this surface's swapchain images cannot be copied; take it with --headless".to_owned(),
            });
        }
        let (image, view) = (swapchain.images[index as usize], swapchain.views[index as usize]);
        let layout =
            if want_screenshot { vk::ImageLayout::TRANSFER_SRC_OPTIMAL } else { vk::ImageLayout::PRESENT_SRC_KHR };
        let target = Target { image, view, extent: swapchain.extent, final_layout: layout };
        let readback = want_screenshot.then(|| Buffer::readback(&running.context, target.extent)).transpose()?;
        let news = self.reload.as_deref_mut().map(|reload| reload.before_frame(self.shaders, &mut running.renderer));
        let news = news.transpose()?.unwrap_or_default();
        let sync = FrameSync { wait: Some(ready), signal: Some(rendered) };
        running.renderer.draw(&running.context, &running.world, target, sync, readback.as_ref())?;
        running.play.drawn(&running.renderer, frame_start);
        if let (Some(buffer), Some(path)) = (&readback, &self.args.screenshot) {
            running.renderer.wait()?;
            crate::screenshot::write_png(path, &buffer.read(), target.extent, swapchain.format)?;
            return Ok(false);
        }
        if let Some(reload) = self.reload.as_deref_mut() {
            reload.after_frame(&news, &running.renderer, None)?;
        }
        if !swapchain.present(running.context.queue, index, rendered)? {
            recreate(running)?;
        }
        if running.frames.is_multiple_of(30) || !news.landed.is_empty() || news.capture {
            let mut title = format!(
                "Rock Storm (smolv example): score {}, wave {}, post {:?} (P to change)",
                running.world.score,
                running.world.wave,
                running.renderer.post()
            );
            if let Some(status) = self.reload.as_deref().and_then(HotReload::status) {
                title.push_str(&format!(" | {status}"));
            }
            running.window.set_title(&title);
        }
        Ok(!last)
    }

    fn key(&mut self, event: &KeyEvent, event_loop: &ActiveEventLoop) -> Result<(), GameError> {
        let Some(running) = &mut self.running else { return Ok(()) };
        let down = event.state == ElementState::Pressed;
        let PhysicalKey::Code(code) = event.physical_key else { return Ok(()) };
        match code {
            KeyCode::ArrowLeft | KeyCode::KeyA => running.keys.left = down,
            KeyCode::ArrowRight | KeyCode::KeyD => running.keys.right = down,
            KeyCode::ArrowUp | KeyCode::KeyW => running.keys.thrust = down,
            KeyCode::Space => running.keys.fire = down,
            KeyCode::KeyP if down && !event.repeat => {
                let next = running.renderer.post().next();
                let start = Instant::now();
                running.renderer.set_post(self.shaders, next)?;
                println!(
                    "post-processing: {next:?} (ubershader specialized and fast-linked in {:.2} ms)",
                    start.elapsed().as_secs_f64() * 1e3
                );
            }
            KeyCode::Escape if down => self.finish(event_loop),
            _ => {}
        }
        Ok(())
    }

    /// Prints nothing itself: builds the outcome and ends the event loop.
    fn finish(&mut self, event_loop: &ActiveEventLoop) {
        if let Some(mut running) = self.running.take() {
            let run = RunSummary {
                mode: "window",
                size: running.swapchain.as_ref().map_or(self.args.size, |s| (s.extent.width, s.extent.height)),
                frames: running.frames,
                frame_time: running.started.elapsed(),
                score: running.world.score,
                wave: running.world.wave,
                screenshot: self.args.screenshot.as_deref().filter(|_| running.frames == self.args.frames.unwrap_or(0)),
            };
            match report::outcome(self.shaders, &mut running.renderer, &running.context, &running.play, run) {
                Ok(outcome) => self.outcome = Some(outcome),
                Err(e) => return self.fail(e, event_loop),
            }
            // `running` drops here: GPU idle, then everything in order.
        }
        event_loop.exit();
    }

    fn fail(&mut self, error: GameError, event_loop: &ActiveEventLoop) {
        self.error = Some(error);
        self.running = None;
        event_loop.exit();
    }
}

fn recreate(running: &mut Running) -> Result<(), GameError> {
    running.context.wait_idle()?;
    let size = running.window.inner_size();
    let old = running.swapchain.take();
    // The renderer follows the new extent on the next draw.
    running.swapchain =
        Some(Swapchain::new(&running.context, &running.surface, (size.width, size.height), old.as_ref())?);
    Ok(())
}

impl ApplicationHandler for App<'_> {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.running.is_some() || self.error.is_some() {
            return;
        }
        match self.start(event_loop) {
            Ok(running) => self.running = Some(running),
            Err(e) => self.fail(e, event_loop),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _window: WindowId, event: WindowEvent) {
        // Whether to go on.
        let result = match event {
            WindowEvent::CloseRequested => Ok(false),
            WindowEvent::KeyboardInput { event, .. } => self.key(&event, event_loop).map(|()| true),
            WindowEvent::RedrawRequested => self.frame(),
            _ => Ok(true),
        };
        match result {
            Ok(true) => {}
            Ok(false) => self.finish(event_loop),
            Err(e) => self.fail(e, event_loop),
        }
    }

    fn about_to_wait(&mut self, _event_loop: &ActiveEventLoop) {
        if let Some(running) = &self.running {
            running.window.request_redraw();
        }
    }
}
