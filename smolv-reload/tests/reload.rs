//! Hot reload at the SPIR-V level, on temporary copies of the example
//! game's shaders built by smolv-build: an edit changes the decoded words
//! to what a build of the edit makes; a syntax error reports its line and
//! keeps the old words; fixing the file recovers; editing an include
//! reloads every shader that includes it, and only those.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use smolv_build::recipe::ShaderRecipe;
use smolv_build::{Config, Variant};
use smolv_format::{ARTIFACT_DIR, MANIFEST_FILE};

type Manifest = smolv_format::Manifest<ShaderRecipe>;
use smolv_reload::{Event, Reloader, Watcher};
use smolv_runtime::ShaderSet;

fn example_shaders() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../example-game/shaders")
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Builds `shaders` as example-game's build.rs does, into `out`; returns
/// the manifest and the bundle as a set.
fn build(shaders: &Path, out: &Path) -> (Manifest, &'static ShaderSet) {
    let mut config = Config::new();
    config
        .shader_dir(shaders)
        .include_dir(shaders.join("include"))
        .variants("sprite.frag", [Variant::new("additive").define("ADDITIVE", "1")])
        .out_dir(out)
        .cache_dir(Path::new(env!("CARGO_TARGET_TMPDIR")).join("smolv-reload-cache"))
        .cargo_directives(false);
    config.try_compile().unwrap_or_else(|e| panic!("the example's shaders build: {e}"));
    let dir = out.join(ARTIFACT_DIR);
    let manifest: Manifest = serde_json::from_slice(&std::fs::read(dir.join(MANIFEST_FILE)).unwrap()).unwrap();
    let set = ShaderSet::from_vec(std::fs::read(dir.join(&manifest.bundle)).unwrap()).unwrap();
    (manifest, Box::leak(Box::new(set)))
}

/// A build of a copy of the example's shaders, watched.
struct Watched {
    _dir: tempfile::TempDir,
    /// Where the sources are read from.
    shaders: PathBuf,
    set: &'static ShaderSet,
    watcher: Watcher,
}

/// Copies the shaders, builds them, and watches them; with `relocated`, the
/// build is of one copy and the watcher reads a second one.
fn watched(relocated: bool) -> Watched {
    let dir = tempfile::tempdir().unwrap();
    let built = dir.path().join("built");
    copy_tree(&example_shaders(), &built);
    let (manifest, set) = build(&built, &dir.path().join("out"));
    let mut reloader = Reloader::new();
    reloader.quiet(true);
    for module in &manifest.modules {
        let recipe = module.recipe.clone().expect("the manifest records recipes");
        reloader.shader_with_recipe(set.get(&module.name).unwrap(), recipe);
    }
    let shaders = if relocated {
        let moved = dir.path().join("moved");
        copy_tree(&built, &moved);
        reloader.shader_dir(&moved);
        moved
    } else {
        built
    };
    let watcher = reloader.start().unwrap();
    Watched { _dir: dir, shaders, set, watcher }
}

impl Watched {
    fn edit(&self, file: &str, from: &str, to: &str) {
        let path = self.shaders.join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(from), "{file} holds {from:?}");
        std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    }

    fn words(&self, name: &str) -> Vec<u32> {
        self.set.get(name).unwrap().decode().unwrap()
    }

    fn version(&self, name: &str) -> u64 {
        self.set.get(name).unwrap().version()
    }

    /// Events until `done` holds for those so far (at most 60 s).
    fn events_until(&self, done: impl Fn(&[Event]) -> bool) -> Vec<Event> {
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut events = Vec::new();
        while !done(&events) {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.watcher.events().recv_timeout(left) {
                Ok(event) => events.push(event),
                Err(_) => panic!("no reload in time; events so far: {events:?}"),
            }
        }
        events
    }

    /// No event for a while (for "nothing else reloaded").
    fn quiet_for(&self, wait: Duration) -> Vec<Event> {
        std::thread::sleep(wait);
        self.watcher.events().try_iter().collect()
    }
}

