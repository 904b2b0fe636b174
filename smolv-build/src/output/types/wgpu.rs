//! Each module's and program's `pub mod wgpu` (in `__wgpu_items!`): entry point, bind group structs, pipeline state.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use smolv_format::reflect::{DescriptorBinding, DescriptorKind, ShaderStage};

use super::layout::{Mangling, ModuleInput};
use super::vulkan::kind_text;
use super::{escape, names, render};

/// wgpu, as the generated code names it.
const W: &str = "::smolv_runtime::wgpu::wgpu";
/// smolv-runtime's wgpu layer.
const RT: &str = "::smolv_runtime::wgpu";

/// A binding's field type and the `BindingResource` made from `self.field`.
fn resource(binding: &DescriptorBinding) -> Option<(String, String)> {
    let array = binding.count != 1;
    let (one, variant, many) = match binding.kind {
        DescriptorKind::UniformBuffer | DescriptorKind::StorageBuffer => {
            (format!("{W}::BufferBinding<'a>"), "Buffer", "BufferArray")
        }
        DescriptorKind::SampledImage | DescriptorKind::StorageImage => {
            (format!("&'a {W}::TextureView"), "TextureView", "TextureViewArray")
        }
        DescriptorKind::Sampler => (format!("&'a {W}::Sampler"), "Sampler", "SamplerArray"),
        _ => return None,
    };
    Some(if array {
        (format!("&'a [{one}]"), format!("{W}::BindingResource::{many}"))
    } else {
        (one, format!("{W}::BindingResource::{variant}"))
    })
}

/// Appends the module's wgpu items to `out`, one level in.
pub(crate) fn render(out: &mut String, input: &ModuleInput, has_vertex: bool) {
    let reflection = &input.reflection;
    let _ = writeln!(
        out,
        "    ::smolv_runtime::__wgpu_items! {{\n        /// The wgpu items of {}: its entry point, bind groups and \
         pipeline state\n        /// (only with smolv-runtime's `wgpu` feature).",
        escape::code(&input.name)
    );
    let mut body = format!(
        "/// The entry point's name, as a pipeline's `entry_point` takes it.\n\
         pub const ENTRY_POINT: &::core::primitive::str = {};\n\n",
        escape::string(&reflection.entry_point)
    );
    let bindings: Vec<_> = reflection.bindings.iter().map(|b| (b, input.mangling)).collect();
    let made = render_groups(out, &mut body, &input.name, &bindings);
    render_set(&mut body, reflection.stage == ShaderStage::Compute, &made);
    render_states(&mut body, reflection.stage, has_vertex);
    write_wgpu_module(out, &body);
}

/// A `BindGroupN` per set into `body`, and a doc line in `out` per set wgpu cannot bind; the sets made.
fn render_groups(
    out: &mut String,
    body: &mut String,
    owner: &str,
    bindings: &[(&DescriptorBinding, Mangling)],
) -> Vec<u32> {
    let mut groups: BTreeMap<u32, Vec<(&DescriptorBinding, Mangling)>> = BTreeMap::new();
    for &(binding, mangling) in bindings {
        groups.entry(binding.set).or_default().push((binding, mangling));
    }
    let mut made = Vec::new();
    for (set, bindings) in &groups {
        if let Some((binding, _)) = bindings.iter().find(|(b, _)| resource(b).is_none()) {
            let _ = writeln!(
                out,
                "        ///\n        /// Bind group {set} has no struct: binding {} is {}, which wgpu cannot bind.",
                binding.binding,
                kind_text(binding.kind, true)
            );
            continue;
        }
        render_group(body, owner, *set, bindings);
        made.push(*set);
    }
    made
}

