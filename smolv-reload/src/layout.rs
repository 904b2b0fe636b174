//! Whether a recompiled module still fits the running program, built against the build's block
//! layouts: member names may change; offsets, sizes, types and strides may not.

use std::fmt;

use smolv_build::recipe::ShaderRecipe;
use smolv_format::reflect::{Block, BlockKind, Interface, Member, ScalarKind, ScalarType, Type};

/// Differences listed per block; the rest are counted.
const MOST_LISTED: usize = 4;
/// Nesting followed; SPIR-V has no cycles, but a hostile module can nest deep.
const MOST_DEPTH: u32 = 32;
/// Structs one block's comparison visits at most (two members of one struct a level: 2^depth).
const MOST_VISITS: u32 = 4096;

/// A block of a reloaded shader whose layout is no longer the one the program was built with;
/// displays as one sentence.
///
/// ```
/// use smolv_format::reflect::BlockKind;
/// let change = smolv_reload::LayoutChange::new(BlockKind::PushConstant, None, None, "Push")
///     .rust_type("lit_frag::Push")
///     .difference("member `tint` moved from offset 0 to 16");
/// assert_eq!(
///     change.to_string(),
///     "the push-constant block `Push` no longer matches its generated Rust type `lit_frag::Push`: \
///      member `tint` moved from offset 0 to 16"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct LayoutChange {
    /// Uniform, storage or push constant.
    pub kind: BlockKind,
    /// `DescriptorSet`; `None` for a push-constant block.
    pub set: Option<u32>,
    /// `Binding`; `None` for a push-constant block.
    pub binding: Option<u32>,
    /// The block's struct as the shader names it (empty without a name).
    pub shader_type: String,
    /// The generated Rust type of the block (`lit_frag::PushConstants`), if any.
    pub rust_type: Option<String>,
    /// What moved, one entry per difference, at most a few; see [`more`](Self::more).
    pub differences: Vec<String>,
    /// Differences found beyond those listed.
    pub more: usize,
}

impl LayoutChange {
    /// A change of the block `kind` at `set` and `binding` over the shader struct `shader_type`.
    ///
    /// ```
    /// use smolv_format::reflect::BlockKind;
    /// let change = smolv_reload::LayoutChange::new(BlockKind::Uniform, Some(0), Some(1), "Frame");
    /// assert!(change.differences.is_empty());
    /// ```
    pub fn new(kind: BlockKind, set: Option<u32>, binding: Option<u32>, shader_type: impl Into<String>) -> Self {
        Self { kind, set, binding, shader_type: shader_type.into(), rust_type: None, differences: Vec::new(), more: 0 }
    }

    /// With the generated Rust type `rust`.
    ///
    /// ```
    /// use smolv_format::reflect::BlockKind;
    /// let change = smolv_reload::LayoutChange::new(BlockKind::Uniform, Some(0), Some(0), "Frame").rust_type("Frame");
    /// assert_eq!(change.rust_type.as_deref(), Some("Frame"));
    /// ```
    #[must_use]
    pub fn rust_type(mut self, rust: impl Into<String>) -> Self {
        self.rust_type = Some(rust.into());
        self
    }

    /// With one more difference, listed or counted in [`more`](Self::more).
    ///
    /// ```
    /// use smolv_format::reflect::BlockKind;
    /// let change = smolv_reload::LayoutChange::new(BlockKind::Storage, Some(0), Some(2), "Particles")
    ///     .difference("its size went from 16 to 32 bytes");
    /// assert_eq!(change.differences.len(), 1);
    /// ```
    #[must_use]
    pub fn difference(mut self, what: impl Into<String>) -> Self {
        self.push(what.into());
        self
    }

    fn push(&mut self, what: String) {
        if self.differences.len() < MOST_LISTED {
            self.differences.push(what);
        } else {
            self.more += 1;
        }
    }
}

