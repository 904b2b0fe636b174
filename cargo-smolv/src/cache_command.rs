//! `cache`: size, clear and trim the shared build cache.

use std::path::PathBuf;

use smolv_build::cache::{self, CacheStats};

use crate::io::FileError;

/// Arguments of `cargo smolv cache`.
#[derive(clap::Args)]
pub(crate) struct CacheArgs {
    #[command(subcommand)]
    action: CacheAction,
    /// Cache directory (default: SMOLV_CACHE_DIR, else smolv-cache in Cargo's target dir).
    #[arg(long, value_name = "DIR", global = true)]
    cache_dir: Option<PathBuf>,
    /// Print the result as JSON on standard output.
    #[arg(long, global = true)]
    json: bool,
}

#[derive(clap::Subcommand)]
enum CacheAction {
    /// Entries and bytes in the cache, and the temporary files killed builds left.
    Stats,
    /// Remove every entry.
    Clean,
    /// Evict least recently used entries until the cache fits in a size; remove temporary files an hour old.
    Trim {
        /// Largest size to keep: bytes, or with K, M or G (powers of 1024).
        #[arg(long, value_name = "SIZE", value_parser = parse_max_size)]
        max_size: u64,
    },
}

fn parse_max_size(text: &str) -> Result<u64, String> {
    parse_size(text).ok_or_else(|| format!("{text:?} is not a size like 500M, 2G or 1048576"))
}

#[derive(serde::Serialize)]
struct JsonCache {
    cache_dir: String,
    entries: u64,
    bytes: u64,
    /// Files other than entries: temporary files of killed builds.
    other_files: u64,
    other_bytes: u64,
    removed_entries: u64,
    removed_bytes: u64,
    removed_other_files: u64,
}

pub(crate) fn cache(args: &CacheArgs) -> Result<(), FileError> {
    let dir = args.cache_dir.clone().unwrap_or_else(cache::cache_dir);
    let removed = match &args.action {
        CacheAction::Stats => CacheStats::default(),
        CacheAction::Clean => {
            cache::clean(&dir).map_err(|e| FileError::new(&dir, format!("cannot clean the cache: {e}")))?
        }
        CacheAction::Trim { max_size } => cache::trim(&dir, *max_size),
    };
    let now = cache::stats(&dir);
    if args.json {
        let json = JsonCache {
            cache_dir: dir.display().to_string(),
            entries: now.entries,
            bytes: now.bytes,
            other_files: now.other_files,
            other_bytes: now.other_bytes,
            removed_entries: removed.entries,
            removed_bytes: removed.bytes,
            removed_other_files: removed.other_files,
        };
        println!("{}", serde_json::to_string_pretty(&json).unwrap_or_default());
        return Ok(());
    }
    if !matches!(args.action, CacheAction::Stats) {
        println!("removed {} entries ({} bytes)", removed.entries, removed.bytes);
        if removed.other_files > 0 {
            println!("removed {} temporary files ({} bytes)", removed.other_files, removed.other_bytes);
        }
    }
    println!("{}: {} entries, {} bytes", dir.display(), now.entries, now.bytes);
    if now.other_files > 0 {
        // Left by killed builds; `trim` removes them once an hour old.
        println!("{}: {} temporary files, {} bytes", dir.display(), now.other_files, now.other_bytes);
    }
    Ok(())
}

/// Bytes, or a number with `K`, `M` or `G` (powers of 1024, as ccache's; a trailing `B`/`iB` is accepted).
fn parse_size(text: &str) -> Option<u64> {
    let upper = text.trim().to_ascii_uppercase();
    let trimmed = upper.strip_suffix("IB").or_else(|| upper.strip_suffix('B')).unwrap_or(&upper);
    let units = [('K', 10), ('M', 20), ('G', 30)];
    let unit = units.into_iter().find_map(|(unit, shift)| Some((trimmed.strip_suffix(unit)?.trim(), shift)));
    let (number, shift) = unit.unwrap_or((trimmed, 0));
    number.parse::<u64>().ok()?.checked_mul(1 << shift)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_suffixes() {
        assert_eq!(parse_size("1000"), Some(1000));
        assert_eq!(parse_size("2K"), Some(2048));
        assert_eq!(parse_size("3M"), Some(3 << 20));
        assert_eq!(parse_size("5g"), Some(5 << 30));
        assert_eq!(parse_size("1GiB"), Some(1 << 30));
        assert_eq!(parse_size(""), None);
        assert_eq!(parse_size("lots"), None);
        assert_eq!(parse_size("1T"), None);
        assert_eq!(parse_size("-1"), None);
        assert_eq!(parse_size("99999999999999999999G"), None);
    }
}