fn render_group(out: &mut String, owner: &str, set: u32, bindings: &[(&DescriptorBinding, Mangling)]) {
    let shown = escape::code(owner);
    let _ = writeln!(
        out,
        "/// Bind group {set} of {shown}: its resources by name. [`BindGroup{set}::create`]\n\
         /// makes the `wgpu::BindGroup`."
    );
    let _ = writeln!(out, "#[derive(Clone, Debug)]\n{}\npub struct BindGroup{set}<'a> {{", render::ALLOW_UNUSED);
    let mut taken = BTreeSet::new();
    let mut entries = Vec::new();
    for (binding, mangling) in bindings {
        let Some((ty, variant)) = resource(binding) else { continue };
        let name = names::demangle(&binding.name, *mangling);
        let field = if name.is_empty() { format!("binding{}", binding.binding) } else { names::snake(&name) };
        let field = names::unique(field, &mut taken);
        let count = match binding.count {
            0 => " (a runtime-sized array)".to_owned(),
            1 => String::new(),
            n => format!(" (an array of {n})"),
        };
        let _ = writeln!(
            out,
            "    /// {}: binding {}, {}{count}.\n    pub {field}: {ty},",
            escape::code(&binding.name),
            binding.binding,
            kind_text(binding.kind, true)
        );
        let value = if binding.count == 1
            && matches!(binding.kind, DescriptorKind::UniformBuffer | DescriptorKind::StorageBuffer)
        {
            format!("::core::clone::Clone::clone(&self.{field})")
        } else {
            format!("self.{field}")
        };
        entries.push(format!("{W}::BindGroupEntry {{ binding: {}, resource: {variant}({value}) }}", binding.binding));
    }
    let _ = writeln!(out, "}}\n");
    let label = escape::string(&format!("{owner} group {set}"));
    let _ = writeln!(
        out,
        "impl BindGroup{set}<'_> {{\n    \
         /// Its group index.\n    \
         pub const INDEX: ::core::primitive::u32 = {set};\n\n    \
         /// Makes the bind group with `layout`'s layout for group {set}; an error if the\n    \
         /// layout's shaders do not use the group.\n    \
         pub fn create(&self, device: &{W}::Device, layout: &{RT}::ProgramLayout) -> ::core::result::Result<{W}::BindGroup, {RT}::WgpuError> {{\n        \
         ::core::result::Result::Ok(self.create_with(device, layout.group(Self::INDEX)?))\n    }}\n\n    \
         /// Makes the bind group with the group's own `wgpu::BindGroupLayout`.\n    \
         pub fn create_with(&self, device: &{W}::Device, layout: &{W}::BindGroupLayout) -> {W}::BindGroup {{\n        \
         device.create_bind_group(&{W}::BindGroupDescriptor {{\n            \
         label: ::core::option::Option::Some({label}),\n            \
         layout,\n            \
         entries: &[\n{}            ],\n        }})\n    }}\n}}\n",
        entries.iter().map(|e| format!("                {e},\n")).collect::<String>()
    );
}

fn render_set(out: &mut String, compute: bool, made: &[u32]) {
    let pass = if compute { "ComputePass" } else { "RenderPass" };
    let params: String = made.iter().map(|set| format!(", group{set}: &{W}::BindGroup")).collect();
    let calls: String = made.iter().map(|set| format!("    pass.set_bind_group({set}, group{set}, &[]);\n")).collect();
    let list: Vec<String> = made.iter().map(u32::to_string).collect();
    let which = if list.is_empty() { "none".to_owned() } else { list.join(", ") };
    let _ = writeln!(
        out,
        "/// Sets the bind groups ({which}) on `pass`, each at its index.\n\
         pub fn set_bind_groups(pass: &mut {W}::{pass}<'_>{params}) {{\n{calls}    let _ = pass;\n}}\n"
    );
}

/// Appends a program's wgpu items to `out`, one level in; `modules`: its Rust modules and stages, in stage order.
pub(crate) fn render_program(
    out: &mut String,
    name: &str,
    bindings: &[(DescriptorBinding, Mangling)],
    modules: &[(String, ShaderStage)],
) {
    let _ = writeln!(
        out,
        "    ::smolv_runtime::__wgpu_items! {{\n        /// The wgpu items of the program {}: its bind groups over \
         every stage, its\n        /// layout and its render pipeline (only with smolv-runtime's `wgpu` feature).",
        escape::code(name)
    );
    let mut body = String::new();
    let bindings: Vec<_> = bindings.iter().map(|(b, m)| (b, *m)).collect();
    let made = render_groups(out, &mut body, name, &bindings);
    let compute = modules.iter().any(|(_, stage)| *stage == ShaderStage::Compute);
    render_set(&mut body, compute, &made);
    let label = escape::string(name);
    let _ = writeln!(
        body,
        "/// The program's `ProgramLayout`: its bind group layouts and pipeline layout, from\n\
         /// `shaders`, the program's modules in the order of `MODULES`.\n\
         pub fn create_layout(device: &{W}::Device, shaders: [&::smolv_runtime::Shader; {n}], options: &{RT}::LayoutOptions) \
         -> ::core::result::Result<{RT}::ProgramLayout, {RT}::WgpuError> {{\n    \
         {RT}::BindGroupLayouts::new(&shaders, options)?.create(device, ::core::option::Option::Some({label}))\n}}\n",
        n = modules.len()
    );
    if let [(vertex, ShaderStage::Vertex), (fragment, ShaderStage::Fragment)] = modules {
        let _ = writeln!(
            body,
            "/// The program's render pipeline, with `layout`'s pipeline layout: `vertex` and\n\
             /// `fragment` are the modules made from its shaders, each run at its `ENTRY_POINT`.\n\
             pub fn render_pipeline(device: &{W}::Device, layout: &{RT}::ProgramLayout, vertex: &{W}::ShaderModule, \
             fragment: &{W}::ShaderModule, state: &{RT}::RenderState<'_>) -> {W}::RenderPipeline {{\n    \
             {RT}::create_render_pipeline(device, layout, (vertex, super::super::{vertex}::wgpu::ENTRY_POINT), \
             (fragment, super::super::{fragment}::wgpu::ENTRY_POINT), state)\n}}"
        );
    }
    write_wgpu_module(out, &body);
}

