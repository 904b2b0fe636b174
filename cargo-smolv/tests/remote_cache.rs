//! The remote cache against a real server: Debian's nginx with WebDAV
//! `PUT`, started on 127.0.0.1 by each test and stopped afterwards.
//!
//! "Machines" are separate local cache and output directories building the
//! same shader tree, or two copies of it at different paths (two
//! checkouts): keys record paths relative to the build's root, so they
//! agree either way.

// The server harness smolv-build's build bench shares.
#[path = "../../smolv-build/tests/support/nginx.rs"]
mod nginx;
// A server slower than nginx can be made, from smolv-build's unit tests.
#[path = "../../smolv-build/src/cache/remote/test_server.rs"]
mod test_server;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use nginx::{Nginx, Options};
use sha2::Digest as _;
use smolv_build::cache::RemoteCacheMode;
use smolv_build::{Config, Report, Variant};
use test_server::TestServer;

/// `lit.frag` (an include, 5 variants + the base), `blur.comp`, `sky.vert`,
/// `tint.frag`: 9 compile jobs.
const JOBS: usize = 9;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn shader_tree(root: &Path) {
    write(&root.join("include/light.glsl"), "vec3 light(vec3 n) { return vec3(max(dot(n, vec3(0, 0, 1)), 0.0)); }\n");
    write(
        &root.join("shaders/lit.frag"),
        "#version 450\n#include <light.glsl>\nlayout(location=0) in vec3 n;\nlayout(location=0) out vec4 color;\n\
         #ifndef GAIN\n#define GAIN 1.0\n#endif\nvoid main() { color = vec4(light(normalize(n)) * GAIN, 1.0); }\n",
    );
    write(
        &root.join("shaders/blur.comp"),
        "#version 450\nlayout(local_size_x=64) in;\nlayout(set=0, binding=0) buffer Data { vec4 items[]; };\n\
         void main() { uint i = gl_GlobalInvocationID.x; items[i] = 0.5 * (items[i] + items[i + 1]); }\n",
    );
    write(
        &root.join("shaders/sky.vert"),
        "#version 450\nlayout(location=0) in vec3 p;\nlayout(push_constant) uniform M { mat4 vp; } m;\n\
         void main() { gl_Position = m.vp * vec4(p, 1.0); }\n",
    );
    write(
        &root.join("shaders/tint.frag"),
        "#version 450\nlayout(location=0) out vec4 color;\nlayout(set=0, binding=0) uniform T { vec4 tint; } t;\n\
         void main() { color = t.tint; }\n",
    );
}

/// A tree in a temporary directory, and a "machine" builder for it.
struct Tree {
    dir: tempfile::TempDir,
}

impl Tree {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        shader_tree(dir.path());
        Self { dir }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn out(&self, machine: &str) -> PathBuf {
        self.root().join(machine).join("out")
    }

    /// A machine with its own (initially empty) cache and output.
    fn machine(&self, machine: &str, remote: Option<(&str, RemoteCacheMode)>) -> Config {
        let mut config = Config::new();
        config
            .shader_dir(self.root().join("shaders"))
            .include_dir(self.root().join("include"))
            .variants("lit.frag", (1..=5).map(|i| Variant::new(format!("g{i}")).define("GAIN", format!("{i}.5"))))
            .out_dir(self.out(machine))
            .cache_dir(self.root().join(machine).join("cache"))
            .cargo_directives(false)
            .strip_debug(true);
        match remote {
            Some((url, mode)) => config.remote_cache(url).remote_cache_mode(mode),
            // Whatever the environment says, this machine has no remote.
            None => config.remote_cache_mode(RemoteCacheMode::Off),
        };
        config
    }
}

