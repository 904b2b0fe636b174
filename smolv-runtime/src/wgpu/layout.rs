//! Bind-group layouts and the pipeline layout of a program, from its shaders' reflection.

use std::collections::BTreeMap;
use std::num::NonZeroU32;

use wgpu::{BindingType, ShaderStages, TextureSampleType, TextureViewDimension};

use super::error::WgpuError;
use super::format::storage_format;
use super::resources::{Image, Resource, Sampled, resources};
use super::wgsl::WgslModule;
use crate::reflect::{DescriptorBinding, DescriptorKind, Reflection};
use crate::shader::Shader;

/// How [`BindGroupLayouts`] fills what SPIR-V does not say, per binding.
///
/// ```
/// use smolv_runtime::wgpu::LayoutOptions;
/// let options = LayoutOptions::new()
///     .unfilterable(0, 2) // an R32Float height map
///     .sampler(0, 3, wgpu::SamplerBindingType::NonFiltering)
///     .dynamic_offset(1, 0); // one uniform buffer, many draws
/// # let _ = options;
/// ```
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct LayoutOptions {
    overrides: BTreeMap<(u32, u32), Override>,
}

#[derive(Clone, Debug, Default)]
struct Override {
    unfilterable: bool,
    sampler: Option<wgpu::SamplerBindingType>,
    dynamic_offset: bool,
    ty: Option<BindingType>,
}

impl LayoutOptions {
    /// The defaults: float textures filterable, samplers filtering, no
    /// dynamic offsets.
    ///
    /// ```
    /// let options = smolv_runtime::wgpu::LayoutOptions::new();
    /// # let _ = options;
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    fn at(&mut self, set: u32, binding: u32) -> &mut Override {
        self.overrides.entry((set, binding)).or_default()
    }

    /// The float texture at `set`, `binding` is not filterable.
    ///
    /// ```
    /// let options = smolv_runtime::wgpu::LayoutOptions::new().unfilterable(0, 1);
    /// # let _ = options;
    /// ```
    pub fn unfilterable(mut self, set: u32, binding: u32) -> Self {
        self.at(set, binding).unfilterable = true;
        self
    }

    /// The sampler at `set`, `binding` is of type `ty`.
    ///
    /// ```
    /// let options = smolv_runtime::wgpu::LayoutOptions::new().sampler(0, 4, wgpu::SamplerBindingType::Comparison);
    /// # let _ = options;
    /// ```
    pub fn sampler(mut self, set: u32, binding: u32, ty: wgpu::SamplerBindingType) -> Self {
        self.at(set, binding).sampler = Some(ty);
        self
    }

    /// The buffer at `set`, `binding` takes a dynamic offset.
    ///
    /// ```
    /// let options = smolv_runtime::wgpu::LayoutOptions::new().dynamic_offset(1, 0);
    /// # let _ = options;
    /// ```
    pub fn dynamic_offset(mut self, set: u32, binding: u32) -> Self {
        self.at(set, binding).dynamic_offset = true;
        self
    }

    /// The binding at `set`, `binding` is `ty`, whatever the shaders say
    /// (such as a storage image of unknown format).
    ///
    /// ```
    /// use wgpu::{BindingType, StorageTextureAccess, TextureFormat, TextureViewDimension};
    /// let image = BindingType::StorageTexture {
    ///     access: StorageTextureAccess::WriteOnly,
    ///     format: TextureFormat::Rgba8Unorm,
    ///     view_dimension: TextureViewDimension::D2,
    /// };
    /// let options = smolv_runtime::wgpu::LayoutOptions::new().binding_type(0, 0, image);
    /// # let _ = options;
    /// ```
    pub fn binding_type(mut self, set: u32, binding: u32, ty: BindingType) -> Self {
        self.at(set, binding).ty = Some(ty);
        self
    }
}

