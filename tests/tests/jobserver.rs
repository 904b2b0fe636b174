//! Cargo's `-j` holds across build scripts: two shader crates built
//! together with `-j2` never run more than two compiles at once, because
//! smolv-build runs each compile on a token from Cargo's jobserver.
//!
//! smolv-build's test hook `SMOLV_TEST_JOB_LOG` records when each compile
//! held its token (and holds it 100 ms longer, so that jobs that could
//! overlap do). Both build scripts wait for each other before they
//! compile, so they do run at the same time: each holds one of the two
//! tokens, and without the jobserver each would run two compiles at once
//! on its two threads (`NUM_JOBS=2`), four in all.

use std::path::Path;

use smolv_tests::outside::{crate_path, create, write};

const SHADERS: usize = 6;

/// Waits (up to a minute) until every package named in `SMOLV_TEST_PEERS`
/// has started its build script, then compiles the shaders.
const BUILD_RS: &str = r#"
fn main() {
    let dir = std::path::PathBuf::from(std::env::var("SMOLV_TEST_BARRIER").expect("SMOLV_TEST_BARRIER"));
    std::fs::write(dir.join(env!("CARGO_PKG_NAME")), "").unwrap();
    let peers = std::env::var("SMOLV_TEST_PEERS").unwrap();
    let start = std::time::Instant::now();
    while !peers.split(',').all(|peer| dir.join(peer).exists()) && start.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    smolv_build::Config::new().shader_dir("shaders").compile();
}
"#;

fn shader_crate(root: &Path, name: &str) {
    let dir = root.join(name);
    write(
        &dir.join("Cargo.toml"),
        &format!(
            "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
             [build-dependencies]\nsmolv-build = {{ path = {} }}\n",
            crate_path("smolv-build")
        ),
    );
    write(&dir.join("build.rs"), BUILD_RS);
    write(&dir.join("src/lib.rs"), "//! Shaders only.\n");
    for i in 0..SHADERS {
        write(
            &dir.join(format!("shaders/s{i}.frag")),
            &format!(
                "#version 450\nlayout(location = 0) out vec4 color;\nvoid main() {{ color = vec4({i}.0, 0.5, 0.25, 1.0); }}\n"
            ),
        );
    }
}

/// The most records in `log` whose [start, end] spans overlap at once.
fn most_at_once(log: &Path) -> (usize, usize) {
    let mut events: Vec<(u128, i32)> = Vec::new();
    let mut records = 0;
    for entry in std::fs::read_dir(log).unwrap().flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap();
        let times: Vec<u128> = text.split_whitespace().map(|t| t.parse().unwrap()).collect();
        assert_eq!(times.len(), 2, "{}: {text:?}", entry.path().display());
        assert!(times[0] < times[1], "{text:?}");
        events.push((times[0], 1));
        // An end sorts before a start at the same instant: the token was
        // given back first.
        events.push((times[1], -1));
        records += 1;
    }
    events.sort();
    let (mut now, mut most) = (0i32, 0i32);
    for (_, step) in events {
        now += step;
        most = most.max(now);
    }
    (records, usize::try_from(most).unwrap())
}

#[test]
fn two_shader_crates_built_with_j2_run_at_most_two_compiles_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("shader-crates");
    let (barrier, log) = (dir.path().join("barrier"), dir.path().join("jobs"));
    std::fs::create_dir_all(&barrier).unwrap();
    std::fs::create_dir_all(&log).unwrap();
    // Named after this test, so no other test builds these packages in
    // the shared target directory.
    let names = ["jobserver-probe-a", "jobserver-probe-b"];
    create(&root, "[workspace]\nmembers = [\"jobserver-probe-a\", \"jobserver-probe-b\"]\nresolver = \"3\"\n");
    for name in names {
        shader_crate(&root, name);
    }

    smolv_tests::outside::succeed(
        smolv_tests::outside::cargo(&root, &["build", "-j2"])
            .env("SMOLV_TEST_JOB_LOG", &log)
            .env("SMOLV_TEST_BARRIER", &barrier)
            .env("SMOLV_TEST_PEERS", names.join(",")),
    );
    let (records, most) = most_at_once(&log);
    assert_eq!(records, 2 * SHADERS, "every shader compiled once, none from a cache");
    assert!(most <= 2, "{most} compiles ran at once under -j2");
    // Both build scripts compiled at the same time (they waited for each
    // other), so the check above had four to catch.
    assert_eq!(most, 2, "the two build scripts did not compile at the same time");
}