/// Writes `body` as the `mod wgpu` of the items `out` opened, and closes them.
fn write_wgpu_module(out: &mut String, body: &str) {
    let _ = writeln!(out, "        #[allow(unreachable_pub, clippy::needless_lifetimes)]\n        pub mod wgpu {{");
    render::indent(out, body, "            ");
    let _ = writeln!(out, "        }}\n    }}");
}

fn render_states(out: &mut String, stage: ShaderStage, has_vertex: bool) {
    let options = format!("{W}::PipelineCompilationOptions {{ constants, ..::core::default::Default::default() }}");
    match stage {
        ShaderStage::Vertex => {
            let buffers = if has_vertex {
                "/// `buffers`: the vertex buffer layouts, as\n\
                 /// `VertexBuffers::new(&[VERTEX_LAYOUT])?.layouts()` makes them."
            } else {
                "/// `buffers`: the vertex buffer layouts (none: the module has no vertex inputs)."
            };
            let _ = writeln!(
                out,
                "/// The vertex state of a render pipeline: `module` (made from this shader), the\n\
                 /// entry point, `constants` (the overrides, `Overrides::constants`).\n{buffers}\n\
                 pub fn vertex_state<'a>(module: &'a {W}::ShaderModule, buffers: &'a [::core::option::Option<{W}::VertexBufferLayout<'a>>], \
                 constants: &'a [(&'a ::core::primitive::str, ::core::primitive::f64)]) -> {W}::VertexState<'a> {{\n    \
                 {W}::VertexState {{ module, entry_point: ::core::option::Option::Some(ENTRY_POINT), \
                 compilation_options: {options}, buffers }}\n}}"
            );
        }
        ShaderStage::Fragment => {
            let _ = writeln!(
                out,
                "/// The fragment state of a render pipeline: `module` (made from this shader), the\n\
                 /// entry point, the colour `targets` and `constants` (the overrides).\n\
                 pub fn fragment_state<'a>(module: &'a {W}::ShaderModule, targets: &'a [::core::option::Option<{W}::ColorTargetState>], \
                 constants: &'a [(&'a ::core::primitive::str, ::core::primitive::f64)]) -> {W}::FragmentState<'a> {{\n    \
                 {W}::FragmentState {{ module, entry_point: ::core::option::Option::Some(ENTRY_POINT), \
                 compilation_options: {options}, targets }}\n}}"
            );
        }
        ShaderStage::Compute => {
            let _ = writeln!(
                out,
                "/// A compute pipeline of this shader: `module` made from it, `layout` from its\n\
                 /// reflection (`BindGroupLayouts`), `constants` (the overrides).\n\
                 pub fn compute_pipeline(device: &{W}::Device, label: ::core::option::Option<&::core::primitive::str>, \
                 layout: &{RT}::ProgramLayout, module: &{W}::ShaderModule, \
                 constants: &[(&::core::primitive::str, ::core::primitive::f64)]) -> {W}::ComputePipeline {{\n    \
                 device.create_compute_pipeline(&{W}::ComputePipelineDescriptor {{ label, \
                 layout: ::core::option::Option::Some(&layout.pipeline_layout), module, \
                 entry_point: ::core::option::Option::Some(ENTRY_POINT), compilation_options: {options}, \
                 cache: ::core::option::Option::None }})\n}}"
            );
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use smolv_format::reflect::{DescriptorBinding, DescriptorKind, Reflection, ShaderStage};

    use super::super::layout::{Mangling, ModuleInput};

    const HOSTILE: &str = "x\"); } panic!(\"\n*/ `";

    fn input() -> ModuleInput {
        let mut reflection = Reflection::new(ShaderStage::Fragment, HOSTILE);
        let binding = |set, binding, kind, count, name: &str| DescriptorBinding {
            set,
            binding,
            kind,
            count,
            stages: 0x10,
            name: name.to_owned(),
        };
        reflection.bindings = vec![
            binding(0, 0, DescriptorKind::UniformBuffer, 1, "frameData"),
            binding(0, 1, DescriptorKind::SampledImage, 1, "type"),
            binding(0, 2, DescriptorKind::StorageBuffer, 1, ""),
            binding(1, 0, DescriptorKind::Sampler, 4, HOSTILE),
            binding(2, 0, DescriptorKind::CombinedImageSampler, 1, "tex"),
        ];
        ModuleInput {
            name: format!("lit.frag{HOSTILE}"),
            source: PathBuf::from("lit.frag"),
            mangling: Mangling::None,
            reflection,
            interface: None,
            layouts: Default::default(),
        }
    }

    /// The items inside the module's `__wgpu_items!`, parsed.
    fn wgpu_items(code: &str) -> Vec<syn::Item> {
        let file = syn::parse_file(code).expect("the generated file parses");
        let module = file
            .items
            .iter()
            .find_map(|item| match item {
                syn::Item::Mod(m) if m.ident != "interface" => m.content.as_ref().map(|(_, items)| items),
                _ => None,
            })
            .expect("the module's own module");
        let mac = module
            .iter()
            .find_map(|item| match item {
                syn::Item::Macro(m) if m.mac.path.segments.last().is_some_and(|s| s.ident == "__wgpu_items") => {
                    Some(&m.mac)
                }
                _ => None,
            })
            .expect("the wgpu items");
        let inner: syn::File = syn::parse2(mac.tokens.clone()).expect("the wgpu items parse");
        let mut items = inner.items;
        assert_eq!(items.len(), 1, "one `mod wgpu`");
        let Some(syn::Item::Mod(wgpu)) = items.pop() else { panic!("one `mod wgpu`") };
        assert_eq!(wgpu.ident, "wgpu");
        wgpu.content.expect("inline").1
    }

    fn field_names(items: &[syn::Item], name: &str) -> Option<Vec<String>> {
        items.iter().find_map(|item| match item {
            syn::Item::Struct(s) if s.ident == name => {
                Some(s.fields.iter().filter_map(|f| f.ident.as_ref()).map(ToString::to_string).collect())
            }
            _ => None,
        })
    }

    #[test]
    fn bind_groups_name_their_resources_and_parse_for_hostile_names() {
        let generated = super::super::generate(&[input()], true);
        let items = wgpu_items(&generated.code);
        assert_eq!(
            field_names(&items, "BindGroup0").expect("group 0"),
            ["frame_data", "r#type", "binding2"],
            "fields by name: snake case, keywords raw, unnamed by binding number"
        );
        let group1 = field_names(&items, "BindGroup1").expect("group 1");
        assert_eq!(group1.len(), 1);
        assert!(group1[0].chars().all(|c| c.is_ascii_alphanumeric() || c == '_'), "{group1:?}");
        assert!(field_names(&items, "BindGroup2").is_none(), "a combined image sampler has no wgpu binding");
        let entry = items.iter().find_map(|item| match item {
            syn::Item::Const(c) if c.ident == "ENTRY_POINT" => Some(&*c.expr),
            _ => None,
        });
        let Some(syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(entry), .. })) = entry else {
            panic!("ENTRY_POINT is a string literal")
        };
        assert_eq!(entry.value(), HOSTILE, "the entry point's name as it is");
        let set = items.iter().find_map(|item| match item {
            syn::Item::Fn(f) if f.sig.ident == "set_bind_groups" => Some(f.sig.inputs.len()),
            _ => None,
        });
        assert_eq!(set, Some(3), "the pass and groups 0 and 1");
        assert!(items.iter().any(|item| matches!(item, syn::Item::Fn(f) if f.sig.ident == "fragment_state")));
        // The sampler array is a slice of samplers.
        assert!(generated.code.contains("&'a [&'a ::smolv_runtime::wgpu::wgpu::Sampler]"));
    }
}
