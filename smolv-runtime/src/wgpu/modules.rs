//! A program's shader modules, made again when hot reload publishes new words.

use super::error::WgpuError;
use super::module::create_shader_module;
use super::scope::ready;
use crate::shader::Shader;
#[cfg(feature = "hot-reload")]
use crate::shader::hot_reload::generation;

/// One shader module per shader, kept with the shader version it was made from; with
/// `hot-reload`, [`refresh`](Self::refresh) remakes those with newly published words.
///
/// ```no_run
/// # fn frame(
/// #     device: &wgpu::Device,
/// #     vertex: &'static smolv_runtime::Shader,
/// #     fragment: &'static smolv_runtime::Shader,
/// #     // Your pipeline, made from a vertex and a fragment module.
/// #     build: impl Fn(&wgpu::Device, &wgpu::ShaderModule, &wgpu::ShaderModule) -> wgpu::RenderPipeline,
/// # ) -> Result<(), smolv_runtime::wgpu::WgpuError> {
/// use smolv_runtime::wgpu::ShaderModules;
/// let mut modules = ShaderModules::new();
/// let (vs, fs) = (modules.get(device, vertex)?.clone(), modules.get(device, fragment)?.clone());
/// let mut pipeline = build(device, &vs, &fs);
/// loop {
///     // once a frame: cheap when nothing was published
///     let refreshed = modules.refresh(device);
///     for (shader, error) in &refreshed.failed {
///         eprintln!("{shader}: {error}"); // the old module stays
///     }
///     if !refreshed.changed.is_empty() {
///         // modules are handles: clone them to hold two at once
///         let vs = modules.get(device, vertex)?.clone();
///         pipeline = build(device, &vs, modules.get(device, fragment)?);
///     }
///     // ... draw with `pipeline`
/// #   break;
/// }
/// # let _ = pipeline;
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Default)]
pub struct ShaderModules<'a> {
    entries: Vec<Entry<'a>>,
    /// Hot reload's program-wide count when `refresh` last looked.
    seen: u64,
}

#[derive(Debug)]
struct Entry<'a> {
    shader: &'a Shader,
    /// The shader version the module was made from (or refused at).
    version: u64,
    module: wgpu::ShaderModule,
}

/// What [`ShaderModules::refresh`] did.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Refreshed {
    /// The shaders that have a new module: rebuild their pipelines.
    pub changed: Vec<String>,
    /// The shaders whose new words wgpu refused, with why; each keeps its previous module.
    pub failed: Vec<(String, WgpuError)>,
}

impl<'a> ShaderModules<'a> {
    /// An empty cache.
    ///
    /// ```
    /// let modules = smolv_runtime::wgpu::ShaderModules::new();
    /// assert!(modules.is_empty());
    /// ```
    pub fn new() -> Self {
        Self { entries: Vec::new(), seen: generation() }
    }

    /// How many modules it holds.
    ///
    /// ```
    /// assert_eq!(smolv_runtime::wgpu::ShaderModules::new().len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it holds none.
    ///
    /// ```
    /// assert!(smolv_runtime::wgpu::ShaderModules::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The module of `shader` (by address), made on first use.
    ///
    /// ```no_run
    /// # fn example(device: &wgpu::Device, sky: &'static smolv_runtime::Shader) -> Result<(), smolv_runtime::wgpu::WgpuError> {
    /// let mut modules = smolv_runtime::wgpu::ShaderModules::new();
    /// let module = modules.get(device, sky)?;
    /// # let _ = module;
    /// # Ok(())
    /// # }
    /// ```
    pub fn get(&mut self, device: &wgpu::Device, shader: &'a Shader) -> Result<&wgpu::ShaderModule, WgpuError> {
        if let Some(at) = self.entries.iter().position(|e| std::ptr::eq(e.shader, shader)) {
            return Ok(&self.entries[at].module);
        }
        let version = shader.version();
        let module = create_shader_module(device, shader)?;
        self.entries.push(Entry { shader, version, module });
        Ok(&self.entries[self.entries.len() - 1].module)
    }

    /// Makes a new module for every shader whose words changed (one atomic load when none did).
    ///
    /// ```no_run
    /// # fn example(device: &wgpu::Device, modules: &mut smolv_runtime::wgpu::ShaderModules<'_>) {
    /// if !modules.refresh(device).changed.is_empty() {
    ///     // rebuild the pipelines
    /// }
    /// # }
    /// ```
    pub fn refresh(&mut self, device: &wgpu::Device) -> Refreshed {
        let mut refreshed = Refreshed::default();
        let now = generation();
        if now == self.seen {
            return refreshed;
        }
        self.seen = now;
        for entry in &mut self.entries {
            let version = entry.shader.version();
            if version == entry.version {
                continue;
            }
            entry.version = version;
            let name = entry.shader.name().to_owned();
            match checked_module(device, entry.shader) {
                Ok(module) => {
                    entry.module = module;
                    refreshed.changed.push(name);
                }
                Err(error) => refreshed.failed.push((name, error)),
            }
        }
        refreshed
    }
}

/// A module of `shader`, or the validation error wgpu raised making it.
fn checked_module(device: &wgpu::Device, shader: &Shader) -> Result<wgpu::ShaderModule, WgpuError> {
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let module = create_shader_module(device, shader);
    let error = ready(scope.pop());
    let module = module?;
    match error {
        None => Ok(module),
        Some(error) => Err(WgpuError::Module { shader: shader.name().to_owned(), message: error.to_string() }),
    }
}

#[cfg(not(feature = "hot-reload"))]
fn generation() -> u64 {
    0
}