/// Every artifact a build wrote, by relative path, except the report
/// (which counts cache hits, so it differs between machines by design).
fn outputs(out: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(dir: &Path, base: &Path, found: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, base, found);
            } else if !path.file_name().unwrap().to_string_lossy().starts_with("smolv-report") {
                found.insert(path.strip_prefix(base).unwrap().to_owned(), std::fs::read(&path).unwrap());
            }
        }
    }
    let mut found = BTreeMap::new();
    walk(out, out, &mut found);
    assert!(found.len() > JOBS, "the build wrote too little: {:?}", found.keys());
    found
}

fn remote_warnings(report: &Report) -> Vec<&String> {
    report.warnings.iter().filter(|w| w.starts_with("remote cache")).collect()
}

fn sha256_hex(bytes: &[u8]) -> String {
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// The CAS blob whose entry records `needle` (a source path as entries
/// record it: `<root>/shaders/...`), and the AC record that names it.
fn entry_files(server: &Nginx, needle: &str) -> (PathBuf, PathBuf) {
    let needle = needle.as_bytes().to_vec();
    let blobs: Vec<PathBuf> = server
        .files("cas")
        .into_iter()
        .filter(|blob| std::fs::read(blob).unwrap().windows(needle.len()).any(|w| w == needle))
        .collect();
    assert_eq!(blobs.len(), 1, "one entry records {}", String::from_utf8_lossy(&needle));
    let hash = blobs[0].file_name().unwrap().to_string_lossy().into_owned();
    let records: Vec<PathBuf> = server
        .files("ac")
        .into_iter()
        .filter(|record| std::fs::read(record).unwrap().windows(hash.len()).any(|w| w == hash.as_bytes()))
        .collect();
    assert_eq!(records.len(), 1);
    (blobs[0].clone(), records[0].clone())
}

#[test]
fn a_new_machine_gets_every_entry_from_the_remote_and_compiles_nothing() {
    let server = Nginx::start();
    let tree = Tree::new();
    let url = server.url();
    let remote = Some((url.as_str(), RemoteCacheMode::ReadWrite));

    let a = tree.machine("a", remote).try_compile().unwrap();
    assert_eq!((a.compiled, a.cache_hits), (JOBS, 0));
    assert!(a.remote_uploads > JOBS, "every module and the packed set: {}", a.remote_uploads);
    assert_eq!(a.remote_hits, 0);
    assert_eq!(a.remote_misses, a.remote_uploads, "each upload followed a miss on the empty server");
    assert!(a.remote_bytes_up > 0 && a.remote_seconds > 0.0);
    assert!(a.warnings.is_empty(), "{:?}", a.warnings);

    // What is on the server is what Bazel would store: records under
    // /ac/<64 hex>, blobs under /cas/<their own SHA-256>.
    let (records, blobs) = (server.files("ac"), server.files("cas"));
    assert_eq!(records.len(), a.remote_uploads);
    assert_eq!(blobs.len(), a.remote_uploads);
    for blob in &blobs {
        assert_eq!(blob.file_name().unwrap().to_string_lossy(), sha256_hex(&std::fs::read(blob).unwrap()));
    }
    for record in &records {
        let name = record.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.len() == 64 && name.bytes().all(|b| b.is_ascii_hexdigit()), "{name}");
        let body = std::fs::read(record).unwrap();
        assert_eq!(body[0], 0x12, "ActionResult.output_files, length-delimited");
        assert!(blobs.iter().any(|b| {
            let hash = b.file_name().unwrap().to_string_lossy().into_owned();
            body.windows(64).any(|w| w == hash.as_bytes())
        }));
    }

    let b = tree.machine("b", remote).try_compile().unwrap();
    assert_eq!((b.compiled, b.cache_hits), (0, JOBS), "machine B compiles nothing");
    assert_eq!((b.remote_hits, b.remote_misses, b.remote_uploads), (a.remote_uploads, 0, 0), "100% remote hits");
    assert!(b.remote_bytes_down > 0);
    assert!(b.warnings.is_empty(), "{:?}", b.warnings);
    assert_eq!(outputs(&tree.out("a")), outputs(&tree.out("b")), "bit-identical outputs");

    // The remote hits were stored locally: B's next build never asks.
    let again = tree.machine("b", remote).try_compile().unwrap();
    assert_eq!((again.cache_hits, again.remote_hits, again.remote_misses), (JOBS, 0, 0));
}