fn reloaded(events: &[Event]) -> BTreeSet<String> {
    events
        .iter()
        .filter_map(|event| match event {
            Event::Reloaded { name, .. } => Some(name.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn an_edit_changes_the_decoded_words_to_what_a_build_of_the_edit_makes() {
    let game = watched(false);
    let before = game.words("post.frag");
    game.edit("post.frag", "color = vec4(c, 1.0);", "color = vec4(c.bgr, 1.0);");
    let events = game.events_until(|events| reloaded(events).contains("post.frag"));
    let line = events.iter().find(|e| matches!(e, Event::Reloaded { .. })).unwrap().to_string();
    assert!(line.starts_with("compiled post.frag in ") && line.ends_with(" ms"), "{line}");
    let after = game.words("post.frag");
    assert_ne!(after, before, "the edit changes the SPIR-V");
    assert_eq!(game.version("post.frag"), 1);
    assert_eq!(game.set.get("post.frag").unwrap().decode_cached().unwrap(), &after[..]);

    let fresh = tempfile::tempdir().unwrap();
    let (_, rebuilt) = build(&game.shaders, fresh.path());
    assert_eq!(after, rebuilt.get("post.frag").unwrap().decode().unwrap(), "the words a build of the edit makes");
    assert_eq!(game.version("sprite.frag"), 0, "a shader that was not edited is as built");
}

#[test]
fn a_syntax_error_reports_its_line_and_keeps_the_old_words_until_a_fix() {
    let game = watched(false);
    let before = game.words("post.frag");
    game.edit("post.frag", "    color = vec4(c, 1.0);", "    color = vec4(c, 1.0) +;");
    let events = game.events_until(|events| events.iter().any(|e| matches!(e, Event::Failed { .. })));
    let Some(Event::Failed { errors, kept }) = events.iter().find(|e| matches!(e, Event::Failed { .. })) else {
        unreachable!()
    };
    assert_eq!(kept, &["post.frag"]);
    let path = game.shaders.join("post.frag");
    let text = events.iter().find(|e| matches!(e, Event::Failed { .. })).unwrap().to_string();
    let line = std::fs::read_to_string(&path).unwrap().lines().position(|l| l.contains("+;")).unwrap() + 1;
    assert!(
        text.lines().any(|l| l.starts_with(&format!("shader error: {}:{line}:", path.display()))),
        "every error at path:line:col: {text}"
    );
    assert!(!errors.is_empty());
    assert_eq!(game.words("post.frag"), before, "the old shader stays");
    assert_eq!(game.version("post.frag"), 0);

    game.edit("post.frag", "    color = vec4(c, 1.0) +;", "    color = vec4(c, 1.0);");
    game.events_until(|events| reloaded(events).contains("post.frag"));
    assert_eq!(game.version("post.frag"), 1, "the fix reloads");
    assert_eq!(game.words("post.frag"), before, "the fixed file is the original again");
}

#[test]
fn editing_an_include_in_a_relocated_copy_reloads_its_four_dependents_only() {
    let game = watched(true);
    let dependents: BTreeSet<String> =
        ["particle.vert", "particles.comp", "post.frag", "sprite.vert"].into_iter().map(String::from).collect();
    // The block keeps its layout (the game's `Frame` still fits it); its
    // variable's name, which ships, changes.
    game.edit("include/frame.glsl", "} frame;\n", "} frame_data;\n#define frame frame_data\n");
    let mut events = game.events_until(|events| reloaded(events).len() >= dependents.len());
    events.extend(game.quiet_for(Duration::from_millis(300)));
    assert_eq!(reloaded(&events), dependents, "{events:?}");
    let fresh = tempfile::tempdir().unwrap();
    let (_, rebuilt) = build(&game.shaders, fresh.path());
    for name in &dependents {
        assert_eq!(game.version(name), 1, "{name}");
        assert_eq!(game.words(name), rebuilt.get(name).unwrap().decode().unwrap(), "{name}: what a build makes");
    }
    for shader in game.set.shaders() {
        if !dependents.contains(shader.name()) {
            assert_eq!(shader.version(), 0, "{} does not include frame.glsl", shader.name());
        }
    }
}

/// A small tree of its own: `a.frag` and `b.frag` share `Frame` from
/// `include/frame.glsl` (one generated type, `Frame`) and each declare a
/// different `Push` (one type in each shader's module, `a_frag::Push`).
fn small_tree(root: &Path) -> PathBuf {
    let shaders = root.join("shaders");
    std::fs::create_dir_all(shaders.join("include")).unwrap();
    std::fs::write(
        shaders.join("include/frame.glsl"),
        "layout(set = 0, binding = 0) uniform Frame {\n    vec4 tint;\n    float time;\n} frame;\n",
    )
    .unwrap();
    for (name, push) in [("a.frag", "vec4 scale;\n    float gain;"), ("b.frag", "float gain;")] {
        let text = format!(
            "#version 450\n#include <frame.glsl>\nlayout(push_constant) uniform Push {{\n    {push}\n}} push;\n\
             layout(location = 0) out vec4 color;\nvoid main() {{ color = frame.tint * frame.time * push.gain; }}\n"
        );
        std::fs::write(shaders.join(name), text).unwrap();
    }
    shaders
}

/// Builds `shaders` (with `include/` as include directory) into `out`, and
/// watches every module with the manifest's recipes.
fn build_and_watch(shaders: &Path, out: &Path) -> (&'static ShaderSet, Watcher) {
    build_and_watch_with(shaders, out, Reloader::new().quiet(true))
}

/// As [`build_and_watch`], with `reloader`'s settings.
fn build_and_watch_with(shaders: &Path, out: &Path, reloader: &mut Reloader) -> (&'static ShaderSet, Watcher) {
    let mut config = Config::new();
    config
        .shader_dir(shaders)
        .include_dir(shaders.join("include"))
        .out_dir(out)
        .cache_dir(Path::new(env!("CARGO_TARGET_TMPDIR")).join("smolv-reload-cache"))
        .cargo_directives(false);
    config.try_compile().unwrap_or_else(|e| panic!("the shaders build: {e}"));
    let dir = out.join(ARTIFACT_DIR);
    let manifest: Manifest = serde_json::from_slice(&std::fs::read(dir.join(MANIFEST_FILE)).unwrap()).unwrap();
    let set: &'static ShaderSet =
        Box::leak(Box::new(ShaderSet::from_vec(std::fs::read(dir.join(&manifest.bundle)).unwrap()).unwrap()));
    for module in &manifest.modules {
        reloader.shader_with_recipe(set.get(&module.name).unwrap(), module.recipe.clone().unwrap());
    }
    (set, reloader.start().unwrap())
}

fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{} holds {from:?}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

/// Events until `done` holds for those so far (at most 60 s).
fn events_until(watcher: &Watcher, done: impl Fn(&[Event]) -> bool) -> Vec<Event> {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut events = Vec::new();
    while !done(&events) {
        let left = deadline.saturating_duration_since(Instant::now());
        match watcher.events().recv_timeout(left) {
            Ok(event) => events.push(event),
            Err(_) => panic!("no reload in time; events so far: {events:?}"),
        }
    }
    events
}

#[test]
fn an_include_added_by_an_edit_from_an_unwatched_directory_reloads_when_it_is_edited() {
    let dir = tempfile::tempdir().unwrap();
    let shaders = small_tree(dir.path());
    // Outside the shader directory, and read by no shader at start: nothing
    // watches it then.
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("gain.glsl"), "#define GAIN 0.5\n").unwrap();
    let (set, watcher) = build_and_watch(&shaders, &dir.path().join("out"));
    let shader = set.get("b.frag").unwrap();

    let b = std::fs::read_to_string(shaders.join("b.frag")).unwrap();
    let b = b
        .replace("#include <frame.glsl>\n", "#include <frame.glsl>\n#include \"../elsewhere/gain.glsl\"\n")
        .replace("push.gain;", "push.gain * GAIN;");
    std::fs::write(shaders.join("b.frag"), b).unwrap();
    events_until(&watcher, |events| reloaded(events).contains("b.frag"));
    assert_eq!(shader.version(), 1);
    let including = shader.decode().unwrap();

    edit(&elsewhere.join("gain.glsl"), "0.5", "0.75");
    events_until(&watcher, |events| reloaded(events).contains("b.frag"));
    assert_eq!(shader.version(), 2, "the include's edit reloads the shader that reads it");
    assert_ne!(shader.decode().unwrap(), including, "with the include's new value");
    assert_eq!(set.get("a.frag").unwrap().version(), 0, "a.frag reads no such file");
}

#[test]
fn fixing_an_error_in_an_include_an_edit_added_from_elsewhere_reloads() {
    let dir = tempfile::tempdir().unwrap();
    let shaders = small_tree(dir.path());
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("gain.glsl"), "const float GAIN = 0.5 +;\n").unwrap();
    let (set, watcher) = build_and_watch(&shaders, &dir.path().join("out"));

    let b = std::fs::read_to_string(shaders.join("b.frag")).unwrap();
    let b = b
        .replace("#include <frame.glsl>\n", "#include <frame.glsl>\n#include \"../elsewhere/gain.glsl\"\n")
        .replace("push.gain;", "push.gain * GAIN;");
    std::fs::write(shaders.join("b.frag"), b).unwrap();
    let events = events_until(&watcher, |events| events.iter().any(|e| matches!(e, Event::Failed { .. })));
    let failed = events.iter().find(|e| matches!(e, Event::Failed { .. })).unwrap().to_string();
    assert!(failed.contains("gain.glsl:1:"), "the error is in the include: {failed}");

    // The failed compile named the include: fixing it is seen.
    edit(&elsewhere.join("gain.glsl"), "0.5 +;", "0.5;");
    events_until(&watcher, |events| reloaded(events).contains("b.frag"));
    assert_eq!(set.get("b.frag").unwrap().version(), 1);
}

/// The one incompatible event of `name` among `events`.
fn incompatible<'e>(events: &'e [Event], name: &str) -> &'e smolv_reload::LayoutChange {
    let found = events.iter().find_map(|event| match event {
        Event::RebuildIncompatible { name: shader, changes, .. } if shader == name => Some(changes),
        _ => None,
    });
    let changes = found.unwrap_or_else(|| panic!("{name} is refused: {events:?}"));
    assert_eq!(changes.len(), 1, "{changes:?}");
    &changes[0]
}

