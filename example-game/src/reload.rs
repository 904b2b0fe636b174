//! `--watch`: hot reload of the game's shaders (feature `hot-reload`).
//!
//! smolv-reload watches the sources (the game's `shaders/`, or
//! `--shader-dir`), recompiles every edit and every shader that includes
//! an edited file with the settings `build.rs` used, and publishes the new
//! SPIR-V to the embedded set; it prints `reloaded <shader> in <N> ms`, or
//! each `shader error: path:line:col: message` and keeps the old shader.
//! [`HotReload::poll`] tells the frame loop which shaders changed, and
//! [`Shaders::refresh`](crate::shaders::Shaders::refresh) decodes them
//! again for the pipelines built from them.
//!
//! Without the feature [`HotReload`] cannot exist, and `--watch` says how
//! to build the game with it.

use crate::cli::Args;
use crate::error::GameError;

/// A running watcher, and the last thing it reported (for the window
/// title).
#[cfg(feature = "hot-reload")]
pub(crate) struct HotReload {
    watcher: smolv_reload::Watcher,
    status: Option<String>,
}

/// Without the `hot-reload` feature there is never a watcher.
#[cfg(not(feature = "hot-reload"))]
pub(crate) enum HotReload {}

impl HotReload {
    /// Starts watching if `--watch` asks for it.
    #[cfg(feature = "hot-reload")]
    pub(crate) fn start(args: &Args) -> Result<Option<Self>, GameError> {
        if !args.watch {
            return Ok(None);
        }
        // Only in a hot-reload build: the source path is in the binary.
        let dir =
            args.shader_dir.clone().unwrap_or_else(|| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders"));
        let watcher = smolv_reload::Reloader::new()
            .set(crate::shaders::embedded_set())
            .shader_dir(&dir)
            .start()
            .map_err(|e| GameError::HotReload(e.to_string()))?;
        eprintln!("watching {} for shader edits", dir.display());
        Ok(Some(Self { watcher, status: None }))
    }

    /// `--watch` in a build without the feature: how to get one.
    #[cfg(not(feature = "hot-reload"))]
    pub(crate) fn start(args: &Args) -> Result<Option<Self>, GameError> {
        if args.watch {
            return Err(GameError::HotReload(
                "this build has no hot reload; run `cargo run -p example-game --features hot-reload -- --watch`"
                    .to_owned(),
            ));
        }
        Ok(None)
    }

    /// The shaders reloaded since the last call, in order; the status line
    /// follows the last event.
    #[allow(dead_code, reason = "the frame loops call it once the pipeline manager rebuilds pipelines (#17)")]
    pub(crate) fn poll(&mut self) -> Vec<String> {
        #[cfg(feature = "hot-reload")]
        {
            let mut reloaded = Vec::new();
            for event in self.watcher.events().try_iter() {
                self.status = Some(event.summary());
                if let smolv_reload::Event::Reloaded { name, .. } = event {
                    reloaded.push(name);
                }
            }
            reloaded
        }
        #[cfg(not(feature = "hot-reload"))]
        match *self {}
    }

    /// The last reload or error, for the window title.
    #[allow(dead_code, reason = "the window shows it once the pipeline manager rebuilds pipelines (#17)")]
    pub(crate) fn status(&self) -> Option<&str> {
        #[cfg(feature = "hot-reload")]
        {
            self.status.as_deref()
        }
        #[cfg(not(feature = "hot-reload"))]
        match *self {}
    }
}