#[test]
fn a_checkout_at_another_path_gets_every_entry_from_the_remote() {
    let server = Nginx::start();
    let (ci, laptop) = (Tree::new(), Tree::new());
    assert_ne!(ci.root(), laptop.root());
    let url = server.url();
    let remote = Some((url.as_str(), RemoteCacheMode::ReadWrite));

    let a = ci.machine("a", remote).try_compile().unwrap();
    assert_eq!((a.compiled, a.cache_hits), (JOBS, 0));
    let b = laptop.machine("b", remote).try_compile().unwrap();
    assert_eq!((b.compiled, b.cache_hits), (0, JOBS), "the other checkout compiles nothing");
    assert_eq!((b.remote_hits, b.remote_misses, b.remote_uploads), (a.remote_uploads, 0, 0), "100% remote hits");
    assert!(b.warnings.is_empty(), "{:?}", b.warnings);
    // The same bytes, except where the manifest and the generated types
    // name each checkout's files.
    let local = |tree: &Tree, machine: &str| -> BTreeMap<PathBuf, Vec<u8>> {
        let root = tree.root().to_string_lossy().into_owned();
        outputs(&tree.out(machine))
            .into_iter()
            .map(|(path, bytes)| match path.extension().is_some_and(|e| e == "json" || e == "rs") {
                true => (path, String::from_utf8(bytes).unwrap().replace(&root, "<root>").into_bytes()),
                false => (path, bytes),
            })
            .collect()
    };
    assert_eq!(local(&ci, "a"), local(&laptop, "b"), "bit-identical outputs");

    // Only files that are the same in both checkouts count: an include
    // edited on the laptop is compiled there.
    write(&laptop.root().join("include/light.glsl"), "vec3 light(vec3 n) { return n; }\n");
    let edited = laptop.machine("b", remote).try_compile().unwrap();
    assert_eq!(edited.compiled, 6, "lit.frag and its five variants");
}

#[test]
fn a_stale_local_entry_is_replaced_by_the_current_one_from_the_remote() {
    let server = Nginx::start();
    let tree = Tree::new();
    let url = server.url();
    let ci = Some((url.as_str(), RemoteCacheMode::ReadWrite));
    let dev = Some((url.as_str(), RemoteCacheMode::ReadOnly));
    tree.machine("ci", ci).try_compile().unwrap();
    tree.machine("dev", dev).try_compile().unwrap();

    // The include changes (a pull); CI builds first. The developer's
    // entries for lit.frag are intact but stale, and CI has the current
    // ones under the same keys.
    write(&tree.root().join("include/light.glsl"), "vec3 light(vec3 n) { return n * 0.5 + 0.5; }\n");
    let rebuilt = tree.machine("ci", ci).try_compile().unwrap();
    assert_eq!(rebuilt.compiled, 6, "lit.frag and its 5 variants include light.glsl");
    let dev_build = tree.machine("dev", dev).try_compile().unwrap();
    assert_eq!(dev_build.compiled, 0, "the developer takes CI's entries");
    assert!(dev_build.remote_hits >= 6, "{}", dev_build.remote_hits);
    assert_eq!(outputs(&tree.out("ci")), outputs(&tree.out("dev")));

    // A remote entry that records files that differ here is a miss, not a hit.
    write(&tree.root().join("include/light.glsl"), "vec3 light(vec3 n) { return n; }\n");
    let diverged = tree.machine("dev2", dev).try_compile().unwrap();
    assert_eq!(diverged.compiled, 6);
    assert_eq!(diverged.remote_hits, JOBS - 6, "only the entries that do not include light.glsl");
    assert!(diverged.warnings.is_empty(), "{:?}", diverged.warnings);
}

