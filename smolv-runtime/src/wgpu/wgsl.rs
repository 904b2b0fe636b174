//! What a shader shipped as WGSL declares, read with naga's WGSL front end (wgpu links it anyway).

use std::num::NonZeroU32;

use naga::{AddressSpace, ImageClass, ImageDimension, Scalar, ScalarKind, StorageAccess, TypeInner};
use wgpu::{BindingType, ShaderStages, TextureSampleType, TextureViewDimension};

use super::error::WgpuError;
use crate::reflect::{SpecConstant, SpecConstantType};

/// One shipped WGSL module, parsed.
pub(crate) struct WgslModule {
    module: naga::Module,
}

/// One binding of a WGSL module, before [`super::LayoutOptions`] apply.
pub(crate) struct WgslBinding {
    pub(crate) group: u32,
    pub(crate) binding: u32,
    pub(crate) ty: BindingType,
    pub(crate) count: Option<NonZeroU32>,
    /// A float texture, whose filterability the options decide.
    pub(crate) float_texture: bool,
}

impl WgslModule {
    /// Parses `text`, the WGSL of `shader`.
    pub(crate) fn parse(shader: &str, text: &str) -> Result<Self, WgpuError> {
        let module = naga::front::wgsl::parse_str(text).map_err(|e| WgpuError::Module {
            shader: shader.to_owned(),
            message: format!("naga could not read its WGSL: {}", e.emit_to_string(text)),
        })?;
        Ok(Self { module })
    }

    /// The stages of its entry points (one, for what smolv-build ships).
    pub(crate) fn stages(&self) -> ShaderStages {
        self.module.entry_points.iter().fold(ShaderStages::NONE, |all, e| {
            all | match e.stage {
                naga::ShaderStage::Vertex => ShaderStages::VERTEX,
                naga::ShaderStage::Fragment => ShaderStages::FRAGMENT,
                naga::ShaderStage::Compute => ShaderStages::COMPUTE,
                naga::ShaderStage::Task => ShaderStages::TASK,
                naga::ShaderStage::Mesh => ShaderStages::MESH,
                _ => ShaderStages::NONE,
            }
        })
    }

    /// Every resource binding, with its wgpu binding type.
    pub(crate) fn bindings(&self, shader: &str) -> Result<Vec<WgslBinding>, WgpuError> {
        let mut found = Vec::new();
        for (_, global) in self.module.global_variables.iter() {
            let Some(at) = &global.binding else { continue };
            let name = global.name.as_deref().unwrap_or_default();
            let unsupported = |reason: &str| WgpuError::unsupported(shader, at.group, at.binding, name, reason);
            let (inner, count) = match &self.module.types[global.ty].inner {
                TypeInner::BindingArray { base, size } => match size {
                    naga::ArraySize::Constant(n) => (&self.module.types[*base].inner, Some(*n)),
                    _ => return Err(unsupported("is a binding array without a fixed size; give it one")),
                },
                inner => (inner, None),
            };
            let buffer = |ty| BindingType::Buffer { ty, has_dynamic_offset: false, min_binding_size: None };
            let mut float_texture = false;
            let ty = match (global.space, inner) {
                (AddressSpace::Uniform, _) => buffer(wgpu::BufferBindingType::Uniform),
                (AddressSpace::Storage { access }, _) => {
                    buffer(wgpu::BufferBindingType::Storage { read_only: !access.contains(StorageAccess::STORE) })
                }
                (_, TypeInner::Sampler { comparison }) => BindingType::Sampler(if *comparison {
                    wgpu::SamplerBindingType::Comparison
                } else {
                    wgpu::SamplerBindingType::Filtering
                }),
                (_, TypeInner::Image { dim, arrayed, class }) => {
                    let view_dimension = dimension(*dim, *arrayed).ok_or_else(|| unsupported("is a 1D array image"))?;
                    match class {
                        ImageClass::Sampled { kind, multi } => {
                            float_texture = *kind == ScalarKind::Float;
                            let sample_type = match kind {
                                ScalarKind::Sint => TextureSampleType::Sint,
                                ScalarKind::Uint => TextureSampleType::Uint,
                                _ => TextureSampleType::Float { filterable: true },
                            };
                            BindingType::Texture { sample_type, view_dimension, multisampled: *multi }
                        }
                        ImageClass::Depth { multi } => BindingType::Texture {
                            sample_type: TextureSampleType::Depth,
                            view_dimension,
                            multisampled: *multi,
                        },
                        ImageClass::Storage { format, access } => {
                            let access =
                                match (access.contains(StorageAccess::LOAD), access.contains(StorageAccess::STORE)) {
                                    (true, false) => wgpu::StorageTextureAccess::ReadOnly,
                                    (false, _) => wgpu::StorageTextureAccess::WriteOnly,
                                    (true, true) => wgpu::StorageTextureAccess::ReadWrite,
                                };
                            BindingType::StorageTexture { access, format: storage_format(*format), view_dimension }
                        }
                        ImageClass::External => BindingType::ExternalTexture,
                    }
                }
                (_, TypeInner::AccelerationStructure { vertex_return }) => {
                    BindingType::AccelerationStructure { vertex_return: *vertex_return }
                }
                _ => return Err(unsupported("has a type wgpu has no binding type for")),
            };
            found.push(WgslBinding { group: at.group, binding: at.binding, ty, count, float_texture });
        }
        Ok(found)
    }

    /// The bytes of its immediates (`var<immediate>`), 0 if none.
    pub(crate) fn immediate_size(&self) -> u32 {
        let context = self.module.to_ctx();
        self.module
            .global_variables
            .iter()
            .filter(|(_, g)| g.space == AddressSpace::Immediate)
            .map(|(_, g)| self.module.types[g.ty].inner.size(context))
            .max()
            .unwrap_or(0)
    }

