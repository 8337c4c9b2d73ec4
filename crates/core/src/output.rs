//! Files an operator names as output (statements, order and audit exports, bulk result
//! files), written safely: only a regular file is ever written (a directory, a pipe, a
//! device or a socket is refused at once, so nothing blocks), a symbolic link is never
//! followed, an existing file is replaced only when the caller says so, and the content
//! goes to a private temporary file in the same folder that is renamed over the name
//! only when it is complete (a full disk leaves the old file, or none, never half a file).

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::error::{CoreError, CoreResult};

/// Whether an existing file may be replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Existing {
    /// Refused: the operator did not say to replace it.
    Refuse,
    /// Replaced (the operator said so: `--force`, or the app's save dialog confirmed).
    Replace,
}

impl Existing {
    pub fn replace_if(yes: bool) -> Self {
        if yes { Self::Replace } else { Self::Refuse }
    }
}

/// `key` names the rule's words in the window's catalogues (`rules.<key>`), which
/// name the path and, where there is one, the system's `detail`.
fn refused(path: &Path, rule: &str, key: &str, detail: Option<String>) -> CoreError {
    let shown = paydesk_gateway::redact::terminal_safe(&path.display().to_string(), 300);
    let mut params = vec![("path", shown.clone())];
    params.extend(detail.map(|d| ("detail", d)));
    CoreError::validation(
        "path",
        crate::error::Rule::keyed(format!("{shown}: {rule}"), key, &params),
    )
}

/// What stands at `path` now, checked without following a link and without opening it:
/// nothing, or a regular file that may be replaced. Everything else is refused, naming
/// the path and the rule.
pub fn check(path: &Path, existing: Existing) -> CoreResult<()> {
    if path.as_os_str().is_empty() {
        return Err(CoreError::keyed(
            "path",
            "must name a file",
            "pathEmpty",
            &[],
        ));
    }
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => {
            return Err(refused(
                path,
                &format!("cannot be checked: {e}"),
                "outputUncheckable",
                Some(e.to_string()),
            ));
        }
        Ok(m) if m.file_type().is_symlink() => {
            return Err(refused(
                path,
                "is a symbolic link; an output is never written through a link (name the file itself)",
                "outputSymlink",
                None,
            ));
        }
        Ok(m) if m.is_dir() => {
            return Err(refused(
                path,
                "is a directory; name a file to write",
                "outputDirectory",
                None,
            ));
        }
        Ok(m) if !m.is_file() => {
            return Err(refused(
                path,
                "is not a regular file (a pipe, device or socket is never written)",
                "outputNotRegular",
                None,
            ));
        }
        Ok(_) if existing == Existing::Refuse => {
            return Err(refused(
                path,
                "already exists; it is replaced only when told to (--force)",
                "outputExists",
                None,
            ));
        }
        Ok(_) => {}
    }
    let dir = folder(path);
    match std::fs::metadata(&dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(refused(
            path,
            "its folder is not a directory",
            "outputFolderNotDir",
            None,
        )),
        Err(e) => Err(refused(
            path,
            &format!("its folder cannot be used: {e}"),
            "outputFolderUnusable",
            Some(e.to_string()),
        )),
    }
}