#[test]
fn read_only_mode_uploads_nothing() {
    let server = Nginx::start();
    let tree = Tree::new();
    let url = server.url();
    let read_only = Some((url.as_str(), RemoteCacheMode::ReadOnly));

    let cold = tree.machine("dev", read_only).try_compile().unwrap();
    assert_eq!(cold.compiled, JOBS);
    assert_eq!(cold.remote_uploads, 0);
    assert!(cold.remote_misses >= JOBS);
    assert!(server.files("ac").is_empty() && server.files("cas").is_empty());
    assert!(!server.access_log().contains("PUT "), "{}", server.access_log());

    // CI fills the server; a developer reads it, and what it compiles
    // itself (an edited shader) stays local.
    tree.machine("ci", Some((url.as_str(), RemoteCacheMode::ReadWrite))).try_compile().unwrap();
    let stored = (server.files("ac").len(), server.files("cas").len());
    write(
        &tree.root().join("shaders/tint.frag"),
        "#version 450\nlayout(location=0) out vec4 color;\nvoid main() { color = vec4(1.0); }\n",
    );
    let dev = tree.machine("dev2", read_only).try_compile().unwrap();
    assert_eq!(dev.compiled, 1, "only the edited shader is compiled");
    assert_eq!(dev.cache_hits, JOBS - 1);
    assert_eq!(dev.remote_uploads, 0);
    assert_eq!((server.files("ac").len(), server.files("cas").len()), stored, "nothing was uploaded");
    assert!(dev.warnings.is_empty(), "{:?}", dev.warnings);
}

#[test]
fn a_corrupted_truncated_or_garbled_entry_is_a_miss_with_a_warning_and_is_rebuilt() {
    let server = Nginx::start();
    let tree = Tree::new();
    let url = server.url();
    let remote = Some((url.as_str(), RemoteCacheMode::ReadWrite));
    tree.machine("a", remote).try_compile().unwrap();

    // One blob with a flipped bit, one cut short, and one record that is
    // not a protobuf at all.
    let (flipped, _) = entry_files(&server, "<root>/shaders/blur.comp");
    let mut bytes = std::fs::read(&flipped).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x10;
    std::fs::write(&flipped, bytes).unwrap();
    let (cut, _) = entry_files(&server, "<root>/shaders/sky.vert");
    let bytes = std::fs::read(&cut).unwrap();
    std::fs::write(&cut, &bytes[..bytes.len() - 7]).unwrap();
    let (_, garbled) = entry_files(&server, "<root>/shaders/tint.frag");
    std::fs::write(&garbled, b"\xff\xff\xff not an ActionResult").unwrap();

    let b = tree.machine("b", remote).try_compile().unwrap();
    assert_eq!(b.compiled, 3, "the three damaged entries are compiled again");
    assert_eq!(b.cache_hits, JOBS - 3);
    assert_eq!(b.remote_misses, 3);
    let warnings = remote_warnings(&b);
    assert_eq!(warnings.len(), 3, "{warnings:?}");
    assert!(warnings.iter().all(|w| w.contains("is not used") && w.contains("building it instead")), "{warnings:?}");
    assert!(warnings.iter().any(|w| w.contains("SHA-256")), "{warnings:?}");
    assert!(warnings.iter().any(|w| w.contains("truncated")), "{warnings:?}");
    assert!(warnings.iter().any(|w| w.contains("record is not valid")), "{warnings:?}");
    assert_eq!(outputs(&tree.out("a")), outputs(&tree.out("b")), "the output is correct");

    // B uploaded good entries over the damaged ones: the server healed.
    let c = tree.machine("c", remote).try_compile().unwrap();
    assert_eq!((c.compiled, c.remote_misses), (0, 0));
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
}

