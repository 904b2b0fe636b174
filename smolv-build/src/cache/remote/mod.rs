//! The remote cache behind the local one: Bazel's HTTP protocol (`docs/format.md`), feature `remote-cache`.
//! Nothing here can fail a build: what goes wrong is a miss and a warning.

mod settings;

#[cfg(feature = "remote-cache")]
mod budget;
#[cfg(feature = "remote-cache")]
mod client;
#[cfg(feature = "remote-cache")]
mod connection;
#[cfg(feature = "remote-cache")]
mod record;
#[cfg(all(test, feature = "remote-cache"))]
pub(crate) mod test_server;

use std::sync::Arc;

#[cfg(not(feature = "remote-cache"))]
use crate::cache::key::Key;

pub(crate) use settings::RemoteSettings;
pub use settings::{RemoteCacheMode, parse_seconds};
use settings::{Resolution, resolve};

/// Every remote-cache warning starts with this, so logs can be searched.
pub(crate) const WARNING_PREFIX: &str = "remote cache";

#[cfg(feature = "remote-cache")]
pub(crate) use connection::Remote;

/// Without the feature no client can exist.
#[cfg(not(feature = "remote-cache"))]
pub(crate) enum Remote {}

/// The client's methods, for a [`Remote`] that cannot exist.
#[cfg(not(feature = "remote-cache"))]
macro_rules! unreachable_methods {
    ($($name:ident($($arg:ty),*) $(-> $ret:ty)?;)*) => {
        $(pub(crate) fn $name(&self, $(_: $arg),*) $(-> $ret)? { match *self {} })*
    };
}

#[cfg(not(feature = "remote-cache"))]
impl Remote {
    unreachable_methods! {
        get(&Key) -> Option<Vec<u8>>;
        put(&Key, &[u8]);
        count(bool);
        prefetch(&[Key], impl Fn(&Key, &[u8]) -> bool + Sync);
        used_locally(&Key);
        take() -> (RemoteStats, Vec<String>);
    }
}

/// What the remote did in one build, for the report.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct RemoteStats {
    pub(crate) hits: usize,
    pub(crate) misses: usize,
    pub(crate) uploads: usize,
    pub(crate) bytes_down: u64,
    pub(crate) bytes_up: u64,
    pub(crate) seconds: f64,
}

/// What the remote cache did in one build.
pub(crate) struct Finished {
    /// Its counters; `None` when no remote was used.
    pub(crate) stats: Option<RemoteStats>,
    /// Why it was turned off, and what went wrong with entries.
    pub(crate) warnings: Vec<String>,
}

/// The remote cache of one build: the client, if any, and the warning of setting it up.
pub(crate) struct Session {
    client: Option<Arc<Remote>>,
    setup_warning: Option<String>,
}

impl Session {
    /// Resolves the [`Config`](crate::Config)'s settings over the `SMOLV_REMOTE_CACHE*` variables.
    pub(crate) fn start(settings: &RemoteSettings, var: impl Fn(&str) -> Option<String>) -> Self {
        match resolve(settings, var, cfg!(feature = "remote-cache")) {
            Resolution::Off => Self { client: None, setup_warning: None },
            Resolution::Unusable(why) => Self { client: None, setup_warning: Some(format!("{WARNING_PREFIX}: {why}")) },
            Resolution::On(resolved) => {
                let setup_warning = resolved.plain_http_warning().map(|why| format!("{WARNING_PREFIX}: {why}"));
                Self { client: connect(resolved), setup_warning }
            }
        }
    }

    /// The client to hand to the [`Cache`](crate::cache::Cache).
    pub(crate) fn client(&self) -> Option<Arc<Remote>> {
        self.client.clone()
    }

    /// What the remote did, and its warnings.
    pub(crate) fn finish(&self) -> Finished {
        let mut warnings: Vec<String> = self.setup_warning.iter().cloned().collect();
        let stats = self.client.as_ref().map(|client| {
            let (stats, more) = client.take();
            warnings.extend(more);
            stats
        });
        Finished { stats, warnings }
    }
}

#[cfg(feature = "remote-cache")]
fn connect(resolved: settings::Resolved) -> Option<Arc<Remote>> {
    Some(Arc::new(Remote::new(resolved)))
}

#[cfg(not(feature = "remote-cache"))]
fn connect(_resolved: settings::Resolved) -> Option<Arc<Remote>> {
    None
}
