//! Keeps shader struct names apart from generated ones (`Vertex`, `SpecConstants`, `XElement`): a struct so named
//! takes [`SUFFIX`], then a number if taken (`VertexStruct2`).

use std::collections::BTreeSet;

use super::lower::{Lowered, Role};
use super::names;

/// What a shader's struct takes when its name is one the generator adds.
pub(crate) const SUFFIX: &str = "Struct";

/// The generated names each module holds (`Vertex`, `SpecConstants`).
pub(crate) fn generated(has_vertex: bool, has_spec_constants: bool) -> Vec<&'static str> {
    [(has_vertex, "Vertex"), (has_spec_constants, "SpecConstants")]
        .into_iter()
        .filter_map(|(has, name)| has.then_some(name))
        .collect()
}

/// Renames every struct of `modules` named as a generated one; `generated[m]` lists module `m`'s.
pub(crate) fn resolve(modules: &mut [Lowered], generated: &[Vec<&'static str>]) {
    // A renamed head renames its alias, which can meet another: repeat until nothing changes.
    for _ in 0..16 {
        let elements: BTreeSet<String> = modules
            .iter()
            .flat_map(|module| module.structs.iter())
            .filter(|rust| matches!(rust.role, Role::Head { .. }))
            .map(|rust| format!("{}Element", rust.name))
            .collect();
        let mut changed = false;
        for (module, own) in modules.iter_mut().zip(generated) {
            let mut taken: BTreeSet<String> = module.structs.iter().map(|rust| rust.name.clone()).collect();
            taken.extend(own.iter().map(|name| (*name).to_owned()));
            taken.extend(elements.iter().cloned());
            for rust in &mut module.structs {
                let collides = own.contains(&rust.name.as_str()) || elements.contains(&rust.name);
                if rust.role == Role::Vertex || !collides {
                    continue;
                }
                rust.name = names::unique(format!("{}{SUFFIX}", rust.name), &mut taken);
                changed = true;
            }
        }
        if !changed {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::layout::BlockRole;
    use super::super::lower::{FieldTy, RustStruct};
    use super::*;

    fn rust(name: &str, role: Role) -> RustStruct {
        RustStruct {
            name: name.to_owned(),
            shader_name: name.to_owned(),
            role,
            fields: Vec::new(),
            size: 0,
            align: 1,
            source: None,
        }
    }

    fn head() -> Role {
        Role::Head {
            block: BlockRole::Storage { set: 0, binding: 0 },
            element: FieldTy::Bytes(4),
            offset: 0,
            stride: 4,
        }
    }

    fn names_of(module: &Lowered) -> Vec<&str> {
        module.structs.iter().map(|r| r.name.as_str()).collect()
    }

    #[test]
    fn a_shader_struct_named_like_a_generated_item_takes_the_suffix() {
        let mut modules = vec![
            Lowered {
                structs: vec![
                    rust("Vertex", Role::Nested),
                    rust("SpecConstants", Role::Nested),
                    rust("VertexStruct", Role::Nested),
                    rust("Vertex", Role::Vertex),
                ],
                ..Lowered::default()
            },
            Lowered { structs: vec![rust("Data", head()), rust("Frame", Role::Nested)], ..Lowered::default() },
            Lowered {
                structs: vec![rust("DataElement", Role::Nested), rust("Vertex", Role::Nested)],
                ..Lowered::default()
            },
        ];
        resolve(&mut modules, &[generated(true, true), generated(false, false), generated(false, false)]);
        assert_eq!(names_of(&modules[0]), ["VertexStruct2", "SpecConstantsStruct", "VertexStruct", "Vertex"]);
        assert_eq!(names_of(&modules[1]), ["Data", "Frame"], "nothing collides: unchanged");
        assert_eq!(names_of(&modules[2]), ["DataElementStruct", "Vertex"], "no vertex struct here: `Vertex` stays");
    }

    #[test]
    fn a_renamed_head_renames_what_its_new_alias_meets() {
        // `Vertex` heads a runtime array in a vertex shader: it becomes
        // `VertexStruct`, whose alias `VertexStructElement` then meets the
        // shader's own struct of that name.
        let mut modules = vec![Lowered {
            structs: vec![
                rust("Vertex", head()),
                rust("VertexStructElement", Role::Nested),
                rust("Vertex", Role::Vertex),
            ],
            ..Lowered::default()
        }];
        resolve(&mut modules, &[generated(true, false)]);
        assert_eq!(names_of(&modules[0]), ["VertexStruct", "VertexStructElementStruct", "Vertex"]);
    }
}
