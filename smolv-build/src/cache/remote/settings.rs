//! The remote cache's settings and `SMOLV_REMOTE_CACHE*`; one that cannot work turns it off, with a warning.

use crate::env::setting;

pub(crate) const URL_VAR: &str = "SMOLV_REMOTE_CACHE";
pub(crate) const MODE_VAR: &str = "SMOLV_REMOTE_CACHE_MODE";
pub(crate) const HEADER_VAR: &str = "SMOLV_REMOTE_CACHE_HEADER";
pub(crate) const TIME_LIMIT_VAR: &str = "SMOLV_REMOTE_CACHE_TIME_LIMIT";
pub(crate) const DEFAULT_TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(30);

/// What the build does with the remote cache (see [`Config::remote_cache`](crate::Config::remote_cache)).
///
/// ```
/// use smolv_build::cache::RemoteCacheMode;
/// assert_eq!(RemoteCacheMode::parse("read-only"), Some(RemoteCacheMode::ReadOnly));
/// assert_eq!(RemoteCacheMode::ReadOnly.name(), "read-only");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RemoteCacheMode {
    /// Look entries up on a local miss, and upload what was compiled (CI). The default.
    #[default]
    ReadWrite,
    /// Look entries up, upload nothing: what developers' machines do.
    ReadOnly,
    /// No remote cache, even when `SMOLV_REMOTE_CACHE` is set.
    Off,
}

impl RemoteCacheMode {
    /// Every name [`parse`](Self::parse) accepts, in the order of the variants.
    pub const NAMES: [&'static str; 3] = ["read-write", "read-only", "off"];

    /// `read-write`, `read-only` or `off`, as `SMOLV_REMOTE_CACHE_MODE` spells it.
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// The mode named `text` (one of [`NAMES`](Self::NAMES)).
    pub fn parse(text: &str) -> Option<Self> {
        [Self::ReadWrite, Self::ReadOnly, Self::Off].into_iter().find(|mode| mode.name() == text)
    }
}

/// The remote-cache part of a [`Config`](crate::Config).
#[derive(Clone, Default)]
pub(crate) struct RemoteSettings {
    pub(crate) url: Option<String>,
    pub(crate) mode: Option<RemoteCacheMode>,
    pub(crate) header: Option<String>,
    pub(crate) time_limit: Option<std::time::Duration>,
}

// Written by hand so that `{:?}` of a `Config` never shows the header.
impl std::fmt::Debug for RemoteSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteSettings")
            .field("url", &self.url)
            .field("mode", &self.mode)
            .field("header", &self.header.as_ref().map(|_| "(not shown)"))
            .field("time_limit", &self.time_limit)
            .finish()
    }
}

/// A request header, checked to be a valid HTTP field; its value is never shown.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Header {
    pub(crate) name: String,
    pub(crate) value: String,
}

impl std::fmt::Debug for Header {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: (not shown)", self.name)
    }
}

/// Settings that can work.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Resolved {
    /// The URL without a trailing `/`; requests go to `{base}/ac/…` and `{base}/cas/…`.
    pub(crate) base: String,
    pub(crate) upload: bool,
    pub(crate) header: Option<Header>,
    /// What the remote may add to the build, in all.
    pub(crate) time_limit: std::time::Duration,
}

impl Resolved {
    /// The warning for a header sent over plain `http://` (its value not shown).
    pub(crate) fn plain_http_warning(&self) -> Option<String> {
        let header = self.header.as_ref()?;
        self.base.starts_with("http://").then(|| {
            format!(
                "the {} header is sent to {} over plain http://, so anyone on the way can read it; use an \
                 https:// URL",
                header.name, self.base
            )
        })
    }
}

#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Resolution {
    /// Nothing configured, or the mode is `off`.
    Off,
    /// Configured, but it cannot work: the warning that says why.
    Unusable(String),
    /// Use this server.
    On(Resolved),
}