#[test]
fn the_server_stopping_mid_build_costs_one_warning_and_the_build_succeeds() {
    let tree = Tree::new();
    tree.machine("reference", None).try_compile().unwrap();
    let mut server = Nginx::start();
    let url = server.url();
    let ac = server.data().join("ac");
    let mut config = tree.machine("a", Some((url.as_str(), RemoteCacheMode::ReadWrite)));
    config.jobs(1);
    let (report, stored_before_stop) = std::thread::scope(|scope| {
        // Stop the server as soon as the first entry has arrived.
        let stopper = scope.spawn(|| {
            let deadline = Instant::now() + Duration::from_secs(60);
            let stored = || std::fs::read_dir(&ac).map_or(0, |d| d.count());
            while stored() == 0 && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(1));
            }
            let stored = stored();
            server.stop();
            stored
        });
        let report = config.try_compile().unwrap();
        (report, stopper.join().unwrap())
    });
    assert_eq!(report.compiled, JOBS);
    // Mid-build: the server had stored an entry when it stopped (whether the
    // client heard its answer before the stop is a race), and later uploads failed.
    assert!(stored_before_stop >= 1, "the server stopped before any upload arrived");
    assert!(report.remote_uploads < JOBS, "uploads: {}", report.remote_uploads);
    let warnings = remote_warnings(&report);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("not using it for the rest of this build"), "{}", warnings[0]);
    assert_eq!(outputs(&tree.out("reference")), outputs(&tree.out("a")));
}

#[test]
fn a_closed_port_is_one_warning_and_the_build_succeeds() {
    let tree = Tree::new();
    tree.machine("reference", None).try_compile().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}");
    let report = tree.machine("a", Some((url.as_str(), RemoteCacheMode::ReadWrite))).try_compile().unwrap();
    assert_eq!(report.compiled, JOBS);
    let warnings = remote_warnings(&report);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains(&url) && warnings[0].contains("not using it"), "{}", warnings[0]);
    assert_eq!((report.remote_hits, report.remote_uploads), (0, 0));
    assert_eq!(outputs(&tree.out("reference")), outputs(&tree.out("a")));
}

#[test]
fn a_server_that_never_answers_does_not_stall_the_build() {
    let tree = Tree::new();
    let start = Instant::now();
    tree.machine("reference", None).try_compile().unwrap();
    let plain = start.elapsed();
    // Accepts every connection, reads nothing, answers nothing.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    listener.set_nonblocking(true).unwrap();
    let stop = std::sync::atomic::AtomicBool::new(false);
    let (report, elapsed) = std::thread::scope(|scope| {
        scope.spawn(|| {
            let mut held = Vec::new();
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                if let Ok((stream, _)) = listener.accept() {
                    held.push(stream);
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        });
        let start = Instant::now();
        let report = tree.machine("a", Some((url.as_str(), RemoteCacheMode::ReadWrite))).try_compile();
        let elapsed = start.elapsed();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        (report.unwrap(), elapsed)
    });
    assert_eq!(report.compiled, JOBS);
    let warnings = remote_warnings(&report);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    // One read timeout (5 s) on each worker thread at once, then no more requests.
    assert!(elapsed < plain + Duration::from_secs(10), "took {elapsed:?} (a build without the remote: {plain:?})");
    assert!(elapsed >= Duration::from_secs(4), "the timeout is a few seconds, not none: {elapsed:?}");
    assert_eq!(outputs(&tree.out("reference")), outputs(&tree.out("a")));
}

#[test]
fn a_server_answering_every_request_just_under_its_timeout_adds_at_most_the_time_limit() {
    let tree = Tree::new();
    let start = Instant::now();
    tree.machine("reference", None).try_compile().unwrap();
    let plain = start.elapsed();
    // Every answer comes 4.5 s late, within the 5 s read timeout, so no
    // request fails: without a limit each lookup and upload adds its 4.5 s
    // (about 30 s for this tree).
    let server = TestServer::start(Duration::from_millis(4500));
    let limit = Duration::from_secs(3);
    let mut config = tree.machine("a", Some((server.url.as_str(), RemoteCacheMode::ReadWrite)));
    config.remote_cache_time_limit(limit);
    let start = Instant::now();
    let report = config.try_compile().unwrap();
    let elapsed = start.elapsed();
    eprintln!("a server 4.5 s late, time limit {limit:?}: the build took {elapsed:?}, {plain:?} without the remote");
    assert!(elapsed < plain + limit + Duration::from_secs(5), "took {elapsed:?} (without the remote: {plain:?})");
    assert_eq!(report.compiled, JOBS);
    let warnings = remote_warnings(&report);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("SMOLV_REMOTE_CACHE_TIME_LIMIT"), "{}", warnings[0]);
    assert_eq!(outputs(&tree.out("reference")), outputs(&tree.out("a")));

    // The command line's flag sets the same limit.
    let url = server.url.clone();
    let start = Instant::now();
    let (json, printed) = cli_build(&tree, "cli", &["--remote-cache", &url, "--remote-cache-time-limit", "1"], &[]);
    let elapsed = start.elapsed();
    assert_eq!(json["compiled"].as_u64(), Some(4), "the four shaders, without variants: {json}");
    assert_eq!(printed.matches("remote cache").count(), 1, "{printed}");
    assert!(printed.contains("waited 1.0 s"), "{printed}");
    assert!(elapsed < plain + Duration::from_secs(1 + 5), "took {elapsed:?} (without the remote: {plain:?})");
}

