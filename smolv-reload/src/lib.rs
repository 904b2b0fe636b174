//! # smolv-reload
//!
//! Shader hot reload for [smolv](https://github.com/smolv-rs/smolv): edit a shader while the game
//! runs and see it within frames. A debounced file watcher ([notify](https://docs.rs/notify))
//! sees a save, recompiles every shader whose source or include changed, in worker processes,
//! through the same code and settings as `smolv-build`, and publishes the new SPIR-V to
//! smolv-runtime: [`Shader::decode`](smolv_runtime::Shader::decode) returns it from then on,
//! [`Shader::version`](smolv_runtime::Shader::version) counts the reloads, and
//! [`hot_reload::subscribe`](smolv_runtime::hot_reload::subscribe) tells the program.
//!
//! One edit, one publish: the shaders that change together (saves within the
//! [debounce](Reloader::debounce), every shader one include edit touches) are published together
//! ([`hot_reload::publish_together`](smolv_runtime::hot_reload::publish_together)), and only if
//! every one of them compiled and fits; otherwise each keeps its previous SPIR-V
//! ([`Event::HeldBack`] for those that were fine).
//!
//! A broken edit prints every error on stderr as `shader error: path:line:col: message` and keeps
//! the previous SPIR-V; an edit that compiled prints `compiled <shader name> in <N> ms`. Nothing
//! panics. Every file a compile reads is watched from then on. An edit that moves a block's bytes
//! is refused as [`Event::RebuildIncompatible`] (the program was built with the old layout), each
//! [`LayoutChange`] naming the block, its generated Rust type, and what moved.
//!
//! smolv-runtime keeps only a small hook behind its own `hot-reload` feature (it cannot depend on
//! smolv-build, which depends on it): a release build without the feature has no watcher, no
//! compiler and no source paths.
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
//! The README walks from an embedded shader to a rebuilt pipeline, with ash and with wgpu.
//!
//! ## Compiler crashes
//!
//! glslang, SPIRV-Tools' optimizer and naga run in worker processes (the game's own binary, which
//! [`worker_main`] at the top of `main` turns into a worker): a save that crashes the compiler
//! ends a worker, not the game, and the old pipeline stays. The [`Watcher`] keeps its workers
//! while it runs, and replaces a crashed one in the background. Without the call, the compilers
//! run in the game's process (and [`Reloader::start`] says so once on stderr, unless
//! `SMOLV_WORKERS=0` asked for it).
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

/// Makes this program serve as a shader compiler worker when hot reload starts it as one; call it
/// first in `main`. In the game it returns at once; in a worker it never returns
/// (`smolv_build::Config::worker_main`).
///
/// ```no_run
/// // The first line of the game's `main`:
/// smolv_reload::worker_main();
/// // ... the game.
/// ```
pub fn worker_main() {
    smolv_build::Config::worker_main();
}