fn refused(events: &[Event]) -> BTreeSet<String> {
    events
        .iter()
        .filter_map(|event| match event {
            Event::RebuildIncompatible { name, .. } => Some(name.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_layout_change_is_refused_naming_the_generated_type_it_no_longer_matches() {
    let dir = tempfile::tempdir().unwrap();
    let shaders = small_tree(dir.path());
    let (set, watcher) = build_and_watch(&shaders, &dir.path().join("out"));
    let before: Vec<Vec<u32>> = ["a.frag", "b.frag"].iter().map(|n| set.get(n).unwrap().decode().unwrap()).collect();

    // A member before the others: every offset after it moves, in both
    // shaders, which fill the one type `Frame`.
    let frame = shaders.join("include/frame.glsl");
    edit(&frame, "    vec4 tint;\n", "    vec4 fade;\n    vec4 tint;\n");
    let events = events_until(&watcher, |events| refused(events).len() == 2);
    for name in ["a.frag", "b.frag"] {
        let change = incompatible(&events, name);
        assert_eq!(change.rust_type.as_deref(), Some("Frame"), "{change}");
        assert_eq!((change.set, change.binding), (Some(0), Some(0)));
        let text = change.to_string();
        assert!(text.contains("generated Rust type `Frame`"), "{text}");
        assert!(text.contains("member `tint` moved from offset 0 to 16"), "{text}");
        assert!(text.contains("member `time` moved from offset 16 to 32"), "{text}");
        assert!(text.contains("member `fade` is new at offset 0 (16 bytes)"), "{text}");
    }
    let shown = events.iter().find(|e| matches!(e, Event::RebuildIncompatible { .. })).unwrap().to_string();
    assert!(shown.lines().next().unwrap().starts_with("shader error: "), "{shown}");
    assert!(shown.lines().last().unwrap().contains("kept the previous "), "{shown}");
    for (name, before) in ["a.frag", "b.frag"].iter().zip(&before) {
        let shader = set.get(name).unwrap();
        assert_eq!((shader.version(), &shader.decode().unwrap()), (0, before), "{name} keeps its words");
    }

    // Back as built: both reload.
    edit(&frame, "    vec4 fade;\n    vec4 tint;\n", "    vec4 tint;\n");
    events_until(&watcher, |events| reloaded(events).len() == 2);

    // a.frag's own `Push`, a type of its module: a member changes type.
    edit(&shaders.join("a.frag"), "    vec4 scale;", "    vec2 scale;");
    let events = events_until(&watcher, |events| !refused(events).is_empty());
    let change = incompatible(&events, "a.frag");
    assert_eq!(change.rust_type.as_deref(), Some("a_frag::Push"), "{change}");
    let text = change.to_string();
    assert!(
        text.starts_with("the push-constant block `Push` no longer matches its generated Rust type `a_frag::Push`"),
        "{text}"
    );
    assert!(text.contains("`scale` is vec2<f32> where it was vec4<f32>"), "{text}");
    assert!(text.contains("member `gain` moved from offset 16 to 8"), "{text}");
    assert_eq!(set.get("a.frag").unwrap().version(), 1, "only the reload of the revert");
}

/// A program of its own: `tri.vert` hands `tri.frag` a colour at location 0.
fn program_tree(root: &Path) -> PathBuf {
    let shaders = root.join("shaders");
    std::fs::create_dir_all(shaders.join("include")).unwrap();
    std::fs::write(
        shaders.join("tri.vert"),
        "#version 450\nlayout(location = 0) out vec4 v_color;\n\
         void main() {\n    gl_Position = vec4(0.0);\n    v_color = vec4(1.0, 0.0, 0.0, 1.0);\n}\n",
    )
    .unwrap();
    std::fs::write(
        shaders.join("tri.frag"),
        "#version 450\nlayout(location = 0) in vec4 v_color;\nlayout(location = 0) out vec4 color;\n\
         void main() {\n    color = v_color;\n}\n",
    )
    .unwrap();
    shaders
}

/// Removes the varying from both files of `program_tree`, one save after
/// the other, as an editor's "save all" does; `broken` breaks the fragment
/// shader's save.
fn remove_the_varying(shaders: &Path, broken: bool) {
    edit(&shaders.join("tri.vert"), "    v_color = vec4(1.0, 0.0, 0.0, 1.0);\n", "");
    edit(&shaders.join("tri.vert"), "layout(location = 0) out vec4 v_color;\n", "");
    let colour =
        if broken { "    color = vec4(0.0, 1.0, 0.0, 1.0) +;" } else { "    color = vec4(0.0, 1.0, 0.0, 1.0);" };
    edit(&shaders.join("tri.frag"), "    color = v_color;", colour);
    edit(&shaders.join("tri.frag"), "layout(location = 0) in vec4 v_color;\n", "");
}

#[test]
fn two_files_of_one_program_saved_together_are_published_as_one_edit() {
    let dir = tempfile::tempdir().unwrap();
    let shaders = program_tree(dir.path());
    // Saves within the debounce are one edit; a loaded machine may take a
    // while between the four writes.
    let mut reloader = Reloader::new();
    reloader.quiet(true).debounce(Duration::from_millis(300));
    let (set, watcher) = build_and_watch_with(&shaders, &dir.path().join("out"), &mut reloader);
    let (vertex, fragment) = (set.get("tri.vert").unwrap(), set.get("tri.frag").unwrap());
    let changes = smolv_runtime::hot_reload::subscribe();

    remove_the_varying(&shaders, false);
    let events = events_until(&watcher, |events| reloaded(events).len() == 2);
    assert_eq!(reloaded(&events), BTreeSet::from(["tri.vert".to_owned(), "tri.frag".to_owned()]), "{events:?}");
    assert_eq!((vertex.version(), fragment.version()), (1, 1), "each published once");
    // Other tests publish in this process too: only this edit's changes count.
    let ours: Vec<_> = changes.try_iter().filter(|change| change.name.starts_with("tri.")).collect();
    assert_eq!(ours.len(), 2, "{ours:?}");
    assert_eq!(ours[0].generation, ours[1].generation, "one publish for the whole edit: {ours:?}");
    let fresh = tempfile::tempdir().unwrap();
    let mut config = Config::new();
    config.shader_dir(&shaders).out_dir(fresh.path()).cache_dir(fresh.path().join("cache")).cargo_directives(false);
    config.try_compile().unwrap();
    let rebuilt = ShaderSet::open(fresh.path().join(ARTIFACT_DIR).join("shaders.smvb")).unwrap();
    for shader in [vertex, fragment] {
        let built = rebuilt.get(shader.name()).unwrap().decode().unwrap();
        assert_eq!(shader.decode().unwrap(), built, "{}: what a build of the edit makes", shader.name());
    }
}

#[test]
fn an_edit_with_one_broken_file_publishes_none_of_its_files() {
    let dir = tempfile::tempdir().unwrap();
    let shaders = program_tree(dir.path());
    // Saves within the debounce are one edit; a loaded machine may take a
    // while between the four writes.
    let mut reloader = Reloader::new();
    reloader.quiet(true).debounce(Duration::from_millis(300));
    let (set, watcher) = build_and_watch_with(&shaders, &dir.path().join("out"), &mut reloader);
    let (vertex, fragment) = (set.get("tri.vert").unwrap(), set.get("tri.frag").unwrap());
    let before = vertex.decode().unwrap();

    remove_the_varying(&shaders, true);
    let events = events_until(&watcher, |events| events.iter().any(|e| matches!(e, Event::HeldBack { .. })));
    assert!(reloaded(&events).is_empty(), "{events:?}");
    let failed = events.iter().find_map(|event| match event {
        Event::Failed { kept, .. } => Some(kept.clone()),
        _ => None,
    });
    assert_eq!(failed, Some(vec!["tri.frag".to_owned()]), "{events:?}");
    let held = events.iter().find(|e| matches!(e, Event::HeldBack { .. })).unwrap();
    assert_eq!(
        held.to_string(),
        "kept the previous tri.vert too: it changed in the same edit as tri.frag, which did not reload, and the \
         shaders of one edit reload together"
    );
    assert_eq!((vertex.version(), fragment.version()), (0, 0), "neither half of the edit is published");
    assert_eq!(vertex.decode().unwrap(), before);

    // The fix reloads the whole edit: the vertex shader's half too.
    edit(&shaders.join("tri.frag"), "vec4(0.0, 1.0, 0.0, 1.0) +;", "vec4(0.0, 1.0, 0.0, 1.0);");
    events_until(&watcher, |events| reloaded(events).contains("tri.frag"));
    assert_eq!(fragment.version(), 1);
}