/// The bind-group layout entries of a program, by group, merged over its shaders.
///
/// ```no_run
/// # fn example(device: &wgpu::Device, vertex: &smolv_runtime::Shader, fragment: &smolv_runtime::Shader)
/// # -> Result<(), Box<dyn std::error::Error>> {
/// use smolv_runtime::wgpu::{BindGroupLayouts, LayoutOptions};
/// let layouts = BindGroupLayouts::new(&[vertex, fragment], &LayoutOptions::new())?;
/// let program = layouts.create(device, Some("lit"))?;
/// let pipeline_layout = &program.pipeline_layout; // for create_render_pipeline
/// let group0 = program.bind_group_layouts[0].as_ref(); // for create_bind_group
/// # let _ = (pipeline_layout, group0);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BindGroupLayouts {
    groups: Vec<Vec<wgpu::BindGroupLayoutEntry>>,
    immediate_size: u32,
}

/// The wgpu objects of a program's layout ([`BindGroupLayouts::create`]).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ProgramLayout {
    /// One per group index; `None` for a group index no shader uses.
    pub bind_group_layouts: Vec<Option<wgpu::BindGroupLayout>>,
    /// The pipeline layout over them, with the immediates the shaders read.
    pub pipeline_layout: wgpu::PipelineLayout,
}

