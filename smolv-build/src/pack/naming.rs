//! The names of a build's files under the artifact directory.

/// File name of a module's container: readable, and unique even where names differ in unfit characters.
pub(crate) fn artifact_name(index: usize, module: &str, kind: &str) -> String {
    let safe: String =
        module.chars().map(|c| if c.is_ascii_alphanumeric() || "._-@".contains(c) { c } else { '_' }).collect();
    match kind {
        "spv" => format!("spirv/{index:04}-{safe}.spv"),
        "data" => format!("embedded/modules/{index:04}-{safe}.data"),
        "wgsl" => format!("wgsl/{index:04}-{safe}.wgsl"),
        _ => format!("modules/{index:04}-{safe}.smvc"),
    }
}
