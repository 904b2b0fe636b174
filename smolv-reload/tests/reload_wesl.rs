//! Hot reload of WESL as of GLSL: a three-file tree with an `@if`
//! variant, built by smolv-build; editing a file two imports away reloads
//! every module of both jobs with what a build of the edit makes, and an
//! error in an imported file is reported at its line and keeps the old
//! words.
#![cfg(feature = "wesl")]

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

use smolv_build::recipe::ShaderRecipe;
use smolv_build::{Config, Variant};
use smolv_format::{ARTIFACT_DIR, MANIFEST_FILE};
use smolv_reload::{Event, Reloader, Watcher};
use smolv_runtime::ShaderSet;

type Manifest = smolv_format::Manifest<ShaderRecipe>;

const LIT: &str = "\
import package::lib::light::shade;

@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4f {
    return vec4f(f32(i), 0.0, 0.0, 1.0);
}

@fragment fn fs() -> @location(0) vec4f {
    var color = shade(vec3f(0.0, 0.0, 1.0));
    @if(shadows) {
        color = color * 0.25;
    }
    return vec4f(color, 1.0);
}
";

const LIGHT: &str = "\
import package::common::GAIN;

fn shade(normal: vec3f) -> vec3f {
    return normal * GAIN;
}
";

const MODULES: [&str; 4] = ["lit.wesl#fs", "lit.wesl#vs", "lit.wesl@shadows#fs", "lit.wesl@shadows#vs"];

fn build(shaders: &Path, out: &Path, cache: &Path) -> (Manifest, &'static ShaderSet) {
    let mut config = Config::new();
    config
        .shader_dir(shaders)
        .variants("lit.wesl", [Variant::new("shadows").wesl_feature("shadows", true)])
        .out_dir(out)
        .cache_dir(cache)
        .cargo_directives(false);
    config.try_compile().unwrap_or_else(|e| panic!("the WESL tree builds: {e}"));
    let dir = out.join(ARTIFACT_DIR);
    let manifest: Manifest = serde_json::from_slice(&std::fs::read(dir.join(MANIFEST_FILE)).unwrap()).unwrap();
    let set = ShaderSet::from_vec(std::fs::read(dir.join(&manifest.bundle)).unwrap()).unwrap();
    (manifest, Box::leak(Box::new(set)))
}

fn events_until(watcher: &Watcher, done: impl Fn(&[Event]) -> bool) -> Vec<Event> {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut events = Vec::new();
    while !done(&events) {
        match watcher.events().recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(event) => events.push(event),
            Err(_) => panic!("no reload in time; events so far: {events:?}"),
        }
    }
    events
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
fn editing_a_wesl_import_reloads_both_jobs_and_an_error_there_keeps_the_old_words() {
    let dir = tempfile::tempdir().unwrap();
    let shaders = dir.path().join("shaders");
    std::fs::create_dir_all(shaders.join("lib")).unwrap();
    std::fs::write(shaders.join("lit.wesl"), LIT).unwrap();
    std::fs::write(shaders.join("lib/light.wesl"), LIGHT).unwrap();
    std::fs::write(shaders.join("common.wesl"), "const GAIN = 0.5;\n").unwrap();
    let cache = dir.path().join("cache");
    let (manifest, set) = build(&shaders, &dir.path().join("out"), &cache);
    let mut reloader = Reloader::new();
    reloader.quiet(true);
    for module in &manifest.modules {
        reloader.shader_with_recipe(set.get(&module.name).unwrap(), module.recipe.clone().unwrap());
    }
    let watcher = reloader.start().unwrap();
    let before = set.get("lit.wesl@shadows#fs").unwrap().decode().unwrap();

    // The third file: imported by lib/light.wesl, which lit.wesl imports.
    std::fs::write(shaders.join("common.wesl"), "const GAIN = 0.125;\n").unwrap();
    let events = events_until(&watcher, |events| reloaded(events).len() == MODULES.len());
    assert_eq!(reloaded(&events), MODULES.iter().map(|m| m.to_string()).collect(), "{events:?}");
    let after = set.get("lit.wesl@shadows#fs").unwrap().decode().unwrap();
    assert_ne!(after, before, "the new constant is in the variant");
    let fresh = tempfile::tempdir().unwrap();
    let (_, rebuilt) = build(&shaders, fresh.path(), &fresh.path().join("cache"));
    for name in MODULES {
        let built = rebuilt.get(name).unwrap().decode().unwrap();
        assert_eq!(set.get(name).unwrap().decode().unwrap(), built, "{name}: what a build of the edit makes");
    }

    // An error in the imported file: reported there, the old words kept.
    std::fs::write(shaders.join("lib/light.wesl"), LIGHT.replace("normal * GAIN", "normal * GAIN * true")).unwrap();
    let events = events_until(&watcher, |events| events.iter().any(|e| matches!(e, Event::Failed { .. })));
    let failed = events.iter().find(|e| matches!(e, Event::Failed { .. })).unwrap().to_string();
    let expected = format!("shader error: {}:4:", shaders.join("lib/light.wesl").display());
    assert!(failed.lines().any(|l| l.starts_with(&expected)), "{failed}");
    assert_eq!(set.get("lit.wesl@shadows#fs").unwrap().decode().unwrap(), after, "the old shader stays");
}