impl fmt::Display for LayoutChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            BlockKind::PushConstant => "push-constant block",
            kind => kind.name(),
        };
        write!(f, "the {kind}")?;
        if !self.shader_type.is_empty() {
            write!(f, " `{}`", self.shader_type)?;
        }
        if let (Some(set), Some(binding)) = (self.set, self.binding) {
            write!(f, " (set {set}, binding {binding})")?;
        }
        match &self.rust_type {
            Some(rust) => write!(f, " no longer matches its generated Rust type `{rust}`")?,
            None => write!(f, " no longer has the layout the program was built with")?,
        }
        write!(f, ": {}", self.differences.join("; "))?;
        if self.more > 0 {
            write!(f, "; and {} more", self.more)?;
        }
        Ok(())
    }
}

/// The blocks of `new` (`recipe`'s module, compiled again) whose layout differs from the build's.
pub(crate) fn layout_changes(recipe: &ShaderRecipe, new: &Interface) -> Vec<LayoutChange> {
    let Some(old) = recipe.interface() else { return Vec::new() };
    let mut changes = Vec::new();
    for (index, block) in old.blocks.iter().enumerate() {
        let same_place = |b: &&Block| (b.kind, b.set, b.binding) == (block.kind, block.set, block.binding);
        let Some(now) = new.blocks.iter().find(same_place) else { continue };
        let mut change = block_change(recipe, old, index, block);
        Compare { old, new, change: &mut change, visits: 0 }.structs(block.ty, now.ty, "", 0);
        if !change.differences.is_empty() {
            changes.push(change);
        }
    }
    changes
}

/// One change per block of `recipe`'s interface, for a module whose interface cannot be read.
pub(crate) fn unreadable(recipe: &ShaderRecipe, words: &[u32]) -> Vec<LayoutChange> {
    let Some(old) = recipe.interface() else { return Vec::new() };
    let why = match Interface::from_spirv(words) {
        Err(error) => error.to_string(),
        Ok(_) => "the compiler's module before optimizing cannot be read".to_owned(),
    };
    old.blocks
        .iter()
        .enumerate()
        .map(|(index, block)| {
            block_change(recipe, old, index, block)
                .difference(format!("the new module's layout cannot be compared with it ({why})"))
        })
        .collect()
}

/// A change of the build's block `index` of `old`, with no differences yet.
fn block_change(recipe: &ShaderRecipe, old: &Interface, index: usize, block: &Block) -> LayoutChange {
    let shader_type = old.types.get(block.ty).map_or("", |def| def.name.as_str());
    let rust_type = recipe.block_type(index).map(str::to_owned);
    LayoutChange { rust_type, ..LayoutChange::new(block.kind, block.set, block.binding, shader_type) }
}

/// Walks an old and a new struct side by side, noting every difference.
struct Compare<'a> {
    old: &'a Interface,
    new: &'a Interface,
    change: &'a mut LayoutChange,
    /// Structs visited so far (see [`MOST_VISITS`]).
    visits: u32,
}