fn cargo_smolv(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_cargo-smolv"));
    command.args(args);
    for var in [
        "SMOLV_REMOTE_CACHE",
        "SMOLV_REMOTE_CACHE_MODE",
        "SMOLV_REMOTE_CACHE_HEADER",
        "SMOLV_REMOTE_CACHE_TIME_LIMIT",
        "SSL_CERT_FILE",
    ] {
        command.env_remove(var);
    }
    command.envs(env.iter().copied()).output().expect("run cargo-smolv")
}

/// `cargo smolv build --json` on `tree`: its JSON, and what it printed on
/// stderr.
fn cli_build(tree: &Tree, machine: &str, extra: &[&str], env: &[(&str, &str)]) -> (serde_json::Value, String) {
    let path = |p: PathBuf| p.to_str().unwrap().to_owned();
    let mut args: Vec<String> = vec!["smolv".into(), "build".into(), path(tree.root().join("shaders"))];
    args.extend(["-o".into(), path(tree.out(machine)), "-I".into(), path(tree.root().join("include"))]);
    args.extend(["--cache-dir".into(), path(tree.root().join(machine).join("cache")), "--json".into()]);
    args.extend(extra.iter().map(|a| (*a).to_owned()));
    let output = cargo_smolv(&args.iter().map(String::as_str).collect::<Vec<_>>(), env);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    // Each warning is printed on stderr and listed in the JSON.
    let warnings: Vec<&str> = json["warnings"].as_array().unwrap().iter().filter_map(|w| w.as_str()).collect();
    assert_eq!(warnings.len(), stderr.lines().filter(|l| l.starts_with("warning: ")).count(), "{stderr}");
    assert!(warnings.iter().all(|w| stderr.contains(&format!("warning: {w}"))), "{warnings:?}\n{stderr}");
    (json, stderr)
}