fn folder(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// An output being written: a private temporary file next to `path`, renamed to it by
/// [`Output::commit`]; removed if dropped before.
#[derive(Debug)]
pub struct Output {
    path: PathBuf,
    temp: PathBuf,
    file: Option<File>,
    existing: Existing,
}

/// Starts writing `path` (checked with [`check`]).
pub fn create(path: &Path, existing: Existing) -> CoreResult<Output> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    check(path, existing)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut tries = 0;
    loop {
        let temp = folder(path).join(format!(
            ".{name}.{}-{}.partial",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let mut opts = std::fs::OpenOptions::new();
        opts.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            opts.mode(0o600)
                .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
        }
        match opts.open(&temp) {
            Ok(file) => {
                return Ok(Output {
                    path: path.to_path_buf(),
                    temp,
                    file: Some(file),
                    existing,
                });
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && tries < 10 => tries += 1,
            Err(e) => return Err(write_error(path, &e)),
        }
    }
}

/// The error of writing `path`, said once.
pub fn write_error(path: &Path, e: &dyn std::fmt::Display) -> CoreError {
    CoreError::storage(format!("cannot write {}: {e}", path.display()))
}

impl Output {
    /// Where the content goes until [`Output::commit`].
    pub fn file(&mut self) -> &mut File {
        self.file
            .as_mut()
            .unwrap_or_else(|| unreachable!("the file is taken only by commit"))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The content is complete: flushed to disk, then given its name. What stands at the
    /// name is checked again (it may have changed while writing); without
    /// [`Existing::Replace`] a file that appeared meanwhile is not replaced either.
    pub fn commit(mut self) -> CoreResult<()> {
        let path = self.path.clone();
        if let Some(mut f) = self.file.take() {
            f.flush()
                .and_then(|()| f.sync_all())
                .map_err(|e| write_error(&path, &e))?;
        }
        check(&path, self.existing)?;
        match self.existing {
            Existing::Replace => {
                std::fs::rename(&self.temp, &path).map_err(|e| write_error(&path, &e))?;
            }
            // A hard link never replaces what is there; where links are not supported,
            // the check just made stands.
            Existing::Refuse => match std::fs::hard_link(&self.temp, &path) {
                Ok(()) => {
                    let _ = std::fs::remove_file(&self.temp);
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    return Err(refused(
                        &path,
                        "already exists; it is replaced only when told to (--force)",
                        "outputExists",
                        None,
                    ));
                }
                Err(_) => {
                    std::fs::rename(&self.temp, &path).map_err(|e| write_error(&path, &e))?;
                }
            },
        }
        Ok(())
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        // Not committed (an error on the way), or committed by a link: the temporary
        // file goes.
        self.file.take();
        let _ = std::fs::remove_file(&self.temp);
    }
}

/// Writes `bytes` to `path` through [`create`] and [`Output::commit`].
pub fn write(path: &Path, existing: Existing, bytes: &[u8]) -> CoreResult<()> {
    let mut out = create(path, existing)?;
    out.file()
        .write_all(bytes)
        .map_err(|e| write_error(path, &e))?;
    out.commit()
}

/// A CSV cell as a spreadsheet will not run it: text that starts with `=`, `+`, `-`,
/// `@`, a tab or a carriage return (a formula, or a formula's way in) gets a leading `'`.
/// A plain decimal number (`-12.50`) is left as it is: it cannot be a formula.
pub fn safe_cell(text: &str) -> String {
    match text.chars().next() {
        Some('=' | '+' | '-' | '@' | '\t' | '\r')
            if text.parse::<rust_decimal::Decimal>().is_err() =>
        {
            format!("'{text}")
        }
        _ => text.to_string(),
    }
}

/// [`safe_cell`] over a whole record.
pub fn safe_record<I: IntoIterator<Item = S>, S: AsRef<str>>(cells: I) -> Vec<String> {
    cells.into_iter().map(|c| safe_cell(c.as_ref())).collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn said(r: CoreResult<()>) -> String {
        r.unwrap_err().to_string()
    }

    #[test]
    fn only_a_new_or_confirmed_regular_file_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("s.csv");
        write(&f, Existing::Refuse, b"one").unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), b"one");
        let again = said(write(&f, Existing::Refuse, b"two"));
        assert!(
            again.contains("already exists") && again.contains("--force"),
            "{again}"
        );
        assert_eq!(std::fs::read(&f).unwrap(), b"one", "not replaced");
        write(&f, Existing::Replace, b"two").unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), b"two");
        // A directory, named with its path.
        let d = said(write(dir.path(), Existing::Replace, b"x"));
        assert!(d.contains("is a directory"), "{d}");
        assert!(d.contains(&dir.path().display().to_string()), "{d}");
        // A missing folder.
        assert!(
            said(write(&dir.path().join("no/s.csv"), Existing::Refuse, b"x")).contains("folder")
        );
        // No temporary file is left behind.
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "{left:?}");
    }

    #[cfg(unix)]
    #[test]
    fn links_devices_and_pipes_are_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target.csv");
        std::fs::write(&target, b"keep").unwrap();
        let link = dir.path().join("link.csv");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        for existing in [Existing::Refuse, Existing::Replace] {
            assert!(said(write(&link, existing, b"x")).contains("symbolic link"));
        }
        assert_eq!(std::fs::read(&target).unwrap(), b"keep");
        let dangling = dir.path().join("dangling.csv");
        std::os::unix::fs::symlink(dir.path().join("none"), &dangling).unwrap();
        assert!(said(write(&dangling, Existing::Refuse, b"x")).contains("symbolic link"));
        assert!(!dir.path().join("none").exists());
        assert!(
            said(write(Path::new("/dev/null"), Existing::Replace, b"x"))
                .contains("not a regular file")
        );
        let fifo = dir.path().join("pipe.csv");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let started = std::time::Instant::now();
        assert!(said(write(&fifo, Existing::Replace, b"x")).contains("not a regular file"));
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
    }

    #[test]
    fn a_name_taken_while_writing_is_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("late.csv");
        let mut out = create(&f, Existing::Refuse).unwrap();
        out.file().write_all(b"mine").unwrap();
        std::fs::write(&f, b"theirs").unwrap();
        assert!(said(out.commit()).contains("already exists"));
        assert_eq!(std::fs::read(&f).unwrap(), b"theirs");
    }
}