impl Compare<'_> {
    /// `path` is the struct's place in the block (`lights[].`), empty for the block.
    fn structs(&mut self, old: usize, new: usize, path: &str, depth: u32) {
        let at = || member(path, ": ", "");
        let (Some(before), Some(after)) = (self.old.types.get(old), self.new.types.get(new)) else {
            return self.change.push(format!("{}its struct cannot be read", at()));
        };
        if depth > MOST_DEPTH {
            return self.change.push(format!("{}nests deeper than {MOST_DEPTH} structs", at()));
        }
        self.visits += 1;
        if self.visits > MOST_VISITS {
            return self.change.push(format!("{}holds more than {MOST_VISITS} structs to compare", at()));
        }
        for (was, now) in pairs(&before.members, &after.members) {
            match (was, now) {
                (Some(was), Some(now)) => self.members(was, now, path, depth),
                (Some(was), None) => self
                    .change
                    .push(format!("member `{path}{}` (offset {}, {} bytes) is gone", was.name, was.offset, was.size)),
                (None, Some(now)) => self
                    .change
                    .push(format!("member `{path}{}` is new at offset {} ({} bytes)", now.name, now.offset, now.size)),
                (None, None) => {}
            }
        }
        if before.size != after.size {
            self.change.push(format!(
                "{}size went from {} to {} bytes",
                member(path, "'s ", "its "),
                before.size,
                after.size
            ));
        }
    }

    fn members(&mut self, was: &Member, now: &Member, path: &str, depth: u32) {
        let name = format!("{path}{}", if now.name.is_empty() { &was.name } else { &now.name });
        if was.offset != now.offset {
            self.change.push(format!("member `{name}` moved from offset {} to {}", was.offset, now.offset));
        }
        self.types(&was.ty, &now.ty, &name, depth);
    }

    fn types(&mut self, was: &Type, now: &Type, name: &str, depth: u32) {
        match (was, now) {
            (Type::Struct(a), Type::Struct(b)) => {
                // A nameless member (naga's block wrapper) adds nothing to the path.
                let nested = if name.is_empty() || name.ends_with('.') { name.to_owned() } else { format!("{name}.") };
                self.structs(*a, *b, &nested, depth + 1);
            }
            (
                Type::Array { element: a, length: la, stride: sa },
                Type::Array { element: b, length: lb, stride: sb },
            ) => {
                if la != lb {
                    self.change.push(format!("`{name}` has {} elements where it had {}", length(*lb), length(*la)));
                }
                if sa != sb {
                    self.change.push(format!("`{name}`'s elements are {sb} bytes apart where they were {sa}"));
                }
                self.types(a, b, &format!("{name}[]"), depth + 1);
            }
            (
                Type::Matrix { scalar: a, columns: ca, rows: ra, stride: sa, row_major: ma },
                Type::Matrix { scalar: b, columns: cb, rows: rb, stride: sb, row_major: mb },
            ) if (a, ca, ra) == (b, cb, rb) => {
                if ma != mb {
                    let major = |row: bool| if row { "row-major" } else { "column-major" };
                    self.change.push(format!("`{name}` is {} where it was {}", major(*mb), major(*ma)));
                }
                if sa != sb {
                    self.change.push(format!("`{name}`'s matrix stride is {sb} where it was {sa}"));
                }
            }
            (Type::DeviceAddress { .. }, Type::DeviceAddress { .. }) => {}
            _ if was == now => {}
            _ => self.change.push(format!(
                "`{name}` is {} where it was {}",
                describe(now, self.new),
                describe(was, self.old)
            )),
        }
    }
}

/// Old and new members side by side: by name where all are named uniquely, else by position.
fn pairs<'m>(old: &'m [Member], new: &'m [Member]) -> Vec<(Option<&'m Member>, Option<&'m Member>)> {
    let named = |members: &[Member]| {
        let names: std::collections::BTreeSet<&str> = members.iter().map(|m| m.name.as_str()).collect();
        names.len() == members.len() && !names.contains("")
    };
    if !(named(old) && named(new)) {
        let longest = old.len().max(new.len());
        return (0..longest).map(|i| (old.get(i), new.get(i))).collect();
    }
    let by_name = |member: &Member, side: &'m [Member]| side.iter().find(|other| other.name == member.name);
    // An unpaired member pairs with an unpaired one at its offset: it was renamed.
    let new_unpaired: Vec<&Member> = new.iter().filter(|now| by_name(now, old).is_none()).collect();
    let mut pairs: Vec<_> = old
        .iter()
        .map(|was| {
            let now = by_name(was, new).or_else(|| new_unpaired.iter().copied().find(|now| now.offset == was.offset));
            (Some(was), now)
        })
        .collect();
    let paired = |now: &Member| pairs.iter().any(|(_, n)| n.is_some_and(|n| std::ptr::eq(n, now)));
    let added: Vec<&Member> = new.iter().filter(|now| !paired(now)).collect();
    pairs.extend(added.into_iter().map(|now| (None, Some(now))));
    pairs
}

/// A nested struct's `path` (``a.``) as ``member `a` `` then `suffix`; `otherwise` for the block.
fn member(path: &str, suffix: &str, otherwise: &str) -> String {
    path.strip_suffix('.').map_or_else(|| otherwise.to_owned(), |member| format!("member `{member}`{suffix}"))
}

fn length(length: smolv_format::reflect::ArrayLength) -> String {
    length.default_length().map_or_else(|| "a run-time number of".to_owned(), |n| n.to_string())
}

fn scalar(scalar: ScalarType) -> String {
    match scalar.kind {
        ScalarKind::Bool => "bool".to_owned(),
        ScalarKind::Sint => format!("i{}", scalar.width),
        ScalarKind::Uint => format!("u{}", scalar.width),
        ScalarKind::Float => format!("f{}", scalar.width),
        _ => format!("{}-bit scalar", scalar.width),
    }
}

