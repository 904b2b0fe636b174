//! Everything that can stop the game, each with what to do about it.

use ash::vk;

/// Why the game could not run.
#[derive(Debug, thiserror::Error)]
pub(crate) enum GameError {
    /// No Vulkan loader on the machine.
    #[error(
        "cannot load the Vulkan library ({0}); install a Vulkan loader and driver, \
         for example `apt-get install libvulkan1 mesa-vulkan-drivers` (Mesa's lavapipe runs on any CPU)"
    )]
    NoLoader(String),
    /// A loader but no usable device.
    #[error(
        "no Vulkan device {0}; install a Vulkan driver, for example `apt-get install mesa-vulkan-drivers` \
         for Mesa's lavapipe, which runs on any CPU"
    )]
    NoDevice(String),
    /// `--validation` was asked for but the layer is missing.
    #[error(
        "the Khronos validation layer is not installed; install it (`apt-get install vulkan-validationlayers`) \
         or run with --no-validation"
    )]
    NoValidationLayer,
    /// A Vulkan call failed.
    #[error("{call} failed: {result}")]
    Vulkan { call: &'static str, result: vk::Result },
    /// Building pipelines or layouts failed.
    #[error("pipelines: {0}")]
    Pipelines(#[from] smolv_runtime::vulkan::VulkanError),
    /// An embedded shader could not be read.
    #[error("embedded shader {name}: {reason}; rebuild the game (`cargo clean -p example-game`)")]
    Shader { name: String, reason: String },
    /// The screenshot could not be written.
    #[error("cannot write the screenshot {path}: {reason}")]
    Screenshot { path: std::path::PathBuf, reason: String },
    /// The window system failed.
    #[error("window: {0}; run with --headless where there is no display")]
    Window(String),
    /// A pipeline recording that cannot be read or written.
    #[error("pipeline warm-up: {0}")]
    Warmup(String),
    /// `--watch` could not start.
    #[error("hot reload: {0}")]
    HotReload(String),
    /// The validation layer reported problems.
    #[error("the validation layer reported {0} message(s) (printed above)")]
    Validation(usize),
}

/// Turns an ash result into a [`GameError::Vulkan`] naming the call.
pub(crate) fn vk_check<T>(call: &'static str, result: Result<T, vk::Result>) -> Result<T, GameError> {
    result.map_err(|result| GameError::Vulkan { call, result })
}
