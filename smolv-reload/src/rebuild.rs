//! Compiling what an edit touched and publishing the results.

use std::collections::BTreeSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::time::Instant;

use smolv_build::Diagnostic;
use smolv_build::recipe::{CompilerPool, Recompiled};

use crate::event::Event;
use crate::layout::{layout_changes, unreadable};
use crate::targets::Targets;

/// Compiles the targets an edit of `changed` touched; publishes them together if all compiled and fit.
pub(crate) fn rebuild(
    targets: &mut Targets,
    changed: &BTreeSet<PathBuf>,
    seen: Instant,
    pool: &CompilerPool,
) -> Vec<Event> {
    let mut refused = Vec::new();
    // Target index and words of every shader that compiled and fits.
    let mut ready: Vec<(usize, Vec<u32>)> = Vec::new();
    for group in targets.touched_groups(changed) {
        let recipe = &targets.list[group[0]].recipe;
        // A compiler's panic is an error about this shader, not the end of the game.
        let compiled = catch_unwind(AssertUnwindSafe(|| recipe.compile_with(pool))).unwrap_or_else(|_| {
            Err(vec![Diagnostic::whole_file(
                &recipe.source,
                "the shader compiler panicked on this shader; change the construct it fails on",
            )])
        });
        match compiled {
            Ok(recompiled) => {
                for &index in &group {
                    match check(targets, index, &recompiled) {
                        Ok(words) => ready.push((index, words)),
                        Err(event) => refused.push(event),
                    }
                }
            }
            Err(errors) => {
                let kept = group.iter().map(|&i| targets.list[i].shader.name().to_owned()).collect();
                for &index in &group {
                    targets.list[index].also_read(errors.iter().map(|error| error.path.as_path()));
                }
                refused.push(Event::Failed { errors, kept });
            }
        }
    }
    targets.held_back = if refused.is_empty() { BTreeSet::new() } else { ready.iter().map(|&(i, _)| i).collect() };
    let name = |index: usize| targets.list[index].shader.name().to_owned();
    if !refused.is_empty() {
        if !ready.is_empty() {
            let failed = refused.iter().flat_map(Event::kept).map(str::to_owned).collect();
            refused.push(Event::HeldBack { kept: ready.iter().map(|&(index, _)| name(index)).collect(), failed });
        }
        return refused;
    }
    let (indices, words): (Vec<usize>, Vec<Vec<u32>>) = ready.into_iter().unzip();
    let edit = indices.iter().zip(words).map(|(&index, words)| (targets.list[index].shader, words));
    match smolv_runtime::hot_reload::publish_together(edit) {
        Ok(versions) => indices
            .iter()
            .zip(versions)
            .map(|(&index, version)| Event::Reloaded { name: name(index), version, seen, elapsed: seen.elapsed() })
            .collect(),
        Err(why) => {
            let errors = indices
                .iter()
                .map(|&index| Diagnostic::whole_file(&targets.list[index].recipe.source, why.to_string()))
                .collect();
            vec![Event::Failed { errors, kept: indices.iter().map(|&index| name(index)).collect() }]
        }
    }
}

