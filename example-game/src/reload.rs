//! `--watch`: hot reload of the game's shaders (feature `hot-reload`). smolv-reload publishes each
//! edit's new SPIR-V; before each frame [`HotReload::before_frame`] decodes the changed shaders
//! and has the manager rebuild their pipelines in the background, then prints
//! `reloaded <shaders> in <N> ms` once they are in. Errors and refusals keep the old pipelines.
//! Without the feature [`HotReload`] cannot exist.

#[cfg(feature = "hot-reload")]
mod bench;

use crate::cli::Args;
use crate::error::GameError;
use crate::render::Renderer;
use crate::shaders::Shaders;

/// A running watcher, the reloads being rebuilt, and the last thing it reported.
#[cfg(feature = "hot-reload")]
pub(crate) struct HotReload {
    watcher: smolv_reload::Watcher,
    status: Option<String>,
    pending: Vec<Pending>,
    /// `--reload-screenshots`: where the frame after each reload goes.
    screenshots: Option<std::path::PathBuf>,
    taken: u64,
    bench: Option<bench::Bench>,
}

/// The shaders of one edit, whose pipelines are being rebuilt.
#[cfg(feature = "hot-reload")]
struct Pending {
    names: Vec<String>,
    seen: std::time::Instant,
    rebuild: crate::render::Rebuild,
}

/// Without the `hot-reload` feature there is never a watcher.
#[cfg(not(feature = "hot-reload"))]
pub(crate) enum HotReload {}

/// A frame read back for `--reload-screenshots`: the buffer, the frame's size and format.
type Readback<'a> = (&'a crate::gpu::Buffer, ash::vk::Extent2D, ash::vk::Format);

/// What [`HotReload::before_frame`] says about the frame about to be drawn.
#[derive(Debug, Default)]
pub(crate) struct FrameNews {
    /// Shaders whose new pipelines this frame is the first to use.
    pub(crate) landed: Vec<String>,
    /// For each shader of `landed`, the time from its edit seen to its pipelines ready.
    #[cfg(feature = "hot-reload")]
    pub(crate) ready_in: Vec<(String, std::time::Duration)>,
    /// Whether to read this frame back (`--reload-screenshots`).
    pub(crate) capture: bool,
}

#[cfg(not(feature = "hot-reload"))]
impl HotReload {
    /// `--watch` in a build without the feature: how to get one.
    pub(crate) fn start(args: &Args) -> Result<Option<Self>, GameError> {
        if args.watch {
            return Err(GameError::HotReload(
                "this build has no hot reload; run `cargo run -p example-game --features hot-reload -- --watch`"
                    .to_owned(),
            ));
        }
        Ok(None)
    }

    pub(crate) fn before_frame(&mut self, _: &mut Shaders, _: &mut Renderer) -> Result<FrameNews, GameError> {
        match *self {}
    }

    pub(crate) fn after_frame(
        &mut self,
        _: &FrameNews,
        _: &Renderer,
        _: Option<Readback<'_>>,
    ) -> Result<bool, GameError> {
        match *self {}
    }

    pub(crate) fn status(&self) -> Option<&str> {
        match *self {}
    }
}

#[cfg(feature = "hot-reload")]
impl HotReload {
    /// Starts watching if `--watch` asks for it.
    pub(crate) fn start(args: &Args) -> Result<Option<Self>, GameError> {
        if !args.watch {
            return Ok(None);
        }
        let dir =
            args.shader_dir.clone().unwrap_or_else(|| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders"));
        let watcher = smolv_reload::Reloader::new()
            .set(&crate::shaders::SHADERS)
            .shader_dir(&dir)
            .quiet(true)
            .start()
            .map_err(|e| GameError::HotReload(e.to_string()))?;
        eprintln!("watching {} for shader edits", dir.display());
        let bench = args.reload_bench.then(|| bench::Bench::new(&dir)).transpose()?;
        Ok(Some(Self {
            watcher,
            status: None,
            pending: Vec::new(),
            screenshots: args.reload_screenshots.clone(),
            taken: 0,
            bench,
        }))
    }

    /// Before a frame: takes the watcher's events, has the renderer rebuild the pipelines of the
    /// reloaded shaders, and prints the reloads whose pipelines are all in.
    pub(crate) fn before_frame(
        &mut self,
        shaders: &mut Shaders,
        renderer: &mut Renderer,
    ) -> Result<FrameNews, GameError> {
        let mut news = FrameNews::default();
        if let Some(bench) = &mut self.bench {
            bench.before_frame()?;
        }
        let mut published: Option<std::time::Instant> = None;
        for event in self.watcher.events().try_iter().collect::<Vec<_>>() {
            match event {
                smolv_reload::Event::Reloaded { seen, .. } => {
                    published = Some(published.map_or(seen, |earliest| earliest.min(seen)));
                }
                event => {
                    eprintln!("{event}");
                    self.status = Some(event.summary());
                    news.capture = true;
                }
            }
        }
        // An edit's shaders are published together, before its first event: rebuild each
        // pipeline once, with all of its new stages.
        if let Some(seen) = published {
            let previous = shaders.refresh_changed()?;
            let names: Vec<String> = previous.iter().map(|shader| shader.name.clone()).collect();
            if !names.is_empty() {
                match renderer.rebuild(shaders, &names) {
                    Ok(rebuild) => self.pending.push(Pending { names, seen, rebuild }),
                    Err(error) => {
                        shaders.restore(previous);
                        self.report(format!("kept the previous {}: {error}", names.join(", ")));
                        news.capture = true;
                    }
                }
            }
        }
        let mut still = Vec::new();
        for pending in std::mem::take(&mut self.pending) {
            match pending.rebuild.state() {
                crate::render::RebuildState::Building => still.push(pending),
                crate::render::RebuildState::Ready(at) => {
                    let ready_in = at.saturating_duration_since(pending.seen);
                    self.report(format!("reloaded {} in {} ms", pending.names.join(", "), ready_in.as_millis()));
                    news.ready_in.extend(pending.names.iter().map(|name| (name.clone(), ready_in)));
                    news.landed.extend(pending.names);
                    news.capture = true;
                }
                crate::render::RebuildState::Failed(why) => {
                    self.report(format!("kept the previous {}: {why}", pending.names.join(", ")));
                    news.capture = true;
                }
            }
        }
        self.pending = still;
        news.capture &= self.screenshots.is_some();
        Ok(news)
    }

    /// After a frame: writes the `--reload-screenshots` image, times the bench; returns whether
    /// to go on.
    pub(crate) fn after_frame(
        &mut self,
        news: &FrameNews,
        renderer: &Renderer,
        readback: Option<Readback<'_>>,
    ) -> Result<bool, GameError> {
        if news.capture
            && let (Some(dir), Some((buffer, extent, format))) = (&self.screenshots, readback)
        {
            renderer.wait()?;
            self.taken += 1;
            let path = dir.join(format!("reload-{}.png", self.taken));
            crate::screenshot::write_png(&path, &buffer.read(), extent, format)?;
            eprintln!("screenshot {}", path.display());
        }
        match &mut self.bench {
            Some(bench) => bench.after_frame(news, renderer),
            None => Ok(true),
        }
    }

    /// Prints `line` and shows it in the title.
    fn report(&mut self, line: String) {
        eprintln!("{line}");
        self.status = Some(line);
    }

    /// The last reload or error, for the window title.
    pub(crate) fn status(&self) -> Option<&str> {
        self.status.as_deref()
    }
}