#[test]
fn the_cli_reads_the_variables_and_never_prints_the_auth_header() {
    let server = Nginx::start_with(Options {
        server: "if ($http_authorization != \"Bearer s3cr3t-t0ken\") { return 401; }".into(),
        ..Options::default()
    });
    let tree = Tree::new();
    let url = server.url();
    let good =
        [("SMOLV_REMOTE_CACHE", url.as_str()), ("SMOLV_REMOTE_CACHE_HEADER", "Authorization: Bearer s3cr3t-t0ken")];
    let (json, printed) = cli_build(&tree, "ci", &[], &good);
    assert!(json["remote_uploads"].as_u64().unwrap() > 0, "{json}");
    assert_eq!(json["remote_hits"].as_u64(), Some(0));
    // The header crosses the network in clear text: one warning, naming the header, never its value.
    assert_eq!(printed.matches("remote cache").count(), 1, "{printed}");
    assert!(printed.contains("Authorization header is sent to") && printed.contains("plain http://"), "{printed}");
    for file in ["smolv-report.json", "smolv-report.txt"] {
        let text = std::fs::read_to_string(tree.out("ci").join(file)).unwrap();
        assert!(!text.contains("s3cr3t"), "{file} shows the header");
    }

    // Read-only from the variable: hits, no uploads.
    let read_only = [good[0], good[1], ("SMOLV_REMOTE_CACHE_MODE", "read-only")];
    let (json, printed) = cli_build(&tree, "dev", &[], &read_only);
    assert_eq!(json["compiled"].as_u64(), Some(0), "{json}");
    assert!(json["remote_hits"].as_u64().unwrap() > 0);
    assert_eq!(json["remote_uploads"].as_u64(), Some(0));
    assert!(!printed.contains("s3cr3t"));

    // A wrong token: one warning naming the status, never the value.
    let wrong = [good[0], ("SMOLV_REMOTE_CACHE_HEADER", "Authorization: Bearer wr0ng-t0ken")];
    let (json, printed) = cli_build(&tree, "stranger", &[], &wrong);
    assert_eq!(json["remote_hits"].as_u64(), Some(0));
    assert_eq!(printed.matches("remote cache").count(), 2, "plain http:// and the refusal: {printed}");
    assert!(printed.contains("HTTP 401"), "{printed}");
    assert!(!printed.contains("wr0ng") && !printed.contains("s3cr3t"), "{printed}");

    // The flags win over the variables.
    let (json, _) = cli_build(&tree, "flags", &["--remote-cache-mode", "off"], &good);
    assert_eq!(json["remote_misses"].as_u64(), Some(0));
    assert_eq!(json["remote_seconds"].as_f64(), Some(0.0));
    let (json, _) = cli_build(&tree, "flags2", &["--remote-cache", &url], &[good[1]]);
    assert!(json["remote_hits"].as_u64().unwrap() > 0, "{json}");
}

fn openssl(args: &[&str]) {
    let output = Command::new("openssl").args(args).output().expect("openssl is installed by scripts/setup.sh");
    assert!(output.status.success(), "openssl {args:?}: {}", String::from_utf8_lossy(&output.stderr));
}

#[test]
fn https_trusts_the_system_roots_and_only_them() {
    // A CA of our own, and a certificate for 127.0.0.1 signed by it.
    let certs = tempfile::tempdir().unwrap();
    let path = |name: &str| certs.path().join(name).to_str().unwrap().to_owned();
    let (ca_key, ca, key, csr, cert, ext) =
        (path("ca.key"), path("ca.pem"), path("leaf.key"), path("leaf.csr"), path("leaf.pem"), path("leaf.ext"));
    openssl(
        &["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2"]
            .into_iter()
            .chain(["-subj", "/CN=smolv test CA", "-keyout", &ca_key, "-out", &ca])
            .collect::<Vec<_>>(),
    );
    openssl(
        &["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=127.0.0.1"]
            .into_iter()
            .chain(["-keyout", &key, "-out", &csr])
            .collect::<Vec<_>>(),
    );
    std::fs::write(&ext, "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n")
        .unwrap();
    openssl(
        &["x509", "-req", "-in", &csr, "-CA", &ca, "-CAkey", &ca_key, "-CAcreateserial", "-days", "2"]
            .into_iter()
            .chain(["-extfile", &ext, "-out", &cert])
            .collect::<Vec<_>>(),
    );
    let server =
        Nginx::start_with(Options { tls: Some((cert.clone().into(), key.clone().into())), ..Options::default() });
    let url = server.url();
    assert!(url.starts_with("https://"));
    let tree = Tree::new();

    // SSL_CERT_FILE is how the system's root store is given on Linux
    // (rustls-platform-verifier reads it like OpenSSL does).
    let (json, printed) = cli_build(&tree, "trusted", &[], &[("SMOLV_REMOTE_CACHE", &url), ("SSL_CERT_FILE", &ca)]);
    assert!(json["remote_uploads"].as_u64().unwrap() > 0, "{json}\n{printed}");
    assert!(!printed.contains("remote cache"), "{printed}");

    // Without it the system roots do not know the CA: refused, one warning.
    let (json, printed) = cli_build(&tree, "untrusted", &[], &[("SMOLV_REMOTE_CACHE", &url)]);
    assert_eq!(json["remote_uploads"].as_u64(), Some(0));
    assert_eq!(printed.matches("remote cache").count(), 1, "{printed}");
}