/// Target `index`'s module out of `recompiled`, or the event saying why it does not fit.
fn check(targets: &mut Targets, index: usize, recompiled: &Recompiled) -> Result<Vec<u32>, Event> {
    let target = &mut targets.list[index];
    let name = target.shader.name().to_owned();
    // What this compile read is what to watch from now on.
    target.read(&recompiled.includes);
    let Some(words) = recompiled.module(&target.recipe.name) else {
        let error = Diagnostic::whole_file(
            &target.recipe.source,
            format!("no longer makes module {}; restore its entry point", target.recipe.name),
        );
        return Err(Event::Failed { errors: vec![error], kept: vec![name] });
    };
    let changes = match recompiled.interface(&target.recipe.name) {
        Some(interface) => layout_changes(&target.recipe, interface),
        // Nothing to compare: the program was built with no layout of it.
        None if target.recipe.interface().is_none_or(|built| built.blocks.is_empty()) => Vec::new(),
        // Fail closed: a layout that cannot be read cannot be shown to fit.
        None => unreadable(&target.recipe, words),
    };
    if !changes.is_empty() {
        return Err(Event::RebuildIncompatible { name, source: target.recipe.source.clone(), changes });
    }
    Ok(words.to_vec())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use smolv_build::recipe::ShaderRecipe;
    use smolv_format::{ARTIFACT_DIR, MANIFEST_FILE};
    use smolv_runtime::ShaderSet;

    use super::*;
    use crate::targets::Target;

    /// `lit.frag`, which fills the uniform block `Frame`, built into `dir`:
    /// the set and the manifest's recipe.
    fn built(dir: &Path) -> (&'static ShaderSet, ShaderRecipe) {
        let shaders = dir.join("shaders");
        std::fs::create_dir_all(&shaders).unwrap();
        std::fs::write(
            shaders.join("lit.frag"),
            "#version 450\nlayout(set = 0, binding = 0) uniform Frame { vec4 tint; } frame;\n\
             layout(location = 0) out vec4 color;\nvoid main() { color = frame.tint; }\n",
        )
        .unwrap();
        let mut config = smolv_build::Config::new();
        config.shader_dir(&shaders).out_dir(dir.join("out")).cache_dir(dir.join("cache")).cargo_directives(false);
        config.try_compile().unwrap();
        let artifacts = dir.join("out").join(ARTIFACT_DIR);
        let manifest: smolv_format::Manifest<ShaderRecipe> =
            serde_json::from_slice(&std::fs::read(artifacts.join(MANIFEST_FILE)).unwrap()).unwrap();
        let set = ShaderSet::from_vec(std::fs::read(artifacts.join(&manifest.bundle)).unwrap()).unwrap();
        (Box::leak(Box::new(set)), manifest.modules[0].recipe.clone().unwrap())
    }

    #[test]
    fn a_module_whose_interface_cannot_be_read_is_refused_with_the_reason() {
        let dir = tempfile::tempdir().unwrap();
        let (set, recipe) = built(dir.path());
        let shader = set.get("lit.frag").unwrap();
        let words = shader.decode().unwrap();
        let mut targets = Targets::new(vec![Target::new(shader, recipe)]);

        // What smolv-build returns when the layout of the front end's module
        // cannot be read: the words, and no interface.
        let mut unreadable = Recompiled::default();
        unreadable.modules.push(("lit.frag".to_owned(), words.clone()));
        let Err(Event::RebuildIncompatible { name, changes, .. }) = check(&mut targets, 0, &unreadable) else {
            panic!("a module whose layout cannot be read is refused");
        };
        assert_eq!(name, "lit.frag");
        let change = changes.first().expect("the block the program fills is named").to_string();
        assert!(
            change
                .starts_with("the uniform buffer `Frame` (set 0, binding 0) no longer matches its generated Rust type")
                && change.contains("the new module's layout cannot be compared with it (")
                && change.contains("cannot be read"),
            "{change}"
        );

        // Not SPIR-V at all: the reader's own reason.
        let mut garbage = Recompiled::default();
        garbage.modules.push(("lit.frag".to_owned(), vec![1, 2, 3]));
        let Err(Event::RebuildIncompatible { changes, .. }) = check(&mut targets, 0, &garbage) else { panic!() };
        assert!(changes[0].to_string().contains("not a SPIR-V module"), "{}", changes[0]);

        // The same module with its interface read fits.
        let interface = smolv_format::reflect::Interface::from_spirv(&words).unwrap();
        let mut readable = unreadable.clone();
        readable.interfaces.push(("lit.frag".to_owned(), interface));
        assert_eq!(check(&mut targets, 0, &readable).ok(), Some(words));
    }
}
