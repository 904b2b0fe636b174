//! SPIRV-Tools linked in (feature `optimizer`): what `spirv-opt` runs with [`Recipe::flags`].

use spirv_tools::error::{Message, MessageLevel};
use spirv_tools::opt::{Optimizer as _, Options};
use spirv_tools::val::ValidatorOptions;

use super::{Failure, Recipe};
use crate::options::{Optimization, TargetEnv};

/// Runs `recipe` on `spirv`; SPIRV-Tools' verdict is [`Failure::Refused`].
pub(crate) fn optimize(spirv: &[u32], recipe: &Recipe) -> Result<Vec<u32>, Failure> {
    let mut optimizer = spirv_tools::opt::create(Some(target_env(recipe.env)));
    if recipe.legalize {
        optimizer.register_hlsl_legalization_passes();
    }
    match recipe.level {
        Optimization::None => &mut optimizer,
        Optimization::Size => optimizer.register_size_passes(),
        Optimization::Performance => optimizer.register_performance_passes(),
    };
    let options = Options { validator_options: Some(validator_options(recipe)), ..Options::default() };
    let mut messages = Vec::new();
    let mut collect = |message: Message| {
        if matches!(message.level, MessageLevel::Fatal | MessageLevel::InternalError | MessageLevel::Error) {
            let mut text = message.message.trim().to_owned();
            if !message.notes.trim().is_empty() {
                text = format!("{text} ({})", message.notes.trim().replace('\n', " "));
            }
            messages.push(text);
        }
    };
    match optimizer.optimize(spirv, &mut collect, Some(options)) {
        Ok(binary) if binary.as_words().len() >= 5 && binary.as_words()[0] == 0x0723_0203 => {
            Ok(binary.as_words().to_vec())
        }
        Ok(_) => Err(Failure::Transient("SPIRV-Tools produced no valid module".to_owned())),
        // In process, the run is deterministic: an error is a verdict.
        Err(error) => Err(Failure::Refused(if messages.is_empty() {
            format!("SPIRV-Tools {} refused it ({:?}) without a message", recipe.describe(), error.inner)
        } else {
            format!("SPIRV-Tools {} refused it: {}", recipe.describe(), messages.join("; "))
        })),
    }
}

/// The validator before the passes: as `spirv-opt --scalar-block-layout` (GL_EXT_scalar_block_layout's
/// blocks carry no OpExtension); relaxed before HLSL's legalization, as shaderc does.
fn validator_options(recipe: &Recipe) -> ValidatorOptions {
    ValidatorOptions {
        scalar_block_layout: true,
        before_legalization: recipe.legalize,
        relax_logical_pointer: recipe.legalize,
        skip_block_layout: recipe.legalize,
        ..ValidatorOptions::default()
    }
}

