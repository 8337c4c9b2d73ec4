//! Files and folders readable by the user only: the data folder (mode 0700), the
//! profiles file and every SQLite database (0600; SQLite gives its `-wal` and `-shm`
//! files the database's mode). Existing files from an older version are tightened when
//! opened. On Windows the files live under the user's own profile folder, whose ACL
//! already keeps other users out.

use std::io;
use std::path::Path;

/// Creates `path` (and its parents) and makes `path` itself private. A shared folder
/// that is there already (sticky, such as `/tmp`, when a home or a database is put right
/// in it) is left as it is: tightening it would lock every other user and service out.
pub fn dir(path: &Path) -> io::Result<()> {
    std::fs::create_dir_all(path)?;
    if shared(path)? {
        return Ok(());
    }
    restrict(path, 0o700)
}

#[cfg(unix)]
fn shared(path: &Path) -> io::Result<bool> {
    use std::os::unix::fs::PermissionsExt;
    Ok(std::fs::metadata(path)?.permissions().mode() & 0o1000 != 0)
}

#[cfg(not(unix))]
fn shared(_: &Path) -> io::Result<bool> {
    Ok(false)
}

/// Creates `path` empty and private if it is missing; tightens it if it is not private.
///
/// A file that is there already is never opened: a database this process holds open
/// would lose its locks (POSIX drops all of a process's locks on a file when any of its
/// descriptors of that file closes), and another program's connection closing after it
/// would then take the database for unused, checkpoint it and delete the write-ahead log
/// this process still writes to.
pub fn file(path: &Path) -> io::Result<()> {
    if std::fs::symlink_metadata(path).is_ok() {
        return restrict(path, 0o600);
    }
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    opts.open(path)?;
    restrict(path, 0o600)
}

/// Writes `bytes` to a private file.
pub fn write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    file(path)?;
    std::fs::write(path, bytes)
}

#[cfg(unix)]
fn restrict(path: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let now = std::fs::metadata(path)?.permissions().mode() & 0o777;
    if now & !mode != 0 {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
    }
    Ok(())
}

#[cfg(not(unix))]
fn restrict(_: &Path, _: u32) -> io::Result<()> {
    Ok(())
}

#[cfg(all(test, unix))]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    fn mode(p: &std::path::Path) -> u32 {
        std::fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn new_and_old_files_end_up_private() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("home").join("data");
        super::dir(&d).unwrap();
        assert_eq!(mode(&d), 0o700);
        let f = d.join("old.sqlite");
        std::fs::write(&f, b"x").unwrap();
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).unwrap();
        super::file(&f).unwrap();
        assert_eq!(mode(&f), 0o600);
        assert_eq!(
            std::fs::read(&f).unwrap(),
            b"x",
            "an existing file keeps its content"
        );
    }

    #[test]
    fn a_shared_folder_is_never_tightened() {
        let t = tempfile::tempdir().unwrap();
        let shared = t.path().join("shared");
        std::fs::create_dir(&shared).unwrap();
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
        super::dir(&shared).unwrap();
        let all = std::fs::metadata(&shared).unwrap().permissions().mode() & 0o7777;
        assert_eq!(
            all, 0o1777,
            "a home or database right in /tmp leaves /tmp alone"
        );
    }
}
