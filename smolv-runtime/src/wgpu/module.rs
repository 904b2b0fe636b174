//! Shader modules from shaders: WGSL where the build shipped it, else SPIR-V.

use std::borrow::Cow;

use super::error::WgpuError;
use crate::shader::Shader;
use crate::shader_error::ShaderError;

/// What a shader gives wgpu: the WGSL the build shipped, or its SPIR-V words.
///
/// ```
/// use smolv_runtime::wgpu::ModuleSource;
/// # let set = smolv_runtime::shader::doc_example_raw_set();
/// let shader = set.get("blur.comp")?;
/// match ModuleSource::of(shader)? {
///     ModuleSource::Wgsl(text) => println!("{} bytes of WGSL", text.len()),
///     ModuleSource::Spirv(words) => println!("{} words of SPIR-V", words.len()),
///     _ => println!("another input"),
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ModuleSource<'a> {
    /// WGSL text: wgpu's default front end reads it.
    Wgsl(Cow<'a, str>),
    /// SPIR-V words, for naga's SPIR-V front end (feature `wgpu-spirv`) or passthrough.
    Spirv(&'a [u32]),
}

impl<'a> ModuleSource<'a> {
    /// The shader's WGSL if the build shipped it, else its SPIR-V ([`Shader::decode_cached`]).
    ///
    /// ```
    /// use smolv_runtime::wgpu::ModuleSource;
    /// # let set = smolv_runtime::shader::doc_example_raw_set();
    /// let source = ModuleSource::of(set.get("blur.comp")?)?;
    /// assert!(matches!(source, ModuleSource::Spirv(words) if words[0] == 0x0723_0203));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn of(shader: &'a Shader) -> Result<Self, ShaderError> {
        match shader.wgsl()? {
            Some(wgsl) => Ok(Self::Wgsl(wgsl)),
            None => Ok(Self::Spirv(shader.decode_cached()?)),
        }
    }
}

/// `words` without `OpLine` and `OpNoLine`, which naga refuses among types (debug builds
/// have them); a damaged module is passed on for naga to report.
#[cfg(feature = "wgpu-spirv")]
fn without_lines(words: &[u32]) -> Cow<'_, [u32]> {
    use smolv_format::spirv::{self, Instruction, Op};
    let Ok(instructions) = spirv::instructions(words).collect::<Result<Vec<_>, _>>() else {
        return Cow::Borrowed(words);
    };
    let is_line = |i: &&Instruction<'_>| matches!(i.op(), Some(Op::Line | Op::NoLine));
    if words.len() < spirv::HEADER_WORDS || !instructions.iter().any(|i| is_line(&i)) {
        return Cow::Borrowed(words);
    }
    let mut kept = words[..spirv::HEADER_WORDS].to_vec();
    kept.extend(instructions.iter().filter(|i| !is_line(i)).flat_map(|i| i.words));
    Cow::Owned(kept)
}

/// wgpu's source for `shader`, as [`create_shader_module`] hands it over.
///
/// ```
/// # let set = smolv_runtime::shader::doc_example_raw_set();
/// # #[cfg(feature = "wgpu-spirv")]
/// let source = smolv_runtime::wgpu::shader_source(set.get("blur.comp")?)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn shader_source(shader: &Shader) -> Result<wgpu::ShaderSource<'_>, WgpuError> {
    match ModuleSource::of(shader)? {
        ModuleSource::Wgsl(text) => Ok(wgpu::ShaderSource::Wgsl(text)),
        #[cfg(feature = "wgpu-spirv")]
        ModuleSource::Spirv(words) => Ok(wgpu::ShaderSource::SpirV(without_lines(words))),
        #[cfg(not(feature = "wgpu-spirv"))]
        ModuleSource::Spirv(_) => Err(WgpuError::NeedsSpirvInput { shader: shader.name().to_owned() }),
    }
}

