//! Compiling what an edit touched and publishing the results.

use std::collections::BTreeSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::time::Instant;

use smolv_build::Diagnostic;
use smolv_build::recipe::Recompiled;

use crate::event::Event;
use crate::layout::layout_changes;
use crate::targets::Targets;

/// Compiles every group of targets that an edit of `changed` touched (first
/// seen at `seen`), publishes what compiled, and says what happened. A
/// group that fails keeps its previous SPIR-V.
pub(crate) fn rebuild(targets: &mut Targets, changed: &BTreeSet<PathBuf>, seen: Instant) -> Vec<Event> {
    let mut events = Vec::new();
    for group in targets.touched_groups(changed) {
        let recipe = &targets.list[group[0]].recipe;
        let kept = || group.iter().map(|&i| targets.list[i].shader.name().to_owned()).collect::<Vec<_>>();
        // The compilers are other people's code: a panic in one is an error
        // about this shader, not the end of the game.
        let compiled = catch_unwind(AssertUnwindSafe(|| recipe.compile())).unwrap_or_else(|_| {
            Err(vec![Diagnostic::whole_file(
                &recipe.source,
                "the shader compiler panicked on this shader; change the construct it fails on",
            )])
        });
        match compiled {
            Ok(recompiled) => {
                for &index in &group {
                    events.push(publish(targets, index, &recompiled, seen));
                }
            }
            Err(errors) => {
                let kept = kept();
                for &index in &group {
                    targets.list[index].also_read(errors.iter().map(|error| error.path.as_path()));
                }
                events.push(Event::Failed { errors, kept });
            }
        }
    }
    events
}

/// Publishes target `index`'s module out of `recompiled`, unless its
/// blocks no longer have the layout the program was built with.
fn publish(targets: &mut Targets, index: usize, recompiled: &Recompiled, seen: Instant) -> Event {
    let target = &mut targets.list[index];
    let name = target.shader.name().to_owned();
    // What this compile read is what to watch from now on, whatever
    // becomes of its result.
    target.read(&recompiled.includes);
    let Some(words) = recompiled.module(&target.recipe.name) else {
        let error = Diagnostic::whole_file(
            &target.recipe.source,
            format!("no longer makes module {}; restore its entry point", target.recipe.name),
        );
        return Event::Failed { errors: vec![error], kept: vec![name] };
    };
    if let Some(interface) = recompiled.interface(&target.recipe.name) {
        let changes = layout_changes(&target.recipe, interface);
        if !changes.is_empty() {
            return Event::RebuildIncompatible { name, source: target.recipe.source.clone(), changes };
        }
    }
    match target.shader.publish(words.to_vec()) {
        Ok(version) => Event::Reloaded { name, version, seen, elapsed: seen.elapsed() },
        Err(why) => Event::Failed {
            errors: vec![Diagnostic::whole_file(&target.recipe.source, why.to_string())],
            kept: vec![name],
        },
    }
}
