//! # smolv-reload
//!
//! Shader hot reload for [smolv](https://github.com/smolv-rs/smolv): edit a
//! shader while the game runs and see it within frames. A debounced file
//! watcher ([notify](https://docs.rs/notify)) sees a save, recompiles every
//! shader whose source or include changed, in worker processes (see
//! [Compiler crashes](#compiler-crashes)), through the same code as
//! `smolv-build` (frontend, `spirv-opt`, build-time specialization, strip,
//! SMOL-V round trip, with the settings the build recorded), and
//! publishes the new SPIR-V to smolv-runtime:
//! [`Shader::decode`](smolv_runtime::Shader::decode) returns it from then
//! on, [`Shader::version`](smolv_runtime::Shader::version) counts the
//! reloads, and [`hot_reload::subscribe`](smolv_runtime::hot_reload::subscribe)
//! tells the program.
//!
//! One edit, one publish: the shaders that change together (saves within
//! the [debounce](Reloader::debounce), every shader one include edit
//! touches) are published together
//! ([`hot_reload::publish_together`](smolv_runtime::hot_reload::publish_together)),
//! and only if every one of them compiled and fits; otherwise each keeps
//! its previous SPIR-V ([`Event::HeldBack`] for those that were fine). So
//! a pipeline is rebuilt once, with all of its new stages.
//!
//! A broken edit prints every error on stderr as
//! `shader error: path:line:col: message` (the build's format) and keeps
//! the previous SPIR-V; saving a fixed file recovers. An edit that
//! compiled prints `compiled <shader name> in <N> ms`: its SPIR-V is
//! published, and the program's pipelines are next. Nothing panics. Every
//! file a compile reads is watched from then on, so an include that an
//! edit adds, from any directory, reloads its shaders when it changes.
//!
//! An edit that moves a block's bytes is refused as
//! [`Event::RebuildIncompatible`]: the program was built with the old layout
//! (its generated Rust types), so the shader keeps its previous SPIR-V,
//! and each [`LayoutChange`] names the block, the generated type it no
//! longer matches, and what moved. A module whose layout cannot be read
//! is refused too, with the reason.
//!
//! ## Why a crate of its own
//!
//! Recompiling needs smolv-build, and smolv-build depends on smolv-runtime
//! (reflection, the codec, the specializer). smolv-runtime cannot depend
//! on smolv-build, not even as an optional dependency behind a feature:
//! Cargo refuses the cycle. So the graph is
//!
//! ```text
//! game ──(hot-reload feature)──▶ smolv-reload ──▶ smolv-build ──▶ smolv-runtime
//!   └──────────────────────────────────────────────────────────────▶ smolv-runtime
//! ```
//!
//! and smolv-runtime keeps only a small hook behind its own `hot-reload`
//! feature: each embedded shader's origin (source file, includes, the
//! build's recipe) and its latest published words. A release build
//! without the feature has neither the hook nor this crate: no watcher, no
//! compiler, no source paths.
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
//! `cargo run --features hot-reload` then reloads on every save.
//!
//! ## From an embedded shader to a new pipeline
//!
//! The README walks through both, each from the embedded shaders to a
//! rebuilt pipeline:
//!
//! - ash: decode the shader's latest words
//!   ([`Shader::decode`](smolv_runtime::Shader::decode)), read their
//!   interface (`Reflection::from_spirv`), make a `GraphicsProgram` of the
//!   stages and hand it to smolv-runtime's `vulkan::PipelineManager::rebuild`,
//!   which swaps the new pipeline into the slot the game draws with. The
//!   README's file is `tests/walkthrough/ash.rs`, which a test runs on
//!   lavapipe under the validation layer.
//! - wgpu: smolv-runtime's `wgpu::ShaderModules::refresh` makes a new
//!   module for each shader published since, and says which; make the
//!   pipelines that use them again.
//!
//! ## Compiler crashes
//!
//! glslang (GLSL, HLSL), SPIRV-Tools' optimizer and naga (WGSL) run in
//! worker processes: the game's own binary, started again, which
//! [`worker_main`] at the top of `main` turns into a compiler worker before
//! the game starts. A save that crashes the compiler then ends a worker,
//! not the game: the reload message names the shader and the signal, and
//! the old pipeline stays. The [`Watcher`] keeps its workers while it
//! runs (smolv-build's `recipe::CompilerPool`): the first
//! starts with [`Reloader::start`], a save does not start the binary
//! again, and a worker that crashed is replaced in the background.
//! Without the call, the compilers run in the game's process (and
//! [`Reloader::start`] says so once on stderr, unless `SMOLV_WORKERS=0`
//! asked for it). `spirv-opt` and `slangc` run as child processes, as in
//! the build.
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

/// Makes this program serve as a shader compiler worker when hot reload
/// starts it as one; call it first in `main`, before anything else runs.
///
/// Hot reload compiles in worker processes of the game's own binary, so a
/// compiler crash on a half-typed save ends a worker, not the game. This
/// call returns at once in the game itself; in a worker it compiles the
/// shaders its parent sends and exits when the game does, so nothing after
/// it runs there. It is `smolv_build::Config::worker_main`.
///
/// ```no_run
/// // The first line of the game's `main`:
/// smolv_reload::worker_main();
/// // ... the game.
/// ```
pub fn worker_main() {
    smolv_build::Config::worker_main();
}