fn target_env(env: TargetEnv) -> spirv_tools::TargetEnv {
    match env {
        TargetEnv::Vulkan1_0 => spirv_tools::TargetEnv::Vulkan_1_0,
        TargetEnv::Vulkan1_1 => spirv_tools::TargetEnv::Vulkan_1_1,
        TargetEnv::Vulkan1_2 => spirv_tools::TargetEnv::Vulkan_1_2,
        TargetEnv::Vulkan1_3 => spirv_tools::TargetEnv::Vulkan_1_3,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::compile::optimize::tests::corpus_module;

    fn size(env: TargetEnv) -> Recipe {
        Recipe { level: Optimization::Size, env, legalize: false }
    }

    #[test]
    fn the_size_recipe_shrinks_a_real_module() {
        let module = corpus_module("blender/43_spv16_overlay_edit_mesh_edge_next_vert.spv");
        let optimized = optimize(&module, &size(TargetEnv::Vulkan1_3)).unwrap();
        assert!(optimized.len() < module.len() * 9 / 10, "{} → {} words", module.len(), optimized.len());
        assert_eq!(optimized[0], 0x0723_0203);
        // What it wrote is a module SPIRV-Tools takes again.
        optimize(&optimized, &size(TargetEnv::Vulkan1_3)).unwrap();
    }

    #[test]
    fn a_module_the_validator_refuses_is_refused_with_its_message() {
        // A well-formed module with an entry point naming no function.
        let mut module = smolv_format::doc_example_module();
        let entry = (5..module.len()).find(|&i| module[i] & 0xffff == 15).expect("OpEntryPoint");
        module[entry + 2] = 999;
        let failure = optimize(&module, &size(TargetEnv::Vulkan1_0)).unwrap_err();
        assert!(
            matches!(&failure, Failure::Refused(why) if why.starts_with("SPIRV-Tools -Os refused it: ") && why.contains("999")),
            "{failure:?}"
        );
    }

    /// A fragment shader as a literal translation of HLSL leaves it:
    /// `Texture2D t = g_texture;` copies the texture into a local variable,
    /// which Vulkan forbids (VUID 06924, no stores of images) until
    /// legalization folds the copy away.
    pub(crate) const UNLEGALIZED: &str = "
        OpCapability Shader
        OpMemoryModel Logical GLSL450
        OpEntryPoint Fragment %main \"main\" %out
        OpExecutionMode %main OriginUpperLeft
        OpDecorate %out Location 0
        OpDecorate %g_texture DescriptorSet 0
        OpDecorate %g_texture Binding 0
        %void = OpTypeVoid
        %fn = OpTypeFunction %void
        %float = OpTypeFloat 32
        %v4 = OpTypeVector %float 4
        %int = OpTypeInt 32 1
        %v2int = OpTypeVector %int 2
        %image = OpTypeImage %float 2D 0 0 0 1 Unknown
        %ptr_image = OpTypePointer UniformConstant %image
        %g_texture = OpVariable %ptr_image UniformConstant
        %ptr_local_image = OpTypePointer Function %image
        %ptr_out = OpTypePointer Output %v4
        %out = OpVariable %ptr_out Output
        %zero = OpConstant %int 0
        %origin = OpConstantComposite %v2int %zero %zero
        %main = OpFunction %void None %fn
        %entry = OpLabel
        %t = OpVariable %ptr_local_image Function
        %global = OpLoad %image %g_texture
        OpStore %t %global
        %local = OpLoad %image %t
        %texel = OpImageFetch %v4 %local %origin
        OpStore %out %texel
        OpReturn
        OpFunctionEnd";

    /// [`UNLEGALIZED`], assembled.
    pub(crate) fn unlegalized_module() -> Vec<u32> {
        use spirv_tools::assembler::Assembler as _;
        let assembler = spirv_tools::assembler::create(Some(spirv_tools::TargetEnv::Vulkan_1_0));
        assembler.assemble(UNLEGALIZED, Default::default()).unwrap().as_words().to_vec()
    }

    /// Whether Vulkan 1.0's validator, with no rule relaxed, takes `module`.
    pub(crate) fn valid(module: &[u32]) -> bool {
        use spirv_tools::val::Validator as _;
        spirv_tools::val::create(Some(spirv_tools::TargetEnv::Vulkan_1_0)).validate(module, None).is_ok()
    }

    #[test]
    fn hlsl_legalization_makes_a_literal_translation_valid() {
        let module = unlegalized_module();
        assert!(!valid(&module), "the test module must need legalization");
        let failure = optimize(&module, &size(TargetEnv::Vulkan1_0)).unwrap_err();
        assert!(
            matches!(&failure, Failure::Refused(why) if why.contains("Cannot store to OpTypeImage")),
            "{failure:?}"
        );
        for level in [Optimization::None, Optimization::Size, Optimization::Performance] {
            let recipe = Recipe { level, env: TargetEnv::Vulkan1_0, legalize: true };
            let legal = optimize(&module, &recipe).unwrap();
            assert!(valid(&legal), "{level:?}");
        }
    }

    #[test]
    fn the_environment_is_the_one_asked_for() {
        // A SPIR-V 1.6 module is not Vulkan 1.0's: the caller asks for the
        // environment its version needs (`TargetEnv::accepting`).
        let module = corpus_module("blender/43_spv16_overlay_edit_mesh_edge_next_vert.spv");
        let failure = optimize(&module, &size(TargetEnv::Vulkan1_0)).unwrap_err();
        assert!(matches!(&failure, Failure::Refused(why) if why.contains("version")), "{failure:?}");
    }
}
