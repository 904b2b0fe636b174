//! # smolv-reload
//!
//! Shader hot reload for [smolv](https://github.com/smolv-rs/smolv): a debounced file watcher
//! recompiles every shader whose source or include changed, as `smolv-build` did, and publishes
//! the SPIR-V through [`smolv_runtime::hot_reload`]. One edit is published together, only if all
//! of it compiled and fit ([`Event::HeldBack`], [`Event::RebuildIncompatible`]).
//!
//! ## Turning it on in a game
//!
//! ```toml
//! [features]
//! hot-reload = ["smolv-runtime/hot-reload", "dep:smolv-reload"]
//!
//! [dependencies]
//! smolv-runtime = "0.1"
//! smolv-reload = { version = "0.1", optional = true }
//!
//! [build-dependencies]
//! smolv-build = "0.1"
//! ```
//!
//! ```text
//! // Needs a build script that runs smolv-build (the workspace's example-game does).
//! static SHADERS: smolv_runtime::ShaderSet = smolv_runtime::include_shaders!();
//! static POST: &smolv_runtime::Shader = smolv_runtime::include_shader!("post.frag");
//!
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     // First in main: this binary is also hot reload's compiler worker.
//!     smolv_reload::worker_main();
//!     let watcher = smolv_reload::Reloader::new()
//!         .set(&SHADERS) // every shader of an `include_shaders!` set
//!         .shader(POST) // one `include_shader!`
//!         .start()?;
//!     let mut built = POST.version();
//!     loop {
//!         if POST.version() != built {
//!             built = POST.version();
//!             // The new SPIR-V: decode it, reflect it, rebuild the
//!             // pipeline; on a refusal keep the old one and play on.
//!             if let Ok(words) = POST.decode() { /* ... */ }
//!         }
//!         for event in watcher.events().try_iter() {
//!             println!("{}", event.summary()); // for the window title
//!         }
//!     }
//! }
//! ```
//!
//! ## Compiler crashes
//!
//! The compilers run in worker processes (the game's binary, through [`worker_main`]), so a crash
//! ends a worker, which the [`Watcher`] replaces; without the call they run in the game's process.
#![deny(missing_docs)]
#![deny(unsafe_code)]

mod error;
mod event;
mod layout;
mod rebuild;
mod reloader;
mod targets;
mod watch;

pub use error::ReloadError;
pub use event::Event;
pub use layout::LayoutChange;
pub use reloader::Reloader;
pub use watch::Watcher;

/// Makes this program a shader compiler worker when hot reload starts it as one; call it first in
/// `main`. In the game it returns at once; in a worker it never returns.
///
/// ```no_run
/// // The first line of the game's `main`:
/// smolv_reload::worker_main();
/// // ... the game.
/// ```
pub fn worker_main() {
    smolv_build::Config::worker_main();
}
