//! Undoes the structs a front end adds (naga's wrapper and split `matCx2` columns, Slang's `_Array_std140_<T>`).

use super::layout::{Mangling, Member, ModuleLayouts, StructDef, Ty};

/// `layouts` with the front end's wrappers undone.
pub(crate) fn unwrapped(layouts: &ModuleLayouts, mangling: Mangling) -> ModuleLayouts {
    let mut out = layouts.clone();
    if mangling == Mangling::Wgsl {
        for block in &mut out.blocks {
            if let Some(inner) = out.structs.get(block.ty).and_then(naga_wrapped) {
                block.ty = inner;
            }
        }
        for def in &mut out.structs {
            def.members = joined_columns(std::mem::take(&mut def.members));
        }
    }
    if mangling == Mangling::Slang {
        let arrays: Vec<Option<Ty>> = out.structs.iter().map(slang_array).collect();
        for def in &mut out.structs {
            for member in &mut def.members {
                replace_arrays(&mut member.ty, &arrays);
            }
        }
    }
    out
}

/// The struct naga's wrapper holds: one nameless member at 0 of a struct type.
fn naga_wrapped(def: &StructDef) -> Option<usize> {
    match def.members.as_slice() {
        [Member { name, offset: 0, ty: Ty::Struct(inner) }] if name.is_empty() && def.name.is_empty() => Some(*inner),
        _ => None,
    }
}

/// The array inside Slang's `_Array_std140_<T> { data }`.
fn slang_array(def: &StructDef) -> Option<Ty> {
    match def.members.as_slice() {
        [Member { name, offset: 0, ty: ty @ Ty::Array { .. } }]
            if name == "data" && def.name.starts_with("_Array_") =>
        {
            Some(ty.clone())
        }
        _ => None,
    }
}

fn replace_arrays(ty: &mut Ty, arrays: &[Option<Ty>]) {
    match ty {
        Ty::Struct(index) => {
            if let Some(Some(array)) = arrays.get(*index) {
                *ty = array.clone();
            }
        }
        Ty::Array { element, .. } | Ty::RuntimeArray { element, .. } => replace_arrays(element, arrays),
        _ => {}
    }
}

/// `m_col0`, `m_col1`, ... vectors of one type, evenly spaced: the columns of the matrix `m`.
fn joined_columns(members: Vec<Member>) -> Vec<Member> {
    let mut out: Vec<Member> = Vec::with_capacity(members.len());
    let mut rest = members.into_iter().peekable();
    while let Some(first) = rest.next() {
        let (Some(base), &Ty::Vector { scalar, len }) =
            (first.name.strip_suffix("_col0").map(str::to_owned), &first.ty)
        else {
            out.push(first);
            continue;
        };
        let mut columns = vec![first];
        while let Some(next) = rest.peek() {
            let expected = format!("{base}_col{}", columns.len());
            let stride = columns.get(1).map(|c| c.offset - columns[0].offset);
            let last = columns.last().map_or(0, |c| c.offset);
            let spaced = next.offset > last && stride.is_none_or(|s| next.offset - last == s);
            if next.name == expected && next.ty == (Ty::Vector { scalar, len }) && spaced {
                columns.extend(rest.next());
            } else {
                break;
            }
        }
        match columns.as_slice() {
            [first, second, ..] => {
                let stride = second.offset - first.offset;
                let count = u32::try_from(columns.len()).unwrap_or(u32::MAX);
                let ty = Ty::Matrix { scalar, columns: count, rows: len, stride, row_major: false };
                out.push(Member { name: base, offset: first.offset, ty });
            }
            _ => out.extend(columns),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::layout::{Block, BlockRole, Scalar};
    use super::*;

    fn member(name: &str, offset: u32, ty: Ty) -> Member {
        Member { name: name.to_owned(), offset, ty }
    }

    fn def(name: &str, members: Vec<Member>) -> StructDef {
        StructDef { name: name.to_owned(), members, source: None }
    }

    const VEC2: Ty = Ty::Vector { scalar: Scalar::F32, len: 2 };

    #[test]
    fn nagas_wrapper_and_split_columns_are_undone() {
        let params = def(
            "std140_Params",
            vec![
                member("b", 0, Ty::Scalar(Scalar::F32)),
                member("m2_col0", 8, VEC2),
                member("m2_col1", 16, VEC2),
                member("x_col0", 24, VEC2),
            ],
        );
        let layouts = ModuleLayouts {
            structs: vec![def("", vec![member("", 0, Ty::Struct(1))]), params],
            blocks: vec![Block { role: BlockRole::Uniform { set: 0, binding: 0 }, ty: 0 }],
        };
        let out = unwrapped(&layouts, Mangling::Wgsl);
        assert_eq!(out.blocks[0].ty, 1, "the block is the wrapped struct");
        let names: Vec<&str> = out.structs[1].members.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["b", "m2", "x_col0"], "one column alone is not a matrix");
        assert_eq!(
            out.structs[1].members[1],
            member("m2", 8, Ty::Matrix { scalar: Scalar::F32, columns: 2, rows: 2, stride: 8, row_major: false })
        );
        assert_eq!(unwrapped(&layouts, Mangling::None), layouts, "only naga's output is rewritten");
    }

    #[test]
    fn slangs_array_wrapper_becomes_the_array() {
        let array = Ty::Array { element: Box::new(Ty::Scalar(Scalar::F32)), len: 3, stride: 16 };
        let layouts = ModuleLayouts {
            structs: vec![
                def("Params_std140", vec![member("fs", 16, Ty::Struct(1))]),
                def("_Array_std140_float3", vec![member("data", 0, array.clone())]),
            ],
            blocks: vec![Block { role: BlockRole::Uniform { set: 0, binding: 0 }, ty: 0 }],
        };
        assert_eq!(unwrapped(&layouts, Mangling::Slang).structs[0].members[0].ty, array);
    }
}