/// A type in words, for messages: `f32`, `vec3<f32>`, `array<f32, 4>`, ``struct `Light` ``.
fn describe(ty: &Type, interface: &Interface) -> String {
    match ty {
        Type::Scalar(s) => scalar(*s),
        Type::Vector { scalar: s, count } => format!("vec{count}<{}>", scalar(*s)),
        Type::Matrix { scalar: s, columns, rows, .. } => format!("mat{columns}x{rows}<{}>", scalar(*s)),
        Type::Array { element, length, .. } => match length.default_length() {
            Some(n) => format!("array<{}, {n}>", describe(element, interface)),
            None => format!("array<{}>", describe(element, interface)),
        },
        Type::Struct(index) => match interface.types.get(*index).map(|def| def.name.as_str()) {
            Some(name) if !name.is_empty() => format!("struct `{name}`"),
            _ => "a struct".to_owned(),
        },
        Type::DeviceAddress { .. } => "a device address".to_owned(),
        _ => "another type".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smolv_format::reflect::{Block, TypeDef};

    fn f32() -> Type {
        Type::Scalar(ScalarType::new(ScalarKind::Float, 32))
    }

    fn member(name: &str, offset: u32, ty: Type, size: u32) -> Member {
        Member { name: name.into(), offset, ty, size }
    }

    fn frame(members: Vec<Member>, size: u32) -> Interface {
        let mut def = TypeDef::new("Frame");
        def.members = members;
        def.size = size;
        let mut interface = Interface::default();
        interface.types.push(def);
        interface.blocks.push(Block { set: Some(0), binding: Some(0), ..Block::new(BlockKind::Uniform, 0) });
        interface
    }

    fn differences(old: &Interface, new: &Interface) -> Vec<String> {
        let mut change = LayoutChange::new(BlockKind::Uniform, Some(0), Some(0), "Frame");
        Compare { old, new, change: &mut change, visits: 0 }.structs(0, 0, "", 0);
        change.differences
    }

    #[test]
    fn an_inserted_member_moves_the_ones_after_it() {
        let vec4 = Type::Vector { scalar: ScalarType::new(ScalarKind::Float, 32), count: 4 };
        let old = frame(vec![member("tint", 0, vec4.clone(), 16), member("time", 16, f32(), 4)], 20);
        let new = frame(
            vec![member("fade", 0, vec4.clone(), 16), member("tint", 16, vec4, 16), member("time", 32, f32(), 4)],
            36,
        );
        assert_eq!(
            differences(&old, &new),
            [
                "member `tint` moved from offset 0 to 16",
                "member `time` moved from offset 16 to 32",
                "member `fade` is new at offset 0 (16 bytes)",
                "its size went from 20 to 36 bytes",
            ]
        );
    }

    #[test]
    fn renaming_a_member_is_no_change_and_retyping_one_is() {
        let old = frame(vec![member("time", 0, f32(), 4)], 4);
        assert!(differences(&old, &frame(vec![member("seconds", 0, f32(), 4)], 4)).is_empty());
        let int = Type::Scalar(ScalarType::new(ScalarKind::Sint, 32));
        assert_eq!(differences(&old, &frame(vec![member("time", 0, int, 4)], 4)), ["`time` is i32 where it was f32"]);
    }

    #[test]
    fn a_nested_struct_and_an_array_stride_are_followed() {
        let mut light = TypeDef::new("Light");
        light.members = vec![member("power", 0, f32(), 4)];
        light.size = 4;
        let lights = |stride| Type::Array {
            element: Box::new(Type::Struct(1)),
            length: smolv_format::reflect::ArrayLength::Fixed(2),
            stride,
        };
        let mut old = frame(vec![member("lights", 0, lights(16), 32)], 32);
        old.types.push(light.clone());
        light.members[0].offset = 8;
        light.size = 12;
        let mut new = frame(vec![member("lights", 0, lights(16), 32)], 32);
        new.types.push(light);
        assert_eq!(
            differences(&old, &new),
            ["member `lights[].power` moved from offset 0 to 8", "member `lights[]`'s size went from 4 to 12 bytes"]
        );
    }
}