/// A WESL tree: `lit.wesl` imports `lib/light.wesl`, which imports
/// `common.wesl`, and the package `noise` beside `shaders/`; `lit.wesl`
/// has a `shadows` variant. 2 compile jobs.
#[cfg(feature = "wesl")]
fn wesl_machine(root: &Path, machine: &str, url: &str) -> Config {
    let mut config = Config::new();
    config
        .shader_dir(root.join("shaders"))
        .variants("lit.wesl", [Variant::new("shadows").wesl_feature("shadows", true)])
        .wesl_package("noise", root.join("vendor/noise"))
        .out_dir(root.join(machine).join("out"))
        .cache_dir(root.join(machine).join("cache"))
        .cargo_directives(false)
        .strip_debug(true)
        .remote_cache(url)
        .remote_cache_mode(RemoteCacheMode::ReadWrite);
    config
}

#[cfg(feature = "wesl")]
#[test]
fn wesl_imports_are_checked_against_a_remote_entry_as_includes_are() {
    let server = Nginx::start();
    let url = server.url();
    let (ci, laptop) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    for root in [ci.path(), laptop.path()] {
        write(
            &root.join("shaders/lit.wesl"),
            "import package::lib::light::shade;\nimport noise::hash::h;\n\
             @fragment fn fs() -> @location(0) vec4f {\n    var c = shade(vec3f(h(1.0)));\n    \
             @if(shadows) { c = c * 0.25; }\n    return vec4f(c, 1.0);\n}\n",
        );
        write(
            &root.join("shaders/lib/light.wesl"),
            "import package::common::GAIN;\nfn shade(n: vec3f) -> vec3f { return n * GAIN; }\n",
        );
        write(&root.join("shaders/common.wesl"), "const GAIN = 0.5;\n");
        write(&root.join("vendor/noise/hash.wesl"), "fn h(x: f32) -> f32 { return fract(x * 43758.5453); }\n");
    }
    let a = wesl_machine(ci.path(), "a", &url).try_compile().unwrap();
    assert_eq!((a.compiled, a.cache_hits), (2, 0));
    let b = wesl_machine(laptop.path(), "b", &url).try_compile().unwrap();
    assert_eq!((b.compiled, b.cache_hits), (0, 2), "the other checkout takes CI's entries");
    assert_eq!((b.remote_hits, b.remote_misses), (a.remote_uploads, 0), "100% remote hits");
    // The third file, edited on the laptop only: CI's entries record its
    // old hash, so both jobs compile.
    write(&laptop.path().join("shaders/common.wesl"), "const GAIN = 0.25;\n");
    let edited = wesl_machine(laptop.path(), "b2", &url).try_compile().unwrap();
    assert_eq!(edited.compiled, 2, "{:?}", edited.warnings);
}
