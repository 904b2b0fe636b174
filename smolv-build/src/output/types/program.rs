//! Programs, each a `pub mod`: modules sharing a base name (`tint.vert`, `tint.frag`) that make one pipeline; a
//! variant (`tint@red`) takes the base's module for each stage it lacks.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use smolv_format::reflect::{DescriptorBinding, ShaderStage};

use super::escape;
use super::interface;
use super::layout::{Mangling, ModuleInput};

#[derive(Debug)]
pub(crate) struct Program {
    /// Its base name, as the modules' names spell it (`tint`, `tint@red`).
    pub(crate) name: String,
    /// Its modules, by index into the inputs, in stage order.
    pub(crate) modules: Vec<usize>,
    /// Every stage's bindings by set and binding, with their stages' flags and the naming module's mangling.
    pub(crate) bindings: Vec<(DescriptorBinding, Mangling)>,
    /// The push-constant range `(start, end, stages)`, in whole words.
    pub(crate) push_constants: Option<(u32, u32, u32)>,
    /// Named by `Config::program`, not found by base name.
    pub(crate) named: bool,
}

/// A module name's base and variant: `post/blur.comp@wide` is (`post/blur`, `wide`).
fn base(name: &str) -> (&str, Option<&str>) {
    let (path, variant) = name.split_once('@').map_or((name, None), |(path, variant)| (path, Some(variant)));
    let path = path.split('#').next().unwrap_or(path);
    let file = path.rfind('/').map_or(0, |slash| slash + 1);
    let end = path[file..].find('.').map_or(path.len(), |dot| file + dot);
    (&path[..end], variant)
}

/// Whether modules of these stages, in stage order, make one pipeline.
fn is_pipeline(stages: &[ShaderStage]) -> bool {
    let flags: Vec<u32> = stages.iter().map(|s| s.vk_stage_flag()).collect();
    let distinct = flags.iter().collect::<BTreeSet<_>>().len() == flags.len();
    let graphics = 0x1 | 0x2 | 0x4 | 0x8 | 0x10 | 0x40 | 0x80;
    use ShaderStage::{Compute, Fragment, Geometry, Mesh, Task, TessellationControl, TessellationEvaluation, Vertex};
    let has = |stage: ShaderStage| stages.contains(&stage);
    // Vertex with optional tessellation and geometry, or mesh with optional task: never both.
    let vertex = has(Vertex) && !has(Mesh) && !has(Task);
    let mesh = has(Mesh) && ![Vertex, TessellationControl, TessellationEvaluation, Geometry].into_iter().any(has);
    match stages {
        [Compute] => true,
        _ => distinct && flags.iter().all(|f| f & graphics != 0) && has(Fragment) && (vertex || mesh),
    }
}

/// The programs of `inputs`: those `named`, then those found by base name (unless named), and the problems.
pub(crate) fn find(inputs: &[ModuleInput], named: &[(String, Vec<String>)]) -> (Vec<Program>, Vec<String>) {
    let stage = |i: usize| inputs[i].reflection.stage;
    let mut candidates: Vec<(String, Vec<usize>, bool)> = Vec::new();
    let mut problems = Vec::new();
    for (name, modules) in named {
        let found: Result<Vec<usize>, &String> =
            modules.iter().map(|module| inputs.iter().position(|input| &input.name == module).ok_or(module)).collect();
        match found {
            Ok(found) => candidates.push((name.clone(), found, true)),
            Err(missing) => problems.push(format!(
                "Config::program({name:?}): no module {missing:?} was built; name modules as include_shader! takes them"
            )),
        }
    }
    let mut groups: BTreeMap<(&str, Option<&str>), Vec<usize>> = BTreeMap::new();
    for (i, input) in inputs.iter().enumerate() {
        groups.entry(base(&input.name)).or_default().push(i);
    }
    for (&(stem, variant), members) in &groups {
        let mut modules = members.clone();
        if variant.is_some()
            && let Some(plain) = groups.get(&(stem, None))
        {
            for &i in plain {
                if !modules.iter().any(|&m| stage(m) == stage(i)) {
                    modules.push(i);
                }
            }
        }
        let name = variant.map_or_else(|| stem.to_owned(), |variant| format!("{stem}@{variant}"));
        if !named.iter().any(|(named, _)| *named == name) {
            candidates.push((name, modules, false));
        }
    }
    let mut programs = Vec::new();
    for (name, mut modules, explicit) in candidates {
        modules.sort_by_key(|&i| (stage(i).vk_stage_flag(), i));
        modules.dedup();
        let stages: Vec<ShaderStage> = modules.iter().map(|&i| stage(i)).collect();
        let bindings = if is_pipeline(&stages) { merged_bindings(inputs, &modules) } else { None };
        let Some(bindings) = bindings else {
            if explicit {
                problems.push(format!(
                    "Config::program({name:?}): its modules make no pipeline (one compute shader, or a vertex or \
                     mesh and a fragment shader, no stage twice, bindings the stages agree on); it has no types"
                ));
            }
            continue;
        };
        let push_constants = merged_push_constants(inputs, &modules);
        programs.push(Program { name, modules, bindings, push_constants, named: explicit });
    }
    (programs, problems)
}