impl BindGroupLayouts {
    /// The entries of `shaders`, the stages of one pipeline.
    ///
    /// ```
    /// use smolv_runtime::wgpu::{BindGroupLayouts, LayoutOptions};
    /// # let set = smolv_runtime::shader::doc_example_raw_set();
    /// let layouts = BindGroupLayouts::new(&[set.get("blur.comp")?], &LayoutOptions::new())?;
    /// assert_eq!(layouts.groups(), 0, "the example module binds nothing");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(shaders: &[&Shader], options: &LayoutOptions) -> Result<Self, WgpuError> {
        let mut layouts = Self::default();
        for shader in shaders {
            match shader.wgsl()? {
                Some(text) => layouts.add_wgsl(shader.name(), &text, options)?,
                None => layouts.add(shader.name(), &shader.reflection()?, shader.decode_cached()?, options)?,
            }
        }
        Ok(layouts)
    }

    /// Adds one stage from the WGSL the build shipped for it.
    ///
    /// ```
    /// use smolv_runtime::wgpu::{BindGroupLayouts, LayoutOptions};
    /// let wgsl = "@group(0) @binding(0) var t: texture_2d<f32>;
    ///             @fragment fn main() -> @location(0) vec4<f32> { return textureLoad(t, vec2(0), 0); }";
    /// let mut layouts = BindGroupLayouts::default();
    /// layouts.add_wgsl("sky.wgsl#main", wgsl, &LayoutOptions::new().unfilterable(0, 0))?;
    /// assert!(matches!(
    ///     layouts.entries(0)[0].ty,
    ///     wgpu::BindingType::Texture { sample_type: wgpu::TextureSampleType::Float { filterable: false }, .. }
    /// ));
    /// # Ok::<(), smolv_runtime::wgpu::WgpuError>(())
    /// ```
    pub fn add_wgsl(&mut self, name: &str, wgsl: &str, options: &LayoutOptions) -> Result<(), WgpuError> {
        let module = WgslModule::parse(name, wgsl)?;
        let visibility = module.stages();
        for binding in module.bindings(name)? {
            let over = options.overrides.get(&(binding.group, binding.binding)).cloned().unwrap_or_default();
            let ty = match (over.ty, binding.ty) {
                (Some(ty), _) => ty,
                (None, BindingType::Buffer { ty, min_binding_size, .. }) => {
                    BindingType::Buffer { ty, has_dynamic_offset: over.dynamic_offset, min_binding_size }
                }
                (None, BindingType::Sampler(ty)) => BindingType::Sampler(over.sampler.unwrap_or(ty)),
                (None, BindingType::Texture { view_dimension, multisampled, .. })
                    if binding.float_texture && over.unfilterable =>
                {
                    let sample_type = TextureSampleType::Float { filterable: false };
                    BindingType::Texture { sample_type, view_dimension, multisampled }
                }
                (None, ty) => ty,
            };
            let entry = wgpu::BindGroupLayoutEntry { binding: binding.binding, visibility, ty, count: binding.count };
            self.merge(name, binding.group, entry)?;
        }
        self.immediate_size = self.immediate_size.max(module.immediate_size());
        Ok(())
    }

    /// Adds one stage, from its reflection and SPIR-V words; errors call it `name`.
    ///
    /// ```
    /// use smolv_runtime::reflect::Reflection;
    /// use smolv_runtime::wgpu::{BindGroupLayouts, LayoutOptions};
    /// let words = smolv_runtime::doc_example_module();
    /// let mut layouts = BindGroupLayouts::default();
    /// layouts.add("blur.comp", &Reflection::from_spirv(&words)?, &words, &LayoutOptions::new())?;
    /// assert_eq!(layouts.immediate_size(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add(
        &mut self,
        name: &str,
        reflection: &Reflection,
        words: &[u32],
        options: &LayoutOptions,
    ) -> Result<(), WgpuError> {
        let found = resources(words).map_err(|m| WgpuError::Malformed {
            shader: name.to_owned(),
            offset: m.offset,
            reason: m.reason,
        })?;
        for binding in &reflection.bindings {
            let resource = found.get(&(binding.set, binding.binding)).copied().unwrap_or_default();
            let over = options.overrides.get(&(binding.set, binding.binding)).cloned().unwrap_or_default();
            let ty = over.ty.map_or_else(|| binding_type(name, binding, resource, &over), Ok)?;
            let entry = wgpu::BindGroupLayoutEntry {
                binding: binding.binding,
                visibility: stages(binding.stages),
                ty,
                count: count(name, binding)?,
            };
            self.merge(name, binding.set, entry)?;
        }
        let ends = reflection.push_constants.iter().map(|range| range.offset.saturating_add(range.size));
        self.immediate_size = ends.fold(self.immediate_size, u32::max);
        Ok(())
    }

    fn merge(&mut self, shader: &str, set: u32, entry: wgpu::BindGroupLayoutEntry) -> Result<(), WgpuError> {
        let index = usize::try_from(set).unwrap_or(usize::MAX);
        if index >= self.groups.len() {
            // Refuse what no device binds before allocating for it.
            if index >= 32 {
                let reason = "is in a bind group past any device's limit (wgpu binds up to 8 groups)";
                return Err(WgpuError::unsupported(shader, set, entry.binding, "", reason));
            }
            self.groups.resize(index + 1, Vec::new());
        }
        let group = &mut self.groups[index];
        match group.binary_search_by_key(&entry.binding, |e| e.binding) {
            Ok(at) => {
                let old = &mut group[at];
                if old.ty != entry.ty || old.count != entry.count {
                    return Err(WgpuError::ConflictingBinding {
                        shader: shader.to_owned(),
                        set,
                        binding: entry.binding,
                        first: Box::new(old.ty),
                        second: Box::new(entry.ty),
                    });
                }
                old.visibility |= entry.visibility;
            }
            Err(at) => group.insert(at, entry),
        }
        Ok(())
    }

    /// How many bind groups the program uses: one past the highest index.
    ///
    /// ```
    /// let layouts = smolv_runtime::wgpu::BindGroupLayouts::default();
    /// assert_eq!(layouts.groups(), 0);
    /// ```
    pub fn groups(&self) -> usize {
        self.groups.len()
    }

    /// The entries of group `index`, by binding (empty if unused).
    ///
    /// ```
    /// let layouts = smolv_runtime::wgpu::BindGroupLayouts::default();
    /// assert!(layouts.entries(0).is_empty());
    /// ```
    pub fn entries(&self, index: u32) -> &[wgpu::BindGroupLayoutEntry] {
        usize::try_from(index).ok().and_then(|i| self.groups.get(i)).map_or(&[], Vec::as_slice)
    }

    /// The push-constant bytes the shaders read: wgpu's `immediate_size`.
    ///
    /// ```
    /// let layouts = smolv_runtime::wgpu::BindGroupLayouts::default();
    /// assert_eq!(layouts.immediate_size(), 0);
    /// ```
    pub fn immediate_size(&self) -> u32 {
        self.immediate_size
    }

    /// Creates the layouts on `device`; push constants need `wgpu::Features::IMMEDIATES`
    /// ([`WgpuError::NeedsImmediates`]).
    ///
    /// ```no_run
    /// # fn example(device: &wgpu::Device, layouts: smolv_runtime::wgpu::BindGroupLayouts)
    /// # -> Result<(), smolv_runtime::wgpu::WgpuError> {
    /// let program = layouts.create(device, Some("sky"))?;
    /// # let _ = program;
    /// # Ok(())
    /// # }
    /// ```
    pub fn create(&self, device: &wgpu::Device, label: Option<&str>) -> Result<ProgramLayout, WgpuError> {
        if self.immediate_size > 0 && !device.features().contains(wgpu::Features::IMMEDIATES) {
            return Err(WgpuError::NeedsImmediates { size: self.immediate_size });
        }
        let layout = |entries| device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor { label, entries });
        let bind_group_layouts: Vec<Option<wgpu::BindGroupLayout>> =
            self.groups.iter().map(|entries| (!entries.is_empty()).then(|| layout(entries))).collect();
        let refs: Vec<Option<&wgpu::BindGroupLayout>> = bind_group_layouts.iter().map(Option::as_ref).collect();
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label,
            bind_group_layouts: &refs,
            immediate_size: self.immediate_size,
        });
        Ok(ProgramLayout { bind_group_layouts, pipeline_layout })
    }
}