/// Resolves `settings` over the variables; `compiled_in`: whether this build has `remote-cache`.
pub(crate) fn resolve(
    settings: &RemoteSettings,
    var: impl Fn(&str) -> Option<String>,
    compiled_in: bool,
) -> Resolution {
    let from_var = var(URL_VAR).map(|url| (url, URL_VAR));
    let Some((url, url_source)) = settings.url.clone().map(|url| (url, "Config::remote_cache")).or(from_var) else {
        return Resolution::Off;
    };
    let mode = match setting(settings.mode, var(MODE_VAR), RemoteCacheMode::parse) {
        Ok(mode) => mode.unwrap_or_default(),
        Err(text) => {
            let names = RemoteCacheMode::NAMES.join(", ");
            return Resolution::Unusable(format!("{MODE_VAR}={text:?} is not one of {names}: the remote cache is off"));
        }
    };
    if mode == RemoteCacheMode::Off {
        return Resolution::Off;
    }
    if !compiled_in {
        return Resolution::Unusable(format!(
            "{url_source} is set, but smolv-build was built without its `remote-cache` feature, so the remote \
             cache is off: enable the feature (smolv-build = {{ features = [\"remote-cache\"] }}) or build with \
             `cargo smolv build`, which has it"
        ));
    }
    let base = match parse_url(url.trim()) {
        Ok(base) => base,
        Err(why) => return Resolution::Unusable(format!("{url_source}: {why}: the remote cache is off")),
    };
    let from_var = var(HEADER_VAR).map(|text| (text, HEADER_VAR));
    let header = settings.header.clone().map(|text| (text, "Config::remote_cache_header")).or(from_var);
    let header = match header.map(|(text, source)| parse_header(&text).ok_or(source)).transpose() {
        Ok(header) => header,
        Err(source) => {
            return Resolution::Unusable(format!(
                "{source} is not one `Name: value` HTTP header (its value is not shown): the remote cache is off"
            ));
        }
    };
    let time_limit = match setting(settings.time_limit, var(TIME_LIMIT_VAR), parse_seconds) {
        Ok(limit) => limit.unwrap_or(DEFAULT_TIME_LIMIT),
        Err(text) => {
            return Resolution::Unusable(format!(
                "{TIME_LIMIT_VAR}={text:?} is not a number of seconds (like 30 or 2.5): the remote cache is off"
            ));
        }
    };
    Resolution::On(Resolved { base, upload: mode == RemoteCacheMode::ReadWrite, header, time_limit })
}

/// `30`, `2.5`: a finite, non-negative number of seconds (`SMOLV_REMOTE_CACHE_TIME_LIMIT`).
///
/// ```
/// # use smolv_build::cache::parse_seconds;
/// assert_eq!(parse_seconds("2.5"), Some(std::time::Duration::from_millis(2500)));
/// assert_eq!((parse_seconds("-1"), parse_seconds(" 30")), (None, None));
/// ```
pub fn parse_seconds(text: &str) -> Option<std::time::Duration> {
    text.parse::<f64>().ok().and_then(|seconds| std::time::Duration::try_from_secs_f64(seconds).ok())
}

/// Checks `http(s)://host[:port][/prefix]` and drops trailing slashes; errors quote no credentials.
fn parse_url(url: &str) -> Result<String, String> {
    let shown = if url.contains('@') { "(not shown: it contains credentials)".to_owned() } else { format!("{url:?}") };
    let Some(rest) = url.strip_prefix("http://").or_else(|| url.strip_prefix("https://")) else {
        return Err(format!("{shown} is not an http:// or https:// URL"));
    };
    if url.chars().any(|c| c.is_whitespace() || c.is_control() || c == '?' || c == '#') {
        return Err(format!("{shown} has spaces, a query or a fragment; give http(s)://host[:port][/prefix]"));
    }
    let authority = rest.split('/').next().unwrap_or_default();
    if authority.contains('@') {
        return Err(format!(
            "{shown}: credentials in the URL are not supported; send them with {HEADER_VAR} \
             (for example `Authorization: Basic <base64 of user:password>`)"
        ));
    }
    // The port follows the last `:` outside an IPv6 literal's brackets.
    let host_end = authority.rfind(']').map_or(0, |i| i + 1);
    let (host, port) = match authority[host_end..].rfind(':') {
        Some(i) => (&authority[..host_end + i], Some(&authority[host_end + i + 1..])),
        None => (authority, None),
    };
    if host.is_empty() {
        return Err(format!("{shown} names no host"));
    }
    if port.is_some_and(|port| port.parse::<u16>().is_err()) {
        return Err(format!("{shown} has a port that is not a number from 0 to 65535"));
    }
    Ok(url.trim_end_matches('/').to_owned())
}

