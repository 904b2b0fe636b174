//! Each program's typed descriptor sets for ash (in `__vulkan_items!`): a `SetN` struct per set whose every
//! binding has a plain write.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use smolv_format::reflect::{DescriptorBinding, DescriptorKind};

use super::escape;
use super::layout::Mangling;
use super::names;

/// ash's `vk`, through the `use` at the top of the items (no generated item is named so).
const VK: &str = "vk";
/// smolv-runtime's Vulkan layer.
const RT: &str = "::smolv_runtime::vulkan";
/// The longest descriptor array a field holds by value.
pub(crate) const MAX_ARRAY: u32 = 32;

/// A binding's info type and the `WriteDescriptorSet` setter it goes to.
fn info(kind: DescriptorKind) -> Option<(&'static str, &'static str)> {
    Some(match kind {
        DescriptorKind::UniformBuffer | DescriptorKind::StorageBuffer => ("DescriptorBufferInfo", "buffer_info"),
        DescriptorKind::Sampler
        | DescriptorKind::CombinedImageSampler
        | DescriptorKind::SampledImage
        | DescriptorKind::StorageImage
        | DescriptorKind::InputAttachment => ("DescriptorImageInfo", "image_info"),
        DescriptorKind::UniformTexelBuffer | DescriptorKind::StorageTexelBuffer => ("BufferView", "texel_buffer_view"),
        _ => return None,
    })
}

/// A binding's kind in words, as Vulkan or (`wgpu`) wgpu names it.
pub(crate) fn kind_text(kind: DescriptorKind, wgpu: bool) -> &'static str {
    match kind {
        DescriptorKind::SampledImage if wgpu => "a sampled texture",
        DescriptorKind::StorageImage if wgpu => "a storage texture",
        DescriptorKind::UniformTexelBuffer | DescriptorKind::StorageTexelBuffer if wgpu => "a texel buffer",
        DescriptorKind::UniformBuffer => "a uniform buffer",
        DescriptorKind::StorageBuffer => "a storage buffer",
        DescriptorKind::SampledImage => "a sampled image",
        DescriptorKind::StorageImage => "a storage image",
        DescriptorKind::Sampler => "a sampler",
        DescriptorKind::CombinedImageSampler => "a combined image sampler",
        DescriptorKind::UniformTexelBuffer => "a uniform texel buffer",
        DescriptorKind::StorageTexelBuffer => "a storage texel buffer",
        DescriptorKind::InputAttachment => "an input attachment",
        DescriptorKind::AccelerationStructure => "an acceleration structure",
        _ => "a binding of a kind this smolv-build does not know",
    }
}

/// Why a binding has no field, if it has none.
fn unwritable(binding: &DescriptorBinding) -> Option<String> {
    if info(binding.kind).is_none() {
        return Some(format!("binding {} is {}", binding.binding, kind_text(binding.kind, false)));
    }
    match binding.count {
        0 => Some(format!("binding {} is a runtime-sized array", binding.binding)),
        n if n > MAX_ARRAY => Some(format!("binding {} is an array of {n}, more than {MAX_ARRAY}", binding.binding)),
        _ => None,
    }
}

/// Appends the program's Vulkan items to `out`, one level in; returns why a set has none.
pub(crate) fn render(out: &mut String, program: &str, bindings: &[(DescriptorBinding, Mangling)]) -> Vec<String> {
    let mut sets: BTreeMap<u32, Vec<&(DescriptorBinding, Mangling)>> = BTreeMap::new();
    for binding in bindings {
        sets.entry(binding.0.set).or_default().push(binding);
    }
    let mut body = String::new();
    let mut skipped = Vec::new();
    for (set, bindings) in &sets {
        if let Some(why) = bindings.iter().find_map(|(b, _)| unwritable(b)) {
            skipped.push(format!("Set {set} has no `Set{set}`: {why}; write it by hand."));
            continue;
        }
        render_set(&mut body, program, *set, bindings);
    }
    if body.is_empty() {
        return skipped;
    }
    let _ = writeln!(out, "    ::smolv_runtime::__vulkan_items! {{");
    let _ = writeln!(out, "        #[allow(unused_imports)]\n        use ::smolv_runtime::vulkan::ash::vk;");
    super::render::indent(out, &body, "        ");
    let _ = writeln!(out, "    }}");
    skipped
}