/// A wgpu shader module of `shader`, labelled with its name ([`shader_source`]).
///
/// ```no_run
/// # fn example(device: &wgpu::Device) -> Result<(), Box<dyn std::error::Error>> {
/// # let set = smolv_runtime::shader::doc_example_raw_set();
/// // with include_shaders!(static SHADERS): SHADERS.get("blur.comp")?
/// let blur = set.get("blur.comp")?;
/// let module = smolv_runtime::wgpu::create_shader_module(device, blur)?;
/// # let _ = module;
/// # Ok(())
/// # }
/// ```
pub fn create_shader_module(device: &wgpu::Device, shader: &Shader) -> Result<wgpu::ShaderModule, WgpuError> {
    let source = shader_source(shader)?;
    Ok(device.create_shader_module(wgpu::ShaderModuleDescriptor { label: Some(shader.name()), source }))
}

/// A wgpu shader module of `shader`'s SPIR-V, passed to the Vulkan driver as it is, unvalidated.
/// Needs `wgpu::Features::PASSTHROUGH_SHADERS` on Vulkan ([`WgpuError::Passthrough`] otherwise);
/// wgpu ignores pipeline `constants` for it ([`crate::specialize`] folds them).
///
/// # Safety
///
/// The caller promises what wgpu's validation would have:
/// - the SPIR-V is valid for the device's Vulkan version, features and extensions;
/// - its bindings, push constants and vertex inputs match the pipeline layout and vertex
///   buffers (those of [`super::BindGroupLayouts`] do);
/// - the pipeline names the shader's entry point
///   ([`Reflection::entry_point`](crate::reflect::Reflection::entry_point));
/// - the module does nothing undefined in Vulkan (accesses robustness does not cover, data races).
///
/// ```no_run
/// # fn example(device: &wgpu::Device) -> Result<(), Box<dyn std::error::Error>> {
/// # let set = smolv_runtime::shader::doc_example_raw_set();
/// let blur = set.get("blur.comp")?;
/// // SAFETY: smolv-build validated the module with spirv-val for Vulkan 1.0;
/// // the device enables no feature it uses, and the pipeline layout comes
/// // from its reflection (BindGroupLayouts).
/// let module = unsafe { smolv_runtime::wgpu::create_shader_module_passthrough(device, blur)? };
/// # let _ = module;
/// # Ok(())
/// # }
/// ```
#[allow(unsafe_code, reason = "wgpu's passthrough call; the caller upholds its contract, stated above")]
pub unsafe fn create_shader_module_passthrough(
    device: &wgpu::Device,
    shader: &Shader,
) -> Result<wgpu::ShaderModule, WgpuError> {
    let refuse = |reason| WgpuError::Passthrough { shader: shader.name().to_owned(), reason };
    if !device.features().contains(wgpu::Features::PASSTHROUGH_SHADERS) {
        return Err(refuse("needs wgpu::Features::PASSTHROUGH_SHADERS on the device; request it"));
    }
    if device.adapter_info().backend != wgpu::Backend::Vulkan {
        return Err(refuse("needs wgpu's Vulkan backend; use create_shader_module on other backends"));
    }
    let reflection = shader.reflection()?;
    let [x, y, z] = reflection.workgroup_size.unwrap_or([1, 1, 1]);
    let entry_points = [wgpu::PassthroughShaderEntryPoint {
        name: Cow::Borrowed(reflection.entry_point.as_str()),
        workgroup_size: (x, y, z),
    }];
    let descriptor = wgpu::ShaderModuleDescriptorPassthrough {
        label: Some(shader.name()),
        entry_points: Cow::Borrowed(&entry_points),
        spirv: Some(Cow::Borrowed(shader.decode_cached()?)),
        ..Default::default()
    };
    // SAFETY: the caller upholds the contract above, which is wgpu's.
    Ok(unsafe { device.create_shader_module_passthrough(descriptor) })
}

#[cfg(all(test, feature = "wgpu-spirv"))]
mod tests {
    use super::*;

    #[test]
    fn line_instructions_are_dropped_for_naga_and_nothing_else() {
        let module = crate::doc_example_module();
        assert!(matches!(without_lines(&module), Cow::Borrowed(_)), "no lines: the words as they are");
        let mut with_lines = module[..5].to_vec();
        with_lines.extend([(4 << 16) | 8, 1, 2, 3, (1 << 16) | 317]);
        with_lines.extend_from_slice(&module[5..]);
        assert_eq!(&*without_lines(&with_lines), &module[..]);
        let truncated = &with_lines[..7];
        assert_eq!(&*without_lines(truncated), truncated, "damaged: left for naga to report");
    }
}