/// `VkShaderStageFlags` as wgpu's stages.
fn stages(vk: u32) -> ShaderStages {
    [
        (0x1, ShaderStages::VERTEX),
        (0x10, ShaderStages::FRAGMENT),
        (0x20, ShaderStages::COMPUTE),
        (0x40, ShaderStages::TASK),
        (0x80, ShaderStages::MESH),
    ]
    .into_iter()
    .filter(|&(bit, _)| vk & bit != 0)
    .fold(ShaderStages::NONE, |all, (_, stage)| all | stage)
}

fn count(shader: &str, binding: &DescriptorBinding) -> Result<Option<NonZeroU32>, WgpuError> {
    let reason = "is a runtime-sized array; give it a fixed size (wgpu's binding arrays have one)";
    match binding.count {
        0 => Err(unsupported(shader, binding, reason)),
        1 => Ok(None),
        n => Ok(NonZeroU32::new(n)),
    }
}

fn unsupported(shader: &str, binding: &DescriptorBinding, reason: impl Into<String>) -> WgpuError {
    WgpuError::unsupported(shader, binding.set, binding.binding, &binding.name, reason)
}

/// The wgpu binding type of one reflected binding.
fn binding_type(
    shader: &str,
    binding: &DescriptorBinding,
    resource: Resource,
    over: &Override,
) -> Result<BindingType, WgpuError> {
    let buffer = |ty| BindingType::Buffer { ty, has_dynamic_offset: over.dynamic_offset, min_binding_size: None };
    Ok(match binding.kind {
        DescriptorKind::UniformBuffer => buffer(wgpu::BufferBindingType::Uniform),
        DescriptorKind::StorageBuffer => buffer(wgpu::BufferBindingType::Storage { read_only: resource.non_writable }),
        DescriptorKind::Sampler => BindingType::Sampler(over.sampler.unwrap_or(wgpu::SamplerBindingType::Filtering)),
        DescriptorKind::SampledImage => {
            let image = image_of(shader, binding, resource)?;
            let sample_type = match (image.depth, image.sampled) {
                (true, _) => TextureSampleType::Depth,
                (false, Sampled::Float) => TextureSampleType::Float { filterable: !over.unfilterable },
                (false, Sampled::Sint) => TextureSampleType::Sint,
                (false, Sampled::Uint) => TextureSampleType::Uint,
            };
            BindingType::Texture {
                sample_type,
                view_dimension: dimension(shader, binding, image)?,
                multisampled: image.multisampled,
            }
        }
        DescriptorKind::StorageImage => {
            let image = image_of(shader, binding, resource)?;
            let access = match (resource.non_writable, resource.non_readable) {
                (true, _) => wgpu::StorageTextureAccess::ReadOnly,
                (false, true) => wgpu::StorageTextureAccess::WriteOnly,
                (false, false) => wgpu::StorageTextureAccess::ReadWrite,
            };
            let format = storage_format(image.format).ok_or_else(|| {
                let reason = format!(
                    "is a storage image of SPIR-V format {}, which wgpu has no texture format for; \
                     declare its format in the shader, or give it with LayoutOptions::binding_type",
                    image.format
                );
                unsupported(shader, binding, reason)
            })?;
            BindingType::StorageTexture { access, format, view_dimension: dimension(shader, binding, image)? }
        }
        DescriptorKind::AccelerationStructure => BindingType::AccelerationStructure { vertex_return: false },
        DescriptorKind::CombinedImageSampler => {
            let reason = "is a combined image sampler, which wgpu does not have; declare a texture and a sampler \
                          (GLSL `texture2D` + `sampler`, Slang `Texture2D` + `SamplerState`)";
            return Err(unsupported(shader, binding, reason));
        }
        other => {
            let reason = format!("is a {other:?}, which wgpu has no binding type for; use a storage buffer or texture");
            return Err(unsupported(shader, binding, reason));
        }
    })
}