    /// Its overrides with an `@id`, as spec constants.
    pub(crate) fn overrides(&self) -> Vec<SpecConstant> {
        self.module
            .overrides
            .iter()
            .filter_map(|(_, o)| {
                let ty = match &self.module.types[o.ty].inner {
                    TypeInner::Scalar(Scalar { kind: ScalarKind::Bool, .. }) => SpecConstantType::Bool,
                    TypeInner::Scalar(Scalar { kind: ScalarKind::Sint, width: 4 }) => SpecConstantType::I32,
                    TypeInner::Scalar(Scalar { kind: ScalarKind::Uint, width: 4 }) => SpecConstantType::U32,
                    TypeInner::Scalar(Scalar { kind: ScalarKind::Float, width: 4 }) => SpecConstantType::F32,
                    _ => SpecConstantType::Other,
                };
                let id = u32::from(o.id?);
                Some(SpecConstant { id, ty, default: 0, name: o.name.clone().unwrap_or_default() })
            })
            .collect()
    }
}

fn dimension(dim: ImageDimension, arrayed: bool) -> Option<TextureViewDimension> {
    Some(match (dim, arrayed) {
        (ImageDimension::D1, false) => TextureViewDimension::D1,
        (ImageDimension::D1, true) => return None,
        (ImageDimension::D2, false) => TextureViewDimension::D2,
        (ImageDimension::D2, true) => TextureViewDimension::D2Array,
        (ImageDimension::D3, _) => TextureViewDimension::D3,
        (ImageDimension::Cube, false) => TextureViewDimension::Cube,
        (ImageDimension::Cube, true) => TextureViewDimension::CubeArray,
    })
}

/// naga's storage format as wgpu's texture format: the same names.
fn storage_format(format: naga::StorageFormat) -> wgpu::TextureFormat {
    macro_rules! same_names {
        ($($name:ident,)*) => {
            match format {
                $(naga::StorageFormat::$name => wgpu::TextureFormat::$name,)*
            }
        };
    }
    same_names! {
        R8Unorm, R8Snorm, R8Uint, R8Sint, R16Uint, R16Sint, R16Float, Rg8Unorm, Rg8Snorm, Rg8Uint, Rg8Sint, R32Uint,
        R32Sint, R32Float, Rg16Uint, Rg16Sint, Rg16Float, Rgba8Unorm, Rgba8Snorm, Rgba8Uint, Rgba8Sint, Bgra8Unorm,
        Rgb10a2Uint, Rgb10a2Unorm, Rg11b10Ufloat, R64Uint, Rg32Uint, Rg32Sint, Rg32Float, Rgba16Uint, Rgba16Sint,
        Rgba16Float, Rgba32Uint, Rgba32Sint, Rgba32Float, R16Unorm, R16Snorm, Rg16Unorm, Rg16Snorm, Rgba16Unorm,
        Rgba16Snorm,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHADER: &str = "
        struct Light { color: vec4<f32> }
        @group(0) @binding(0) var<uniform> light: Light;
        @group(0) @binding(1) var<storage, read> values: array<f32>;
        @group(1) @binding(0) var shadow: texture_depth_2d;
        @group(1) @binding(1) var compare: sampler_comparison;
        @group(1) @binding(2) var albedo: texture_2d_array<f32>;
        @group(2) @binding(0) var out_image: texture_storage_2d<rgba8unorm, write>;
        struct Push { tint: vec4<f32> }
        var<immediate> push: Push;
        @id(3) override GAIN: f32 = 1.0;
        @fragment fn main() -> @location(0) vec4<f32> {
            let a = textureSampleCompare(shadow, compare, vec2(0.5), 0.5);
            let b = textureLoad(albedo, vec2(0), 0, 0);
            textureStore(out_image, vec2(0), b);
            return light.color * values[0] * a * push.tint * GAIN;
        }";

    #[test]
    fn bindings_immediates_and_overrides_come_from_the_wgsl() {
        let module = WgslModule::parse("lit.frag", SHADER).unwrap();
        assert_eq!(module.stages(), ShaderStages::FRAGMENT);
        let bindings = module.bindings("lit.frag").unwrap();
        let ty = |group, binding| bindings.iter().find(|b| (b.group, b.binding) == (group, binding)).unwrap().ty;
        assert!(matches!(ty(0, 0), BindingType::Buffer { ty: wgpu::BufferBindingType::Uniform, .. }));
        assert!(matches!(
            ty(0, 1),
            BindingType::Buffer { ty: wgpu::BufferBindingType::Storage { read_only: true }, .. }
        ));
        assert!(matches!(ty(1, 0), BindingType::Texture { sample_type: TextureSampleType::Depth, .. }));
        assert_eq!(ty(1, 1), BindingType::Sampler(wgpu::SamplerBindingType::Comparison));
        assert!(matches!(ty(1, 2), BindingType::Texture { view_dimension: TextureViewDimension::D2Array, .. }));
        assert!(matches!(
            ty(2, 0),
            BindingType::StorageTexture {
                access: wgpu::StorageTextureAccess::WriteOnly,
                format: wgpu::TextureFormat::Rgba8Unorm,
                ..
            }
        ));
        assert_eq!(module.immediate_size(), 16);
        let overrides = module.overrides();
        assert_eq!((overrides[0].id, overrides[0].ty, overrides[0].name.as_str()), (3, SpecConstantType::F32, "GAIN"));
    }

    #[test]
    fn text_naga_cannot_read_is_an_error_naming_the_shader() {
        let error = WgslModule::parse("broken.wgsl", "fn (").err().unwrap();
        assert!(error.to_string().contains("broken.wgsl"), "{error}");
    }
}