fn render_set(out: &mut String, program: &str, set: u32, bindings: &[&(DescriptorBinding, Mangling)]) {
    let shown = escape::code(program);
    let _ = writeln!(
        out,
        "/// Set {set} of the program {shown}: its resources by name. [`Set{set}::allocate`]\n\
         /// allocates the set with the program's layout and writes them into it;\n\
         /// [`Set{set}::POOL_SIZES`] are the descriptors of one such set.\n\
         #[derive(::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug)]\n\
         #[allow(dead_code, unreachable_pub)]\n\
         pub struct Set{set} {{"
    );
    let mut taken = BTreeSet::new();
    let mut writes = Vec::new();
    let mut counts: BTreeMap<i32, u32> = BTreeMap::new();
    for (binding, mangling) in bindings {
        let Some((ty, setter)) = info(binding.kind) else { continue };
        let name = names::demangle(&binding.name, *mangling);
        let field = if name.is_empty() { format!("binding{}", binding.binding) } else { names::snake(&name) };
        let field = names::unique(field, &mut taken);
        let (field_ty, value, array) = if binding.count == 1 {
            (format!("{VK}::{ty}"), format!("::core::slice::from_ref(&self.{field})"), String::new())
        } else {
            (
                format!("[{VK}::{ty}; {}]", binding.count),
                format!("&self.{field}"),
                format!(" (an array of {})", binding.count),
            )
        };
        let _ = writeln!(
            out,
            "    /// {}: binding {}, {}{array}.\n    pub {field}: {field_ty},",
            escape::code(&binding.name),
            binding.binding,
            kind_text(binding.kind, false)
        );
        let descriptor_type = binding.kind.vk_descriptor_type();
        *counts.entry(descriptor_type).or_default() += binding.count;
        writes.push(format!(
            "{VK}::WriteDescriptorSet::default().dst_set(set).dst_binding({}).descriptor_type({VK}::DescriptorType::from_raw({descriptor_type})).{setter}({value})",
            binding.binding
        ));
    }
    let _ = writeln!(out, "}}\n");
    let sizes: Vec<String> = counts
        .iter()
        .map(|(ty, count)| {
            format!(
                "{VK}::DescriptorPoolSize {{ ty: {VK}::DescriptorType::from_raw({ty}), descriptor_count: {count} }}"
            )
        })
        .collect();
    let _ = writeln!(
        out,
        "impl Set{set} {{\n    \
         /// Its set number, as `vkCmdBindDescriptorSets` takes it.\n    \
         pub const SET: ::core::primitive::u32 = {set};\n\n    \
         /// The descriptors of one such set, by type: a descriptor pool's sizes per set.\n    \
         pub const POOL_SIZES: [{VK}::DescriptorPoolSize; {n_sizes}] = [{sizes}];\n\n    \
         /// The writes that put these resources into `set`; they point into `self`.\n    \
         pub fn writes(&self, set: {VK}::DescriptorSet) -> [{VK}::WriteDescriptorSet<'_>; {n_writes}] {{\n        \
         [{writes}]\n    }}\n\n    \
         /// Writes these resources into `set`.\n    \
         /// # Safety\n    \
         /// As `smolv_runtime::vulkan::descriptors` says for a write.\n    \
         #[allow(unsafe_code)]\n    \
         pub unsafe fn write(&self, device: &{RT}::ash::Device, set: {VK}::DescriptorSet) {{\n        \
         // SAFETY: the caller's contract.\n        \
         unsafe {{ device.update_descriptor_sets(&self.writes(set), &[]) }}\n    }}\n\n    \
         /// Allocates set {set} from `pool` with `layout`'s set layout (the program's, from\n    \
         /// `PipelineManager::program_layout`) and writes these resources into it.\n    \
         /// # Errors\n    \
         /// As `smolv_runtime::vulkan::descriptors::allocate`.\n    \
         /// # Safety\n    \
         /// As `descriptors::allocate`, and as `descriptors` says for a write; `layout` must be\n    \
         /// this program's (another program's with as many sets passes the check, and is wrong).\n    \
         #[allow(unsafe_code)]\n    \
         pub unsafe fn allocate(&self, device: &{RT}::ash::Device, pool: {VK}::DescriptorPool, layout: &{RT}::ProgramLayout) -> ::core::result::Result<{VK}::DescriptorSet, {RT}::VulkanError> {{\n        \
         // SAFETY: the caller's contract.\n        \
         let set = unsafe {{ {RT}::descriptors::allocate(device, pool, layout, Self::SET)? }};\n        \
         // SAFETY: the caller's contract; `set` has this set's layout.\n        \
         unsafe {{ self.write(device, set) }};\n        \
         ::core::result::Result::Ok(set)\n    }}\n\n    \
         /// A descriptor pool for `sets` such sets ([`POOL_SIZES`](Self::POOL_SIZES) each).\n    \
         /// # Errors\n    \
         /// As `smolv_runtime::vulkan::descriptors::create_pool`.\n    \
         /// # Safety\n    \
         /// `device` must be valid; destroy the pool before it.\n    \
         #[allow(unsafe_code)]\n    \
         pub unsafe fn create_pool(device: &{RT}::ash::Device, sets: ::core::primitive::u32) -> ::core::result::Result<{VK}::DescriptorPool, {RT}::VulkanError> {{\n        \
         // SAFETY: the caller's contract.\n        \
         unsafe {{ {RT}::descriptors::create_pool(device, sets, &Self::POOL_SIZES) }}\n    }}\n}}\n",
        n_sizes = sizes.len(),
        sizes = sizes.join(", "),
        n_writes = writes.len(),
        writes = writes.join(",\n            ")
    );
}
