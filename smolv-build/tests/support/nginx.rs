//! A real Bazel HTTP remote cache for tests and benches: Debian's nginx
//! serving a directory, with WebDAV `PUT` and `create_full_put_path`, on
//! 127.0.0.1 on a free port. It runs in the foreground as one process (no
//! master, no workers that could outlive it) and is killed on drop.
//!
//! `scripts/setup.sh` installs nginx (`apt-get install nginx`).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running nginx; stopped when dropped.
pub(crate) struct Nginx {
    child: Option<Child>,
    dir: tempfile::TempDir,
    port: u16,
    scheme: &'static str,
}

/// What to add to the default server.
#[derive(Default)]
pub(crate) struct Options {
    /// Directives for the `server` block (an auth check, for example).
    pub(crate) server: String,
    /// `(certificate, key)` PEM files: serve HTTPS.
    pub(crate) tls: Option<(PathBuf, PathBuf)>,
}

#[allow(clippy::disallowed_methods, reason = "finds nginx on PATH")]
fn binary() -> PathBuf {
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .map(|dir| dir.join("nginx"))
        .find(|candidate| candidate.is_file());
    on_path.or_else(|| Some(PathBuf::from("/usr/sbin/nginx")).filter(|p| p.is_file())).unwrap_or_else(|| {
        panic!("nginx is not installed: run `source scripts/setup.sh` (it runs apt-get install nginx)")
    })
}

/// Whether this process runs as root (the effective uid in /proc).
fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|status| {
        status.lines().find_map(|l| l.strip_prefix("Uid:")).and_then(|ids| ids.split_whitespace().nth(1)) == Some("0")
    })
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

impl Nginx {
    /// A plain HTTP cache.
    pub(crate) fn start() -> Self {
        Self::start_with(Options::default())
    }

    pub(crate) fn start_with(options: Options) -> Self {
        // The port is free when chosen; another process may take it before
        // nginx binds it, so try a few.
        let mut last_error = String::new();
        for _ in 0..5 {
            match Self::try_start(&options) {
                Ok(nginx) => return nginx,
                Err(error) => last_error = error,
            }
        }
        panic!("nginx did not start: {last_error}");
    }

    fn try_start(options: &Options) -> Result<Self, String> {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("data")).unwrap();
        std::fs::create_dir_all(root.join("tmp")).unwrap();
        let port = free_port();
        // As root, nginx would switch to `nobody`, who cannot write the temp
        // directory it just made.
        let user = if is_root() { "user root;" } else { "" };
        let (listen, scheme) = match &options.tls {
            Some((cert, key)) => (
                format!(
                    "listen 127.0.0.1:{port} ssl;\n    ssl_certificate {};\n    ssl_certificate_key {};",
                    cert.display(),
                    key.display()
                ),
                "https",
            ),
            None => (format!("listen 127.0.0.1:{port};"), "http"),
        };
        let r = root.display();
        let config = format!(
            "daemon off;\nmaster_process off;\nworker_processes 1;\n{user}\npid {r}/nginx.pid;\n\
             error_log {r}/error.log warn;\nevents {{ worker_connections 256; }}\n\
             http {{\n  access_log {r}/access.log;\n  client_body_temp_path {r}/tmp/body;\n\
             proxy_temp_path {r}/tmp/proxy;\n  fastcgi_temp_path {r}/tmp/fastcgi;\n  uwsgi_temp_path {r}/tmp/uwsgi;\n\
             scgi_temp_path {r}/tmp/scgi;\n  client_max_body_size 512m;\n  default_type application/octet-stream;\n\
             server {{\n    {listen}\n    root {r}/data;\n    {server}\n\
             location / {{\n      dav_methods PUT;\n      create_full_put_path on;\n      dav_access user:rw group:r all:r;\n    }}\n\
             }}\n}}\n",
            server = options.server
        );
        std::fs::write(root.join("nginx.conf"), config).unwrap();
        let mut child = Command::new(binary())
            .arg("-p")
            .arg(root)
            .arg("-c")
            .arg(root.join("nginx.conf"))
            .arg("-e")
            .arg(root.join("error.log"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot run nginx: {e}"))?;
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Ok(Some(status)) = child.try_wait() {
                let log = std::fs::read_to_string(root.join("error.log")).unwrap_or_default();
                return Err(format!("nginx exited ({status}): {log}"));
            }
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Ok(Self { child: Some(child), dir, port, scheme });
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                return Err("nginx did not listen within 10 s".into());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// `http://127.0.0.1:<port>` (or `https://`).
    pub(crate) fn url(&self) -> String {
        format!("{}://127.0.0.1:{}", self.scheme, self.port)
    }

    /// The directory nginx serves: `ac/` and `cas/` appear in it.
    pub(crate) fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// The files under `data()/kind` (`ac` or `cas`), sorted.
    pub(crate) fn files(&self, kind: &str) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(self.data().join(kind))
            .map(|entries| entries.flatten().map(|e| e.path()).filter(|p| p.is_file()).collect())
            .unwrap_or_default();
        files.sort();
        files
    }

    /// nginx's access log: one line per request.
    pub(crate) fn access_log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("access.log")).unwrap_or_default()
    }

    /// Kills nginx; the port is closed afterwards.
    pub(crate) fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        self.stop();
    }
}