/// Every stage's bindings with their stages' flags; `None` where two stages disagree on one's kind or count.
fn merged_bindings(inputs: &[ModuleInput], modules: &[usize]) -> Option<Vec<(DescriptorBinding, Mangling)>> {
    let mut merged: BTreeMap<(u32, u32), (DescriptorBinding, Mangling)> = BTreeMap::new();
    for &m in modules {
        for binding in &inputs[m].reflection.bindings {
            // A binding met first is merged with itself: nothing changes.
            let entry = merged.entry((binding.set, binding.binding));
            let (known, mangling) = entry.or_insert_with(|| (binding.clone(), inputs[m].mangling));
            if (known.kind, known.count) != (binding.kind, binding.count) {
                return None;
            }
            known.stages |= binding.stages;
            if known.name.is_empty() && !binding.name.is_empty() {
                known.name.clone_from(&binding.name);
                *mangling = inputs[m].mangling;
            }
        }
    }
    Some(merged.into_values().collect())
}

/// One range over every stage's push constants in whole words, as `ProgramLayout` makes it.
fn merged_push_constants(inputs: &[ModuleInput], modules: &[usize]) -> Option<(u32, u32, u32)> {
    let (mut start, mut end, mut stages) = (u32::MAX, 0u64, 0u32);
    for range in modules.iter().flat_map(|&m| &inputs[m].reflection.push_constants) {
        start = start.min(range.offset);
        end = end.max(u64::from(range.offset) + u64::from(range.size));
        stages |= range.stages;
    }
    let (start, end) = (start & !3, end.div_ceil(4) * 4);
    let end = u32::try_from(end).ok()?;
    (end > start).then_some((start, end, stages))
}

/// The stages in `flags`, in words: `vertex and fragment`.
pub(crate) fn stage_words(flags: u32) -> String {
    const NAMES: [(u32, &str); 8] = [
        (0x1, "vertex"),
        (0x2, "tessellation control"),
        (0x4, "tessellation evaluation"),
        (0x8, "geometry"),
        (0x10, "fragment"),
        (0x20, "compute"),
        (0x40, "task"),
        (0x80, "mesh"),
    ];
    let words: Vec<&str> = NAMES.iter().filter(|(bit, _)| flags & bit != 0).map(|(_, name)| *name).collect();
    match words.as_slice() {
        [] => "no stage".to_owned(),
        [one] => format!("the {one} stage"),
        [rest @ .., last] => format!("the {} and {last} stages", rest.join(", ")),
    }
}

/// Appends the program's constants to `out`, one level in.
pub(crate) fn render_constants(out: &mut String, inputs: &[ModuleInput], program: &Program) {
    let names: Vec<String> = program.modules.iter().map(|&m| escape::string(&inputs[m].name)).collect();
    let _ = writeln!(
        out,
        "    /// The program's modules, as `include_shader!` takes them, in stage order.\n    \
         pub const MODULES: [&::core::primitive::str; {}] = [{}];\n",
        names.len(),
        names.join(", ")
    );
    let mut taken = BTreeSet::from(["MODULES", "BINDINGS", "PUSH_CONSTANTS"].map(String::from));
    let mut all = Vec::new();
    for (binding, mangling) in &program.bindings {
        let name = interface::binding_constant(binding, *mangling, &mut taken);
        let _ = writeln!(
            out,
            "    /// {}: set {}, binding {}, used by {}.\n    pub const {name}: super::interface::Binding = {};",
            escape::code(&binding.name),
            binding.set,
            binding.binding,
            stage_words(binding.stages),
            interface::binding_value(binding)
        );
        all.push(name);
    }
    let _ = writeln!(
        out,
        "    /// Every descriptor binding of the program, by set then binding, each with the\n    \
         /// flags of every stage that uses it: what a set layout takes.\n    \
         pub const BINDINGS: [super::interface::Binding; {}] = [{}];\n",
        all.len(),
        all.join(", ")
    );
    let _ = writeln!(
        out,
        "    /// The program's push-constant range: every stage's range merged and grown to whole\n    \
         /// words, with the flags of every stage that reads it, as the pipeline layout holds it\n    \
         /// and `vkCmdPushConstants` takes it; `None` where no stage reads push constants.\n    \
         pub const PUSH_CONSTANTS: ::core::option::Option<super::interface::PushConstantRange> = {};\n",
        interface::push_value(program.push_constants)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_base_name_drops_the_extension_entry_point_and_variant() {
        assert_eq!(base("tint.frag"), ("tint", None));
        assert_eq!(base("post/blur.comp@wide"), ("post/blur", Some("wide")));
        assert_eq!(base("sky.wgsl#fs_main"), ("sky", None));
        assert_eq!(base("lib.d/sky.wgsl#fs_main"), ("lib.d/sky", None), "a dot in a directory stays");
        assert_eq!(base("noext"), ("noext", None));
    }

    #[test]
    fn only_whole_pipelines_are_programs() {
        use ShaderStage::{Compute, Fragment, Geometry, Mesh, Task, Vertex};
        assert!(is_pipeline(&[Vertex, Fragment]));
        assert!(is_pipeline(&[Vertex, Geometry, Fragment]));
        assert!(is_pipeline(&[Compute]));
        assert!(!is_pipeline(&[Vertex]), "no fragment shader");
        assert!(!is_pipeline(&[Fragment, Fragment]), "a stage twice");
        assert!(!is_pipeline(&[Vertex, Fragment, Compute]), "compute with graphics");
        assert!(is_pipeline(&[Task, Mesh, Fragment]));
        assert!(!is_pipeline(&[Vertex, Mesh, Fragment]), "vertex and mesh");
        assert!(!is_pipeline(&[Vertex, Task, Fragment]), "a task shader without mesh");
        assert!(!is_pipeline(&[Geometry, Mesh, Fragment]), "geometry with mesh");
    }

    #[test]
    fn stage_flags_in_words() {
        assert_eq!(stage_words(0x11), "the vertex and fragment stages");
        assert_eq!(stage_words(0x20), "the compute stage");
        assert_eq!(stage_words(0x13), "the vertex, tessellation control and fragment stages");
    }
}
