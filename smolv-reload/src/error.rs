//! Why a reloader cannot start.

use std::path::PathBuf;

/// Why [`Reloader::start`](crate::Reloader::start) failed.
///
/// ```
/// let error = smolv_reload::ReloadError::NoOrigin { name: "post.frag".into() };
/// assert!(error.to_string().contains("hot-reload"), "{error}");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReloadError {
    /// The shader was not embedded with smolv-runtime's `hot-reload` feature.
    #[error(
        "shader {name} does not know its source file: embed it with smolv-runtime's `hot-reload` feature on \
         (for example through a `hot-reload` feature of the game: `hot-reload = [\"smolv-runtime/hot-reload\", \
         \"dep:smolv-reload\"]`) and rebuild"
    )]
    NoOrigin {
        /// The shader's name.
        name: String,
    },
    /// A shader's recipe cannot be read.
    #[error("shader {name}: {source}")]
    Recipe {
        /// The shader's name.
        name: String,
        /// What went wrong.
        source: smolv_build::Error,
    },
    /// The directory given to [`Reloader::shader_dir`](crate::Reloader::shader_dir) cannot be used.
    #[error("the shader directory {} cannot be used ({source}); pass a directory that holds the game's shaders", .path.display())]
    ShaderDir {
        /// The directory.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file watcher could not start or watch a directory.
    #[error("cannot watch {} for shader edits: {source}", .path.display())]
    Watch {
        /// The directory.
        path: PathBuf,
        /// The watcher's error.
        source: notify::Error,
    },
    /// Nothing was given to watch.
    #[error("no shaders to watch: pass a set or shaders to Reloader::set / Reloader::shader")]
    NothingToWatch,
    /// The reloader's thread could not start.
    #[error("cannot start the reloader's thread: {0}")]
    Thread(std::io::Error),
}