fn image_of(shader: &str, binding: &DescriptorBinding, resource: Resource) -> Result<Image, WgpuError> {
    resource.image.ok_or_else(|| unsupported(shader, binding, "has no image type in the module's SPIR-V"))
}

fn dimension(shader: &str, binding: &DescriptorBinding, image: Image) -> Result<TextureViewDimension, WgpuError> {
    Ok(match (image.dim, image.arrayed) {
        (0, false) => TextureViewDimension::D1,
        (1, false) => TextureViewDimension::D2,
        (1, true) => TextureViewDimension::D2Array,
        (2, false) => TextureViewDimension::D3,
        (3, false) => TextureViewDimension::Cube,
        (3, true) => TextureViewDimension::CubeArray,
        (dim, _) => {
            let what = match dim {
                0 => "a 1D array image",
                4 => "a rectangle image",
                5 => "a texel buffer",
                6 => "a subpass input",
                _ => "an image of a dimension wgpu lacks",
            };
            return Err(unsupported(shader, binding, format!("is {what}, which wgpu has no view dimension for")));
        }
    })
}

impl ProgramLayout {
    /// The layout of bind group `group` ([`WgpuError::NoBindGroup`] if no shader uses it).
    ///
    /// ```no_run
    /// # fn example(device: &wgpu::Device) -> Result<(), Box<dyn std::error::Error>> {
    /// use smolv_runtime::wgpu::{BindGroupLayouts, LayoutOptions, WgpuError};
    /// # let set = smolv_runtime::shader::doc_example_raw_set();
    /// let layout = BindGroupLayouts::new(&[set.get("blur.comp")?], &LayoutOptions::new())?.create(device, None)?;
    /// // The example module binds nothing.
    /// assert!(matches!(layout.group(0), Err(WgpuError::NoBindGroup { group: 0, groups: 0 })));
    /// # Ok(())
    /// # }
    /// ```
    pub fn group(&self, group: u32) -> Result<&wgpu::BindGroupLayout, WgpuError> {
        let missing = || WgpuError::NoBindGroup { group, groups: self.bind_group_layouts.len() };
        let index = usize::try_from(group).map_err(|_| missing())?;
        self.bind_group_layouts.get(index).and_then(Option::as_ref).ok_or_else(missing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reflect::{PushConstantRange, ShaderStage};

    fn stage(stage: ShaderStage, bindings: &[(u32, u32, DescriptorKind)]) -> Reflection {
        let mut reflection = Reflection::new(stage, "main");
        for &(set, binding, kind) in bindings {
            let name = format!("b{set}_{binding}");
            reflection.bindings.push(DescriptorBinding {
                set,
                binding,
                kind,
                count: 1,
                stages: stage.vk_stage_flag(),
                name,
            });
        }
        reflection
    }

    fn add(layouts: &mut BindGroupLayouts, reflection: &Reflection, options: &LayoutOptions) -> Result<(), WgpuError> {
        layouts.add("test", reflection, &crate::doc_example_module(), options)
    }

    #[test]
    fn a_struct_type_of_one_word_is_a_malformed_error_naming_the_shader() {
        // The example module with a one-word `OpTypeStruct` (opcode 30)
        // put before its first instruction after the header.
        let mut words = crate::doc_example_module();
        words.insert(5, (1 << 16) | 30);
        let reflection = stage(ShaderStage::Compute, &[]);
        let error =
            BindGroupLayouts::default().add("broken.comp", &reflection, &words, &LayoutOptions::new()).unwrap_err();
        assert!(
            matches!(&error, WgpuError::Malformed { shader, offset: 5, reason } if shader == "broken.comp" && reason.contains("OpTypeStruct")),
            "{error}"
        );
    }

    #[test]
    fn a_binding_two_stages_use_is_one_entry_visible_to_both() {
        let mut layouts = BindGroupLayouts::default();
        let uniform = [(1, 0, DescriptorKind::UniformBuffer)];
        add(&mut layouts, &stage(ShaderStage::Vertex, &uniform), &LayoutOptions::new()).unwrap();
        add(&mut layouts, &stage(ShaderStage::Fragment, &uniform), &LayoutOptions::new()).unwrap();
        assert_eq!(layouts.groups(), 2, "group 0 unused, group 1 used");
        assert!(layouts.entries(0).is_empty());
        let entry = layouts.entries(1)[0];
        assert_eq!(entry.visibility, ShaderStages::VERTEX | ShaderStages::FRAGMENT);
        assert!(matches!(entry.ty, BindingType::Buffer { ty: wgpu::BufferBindingType::Uniform, .. }));
    }

    #[test]
    fn two_declarations_of_one_binding_that_differ_are_an_error() {
        let mut layouts = BindGroupLayouts::default();
        let options = LayoutOptions::new();
        add(&mut layouts, &stage(ShaderStage::Vertex, &[(0, 0, DescriptorKind::UniformBuffer)]), &options).unwrap();
        let error =
            add(&mut layouts, &stage(ShaderStage::Fragment, &[(0, 0, DescriptorKind::Sampler)]), &options).unwrap_err();
        assert!(matches!(error, WgpuError::ConflictingBinding { set: 0, binding: 0, .. }), "{error}");
    }

    #[test]
    fn a_combined_image_sampler_is_refused_with_what_to_declare_instead() {
        let mut layouts = BindGroupLayouts::default();
        let reflection = stage(ShaderStage::Fragment, &[(0, 2, DescriptorKind::CombinedImageSampler)]);
        let error = add(&mut layouts, &reflection, &LayoutOptions::new()).unwrap_err();
        let message = error.to_string();
        assert!(message.contains("set 0, binding 2") && message.contains("texture and a sampler"), "{message}");
    }

    #[test]
    fn options_set_the_sampler_type_dynamic_offsets_and_whole_types() {
        let mut layouts = BindGroupLayouts::default();
        let reflection =
            stage(ShaderStage::Fragment, &[(0, 0, DescriptorKind::Sampler), (0, 1, DescriptorKind::UniformBuffer)]);
        let storage = BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only: true },
            has_dynamic_offset: false,
            min_binding_size: None,
        };
        let options = LayoutOptions::new().sampler(0, 0, wgpu::SamplerBindingType::Comparison).dynamic_offset(0, 1);
        add(&mut layouts, &reflection, &options).unwrap();
        assert_eq!(layouts.entries(0)[0].ty, BindingType::Sampler(wgpu::SamplerBindingType::Comparison));
        assert!(layouts.entries(0)[1].ty.has_dynamic_offset());
        let mut replaced = BindGroupLayouts::default();
        add(&mut replaced, &reflection, &LayoutOptions::new().binding_type(0, 1, storage)).unwrap();
        assert_eq!(replaced.entries(0)[1].ty, storage);
    }

    #[test]
    fn immediates_span_every_stage_push_constant_range() {
        let mut layouts = BindGroupLayouts::default();
        let mut vertex = stage(ShaderStage::Vertex, &[]);
        vertex.push_constants.push(PushConstantRange { offset: 0, size: 16, stages: 0x1 });
        let mut fragment = stage(ShaderStage::Fragment, &[]);
        fragment.push_constants.push(PushConstantRange { offset: 16, size: 8, stages: 0x10 });
        add(&mut layouts, &vertex, &LayoutOptions::new()).unwrap();
        add(&mut layouts, &fragment, &LayoutOptions::new()).unwrap();
        assert_eq!(layouts.immediate_size(), 24);
    }

    #[test]
    fn a_group_past_any_device_limit_is_refused_before_allocating() {
        let mut layouts = BindGroupLayouts::default();
        let reflection = stage(ShaderStage::Compute, &[(u32::MAX, 0, DescriptorKind::StorageBuffer)]);
        assert!(add(&mut layouts, &reflection, &LayoutOptions::new()).is_err());
        assert_eq!(layouts.groups(), 0);
    }
}