/// `Name: value`, with a token name (RFC 9110) and a visible-ASCII value.
fn parse_header(text: &str) -> Option<Header> {
    let (name, value) = text.split_once(':')?;
    let (name, value) = (name.trim(), value.trim());
    let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    let visible = |c: char| c == ' ' || c == '\t' || c.is_ascii_graphic();
    (!name.is_empty() && name.chars().all(token) && !value.is_empty() && value.chars().all(visible))
        .then(|| Header { name: name.to_owned(), value: value.to_owned() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| (*v).to_owned())
    }

    fn on(base: &str, upload: bool) -> Resolution {
        Resolution::On(Resolved { base: base.to_owned(), upload, header: None, time_limit: DEFAULT_TIME_LIMIT })
    }

    #[test]
    fn nothing_configured_is_off_without_a_warning() {
        assert_eq!(resolve(&RemoteSettings::default(), vars(&[]), true), Resolution::Off);
        assert_eq!(resolve(&RemoteSettings::default(), vars(&[]), false), Resolution::Off);
    }

    #[test]
    fn the_variables_turn_it_on_and_setters_win_over_them() {
        let settings = RemoteSettings::default();
        let env = vars(&[(URL_VAR, "http://cache:8080/smolv/"), (MODE_VAR, "read-only")]);
        assert_eq!(resolve(&settings, &env, true), on("http://cache:8080/smolv", false));
        // What `Config::remote_cache` and `Config::remote_cache_mode` set.
        let mut settings = RemoteSettings {
            url: Some("https://other".to_owned()),
            mode: Some(RemoteCacheMode::ReadWrite),
            header: None,
            time_limit: None,
        };
        assert_eq!(resolve(&settings, &env, true), on("https://other", true));
        settings.mode = Some(RemoteCacheMode::Off);
        assert_eq!(resolve(&settings, &env, true), Resolution::Off);
    }

    #[test]
    fn set_without_the_feature_is_one_warning_naming_the_feature() {
        let env = vars(&[(URL_VAR, "http://cache:8080")]);
        let Resolution::Unusable(why) = resolve(&RemoteSettings::default(), env, false) else {
            panic!("expected a warning");
        };
        assert!(why.contains(URL_VAR) && why.contains("`remote-cache` feature"), "{why}");
    }

    #[test]
    fn unusable_settings_are_a_warning_that_never_shows_a_secret() {
        let cases: [&'static [(&'static str, &'static str)]; 8] = [
            &[(URL_VAR, "ftp://cache")],
            &[(URL_VAR, "http://user:hunter2@cache")],
            &[(URL_VAR, "http://cache:99999")],
            &[(URL_VAR, "http:///prefix")],
            &[(URL_VAR, "http://cache"), (MODE_VAR, "sometimes")],
            &[(URL_VAR, "http://cache"), (HEADER_VAR, "no colon hunter2")],
            &[(URL_VAR, "http://cache"), (TIME_LIMIT_VAR, "30s")],
            &[(URL_VAR, "http://cache"), (TIME_LIMIT_VAR, "-1")],
        ];
        for case in cases {
            match resolve(&RemoteSettings::default(), vars(case), true) {
                Resolution::Unusable(why) => {
                    assert!(why.contains("the remote cache is off"), "{why}");
                    assert!(!why.contains("hunter2"), "a secret was shown: {why}");
                }
                other => panic!("{case:?} gave {other:?}"),
            }
        }
    }

    #[test]
    fn headers_and_urls_parse() {
        let env = vars(&[(URL_VAR, "https://[::1]:9092"), (HEADER_VAR, "Authorization:  Bearer abc.def ")]);
        let Resolution::On(resolved) = resolve(&RemoteSettings::default(), env, true) else { panic!() };
        assert_eq!(resolved.base, "https://[::1]:9092");
        let header = resolved.header.unwrap();
        assert_eq!((header.name.as_str(), header.value.as_str()), ("Authorization", "Bearer abc.def"));
        assert!(!format!("{header:?}").contains("abc.def"));
        assert!(parse_header("Bad Name: x").is_none() && parse_header("X-Token:").is_none());
    }

    #[test]
    fn the_time_limit_comes_from_the_setter_then_the_variable_then_30_seconds() {
        let limit = |settings: &RemoteSettings, env: &'static [(&'static str, &'static str)]| match resolve(
            settings,
            vars(env),
            true,
        ) {
            Resolution::On(resolved) => resolved.time_limit,
            other => panic!("{other:?}"),
        };
        let mut settings = RemoteSettings::default();
        assert_eq!(limit(&settings, &[(URL_VAR, "https://cache")]), std::time::Duration::from_secs(30));
        let env: &'static [_] = &[(URL_VAR, "https://cache"), (TIME_LIMIT_VAR, " 2.5 ")];
        assert_eq!(limit(&settings, env), std::time::Duration::from_millis(2500));
        settings.time_limit = Some(std::time::Duration::from_secs(7));
        assert_eq!(limit(&settings, env), std::time::Duration::from_secs(7), "the setter wins");
    }

    #[test]
    fn a_header_over_plain_http_is_one_warning_that_never_shows_its_value() {
        let resolved = |url: &'static str, header: Option<&str>| {
            let settings = RemoteSettings {
                url: Some(url.to_owned()),
                header: header.map(str::to_owned),
                ..RemoteSettings::default()
            };
            match resolve(&settings, vars(&[]), true) {
                Resolution::On(resolved) => resolved,
                other => panic!("{other:?}"),
            }
        };
        let warning = resolved("http://cache:8080", Some("Authorization: Bearer hunter2")).plain_http_warning();
        let warning = warning.expect("a header over http:// is worth a warning");
        assert!(warning.contains("Authorization") && warning.contains("https://"), "{warning}");
        assert!(!warning.contains("hunter2"), "{warning}");
        assert_eq!(resolved("https://cache", Some("Authorization: Bearer hunter2")).plain_http_warning(), None);
        assert_eq!(resolved("http://cache:8080", None).plain_http_warning(), None, "nothing secret to send");
    }

    #[test]
    fn mode_names_round_trip() {
        for name in RemoteCacheMode::NAMES {
            assert_eq!(RemoteCacheMode::parse(name).unwrap().name(), name);
        }
        assert_eq!(RemoteCacheMode::parse("readonly"), None);
    }
}
