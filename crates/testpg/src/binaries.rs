//! Where the PostgreSQL server's programs are.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::{env, fs, io};

/// Names a folder that holds `initdb` and `postgres`, overriding the search.
pub(crate) const BIN_ENV: &str = "PAYDESK_PG_BIN";

/// Debian installs each major version's server in a folder of its own, with only
/// wrappers of the client programs on `PATH`.
const DEBIAN_ROOT: &str = "/usr/lib/postgresql";

/// The folder of `initdb` and `postgres`: `PAYDESK_PG_BIN` if set; else the highest
/// version under `/usr/lib/postgresql/*/bin` that has both; else `pg_config --bindir`.
pub(crate) fn find() -> io::Result<PathBuf> {
    if let Some(dir) = env::var_os(BIN_ENV) {
        let dir = PathBuf::from(dir);
        return if has_server(&dir) {
            Ok(dir)
        } else {
            Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!(
                    "{BIN_ENV} is {}, which does not hold both initdb and postgres",
                    dir.display()
                ),
            ))
        };
    }
    if let Some(dir) = newest_debian_version(Path::new(DEBIAN_ROOT)) {
        return Ok(dir);
    }
    if let Some(dir) = pg_config_bindir().filter(|dir| has_server(dir)) {
        return Ok(dir);
    }
    Err(io::Error::new(
        io::ErrorKind::NotFound,
        format!(
            "no PostgreSQL server found (initdb and postgres, looked in {BIN_ENV}, \
             {DEBIAN_ROOT}/*/bin and `pg_config --bindir`): install Debian's `postgresql` \
             package (`cargo xtask setup` does), or set {BIN_ENV} to the folder holding them"
        ),
    ))
}

/// `dir`'s copy of a program when it has one; otherwise the bare name, for `PATH`
/// (a `pg_config` layout may keep the clients elsewhere than the server).
pub(crate) fn program(dir: &Path, name: &str) -> PathBuf {
    let own = dir.join(name);
    if own.is_file() {
        own
    } else {
        PathBuf::from(name)
    }
}

fn has_server(dir: &Path) -> bool {
    dir.join("initdb").is_file() && dir.join("postgres").is_file()
}

fn newest_debian_version(root: &Path) -> Option<PathBuf> {
    let entries = fs::read_dir(root).ok()?;
    entries
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let version = version_key(&entry.file_name().to_string_lossy())?;
            let bin = entry.path().join("bin");
            has_server(&bin).then_some((version, bin))
        })
        .max_by(|a, b| a.0.cmp(&b.0))
        .map(|(_, bin)| bin)
}

/// "15" → [15], "9.6" → [9, 6]: compared as numbers, so 10 is newer than 9.6.
fn version_key(name: &str) -> Option<Vec<u32>> {
    name.split('.').map(|part| part.parse().ok()).collect()
}

fn pg_config_bindir() -> Option<PathBuf> {
    let out = Command::new("pg_config").arg("--bindir").output().ok()?;
    if !out.status.success() {
        return None;
    }
    let dir = String::from_utf8(out.stdout).ok()?;
    let dir = dir.trim();
    (!dir.is_empty()).then(|| PathBuf::from(dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_compare_as_numbers() {
        assert!(version_key("10") > version_key("9.6"));
        assert!(version_key("16") > version_key("15"));
        assert_eq!(version_key("common"), None);
    }

    #[test]
    fn the_highest_version_with_a_server_wins() -> io::Result<()> {
        let root = tempfile::tempdir()?;
        for (version, complete) in [("9.6", true), ("15", true), ("17", false), ("x", true)] {
            let bin = root.path().join(version).join("bin");
            fs::create_dir_all(&bin)?;
            fs::write(bin.join("initdb"), "")?;
            if complete {
                fs::write(bin.join("postgres"), "")?;
            }
        }
        assert_eq!(
            newest_debian_version(root.path()),
            Some(root.path().join("15").join("bin"))
        );
        Ok(())
    }
}
