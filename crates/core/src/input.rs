//! Files and streams an operator names as input (review documents, bulk files, keys,
//! tokens), read with a bound: only a regular file is read (a FIFO, a device such as
//! `/dev/zero`, a directory or a socket is refused, through a symlink too), it is
//! opened without blocking, and never more than the bound is read.

use std::io::Read;
use std::path::Path;

/// Review documents, bulk payout files and configuration files.
pub const MAX_DOCUMENT_BYTES: u64 = 5 * 1024 * 1024;
/// Key files (PEM or base64 DER), tokens and notification bodies.
pub const MAX_KEY_BYTES: u64 = 64 * 1024;

fn too_large(what: &str, max: u64) -> String {
    format!("{what} is larger than {max} bytes, the most accepted")
}

/// Reads the regular file at `path`, at most `max` bytes. The error is the rule broken,
/// naming the file.
pub fn read_file(path: &Path, max: u64) -> Result<Vec<u8>, String> {
    read_file_rule(path, max).map_err(|rule| rule.text)
}

/// [`read_file`], its error a rule a window words in the user's language.
pub fn read_file_rule(path: &Path, max: u64) -> Result<Vec<u8>, crate::error::Rule> {
    use crate::error::Rule;
    let shown = path.display();
    let cannot = |e: std::io::Error| {
        Rule::keyed(
            format!("cannot read {shown}: {e}"),
            "fileUnreadable",
            &[("file", shown.to_string()), ("detail", e.to_string())],
        )
    };
    let large = || {
        Rule::keyed(
            too_large(&shown.to_string(), max),
            "fileTooLarge",
            &[("file", shown.to_string()), ("count", max.to_string())],
        )
    };
    // Checked before opening (a FIFO without a writer would block the open) and again
    // on the opened handle (the name may have been swapped in between).
    let regular = |m: std::fs::Metadata| {
        if m.is_file() {
            Ok(m.len())
        } else {
            Err(Rule::keyed(
                format!(
                    "{shown} is not a regular file (a directory, device, pipe or socket is not read)"
                ),
                "fileNotRegular",
                &[("file", shown.to_string())],
            ))
        }
    };
    regular(std::fs::metadata(path).map_err(cannot)?)?;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(cannot)?;
    let len = regular(file.metadata().map_err(cannot)?)?;
    if len > max {
        return Err(large());
    }
    read_bounded(file, max).map_err(|e| match e {
        Bounded::Io(e) => cannot(e),
        Bounded::TooLarge => large(),
    })
}

/// Reads the regular file at `path` as UTF-8 text, at most `max` bytes.
pub fn read_text(path: &Path, max: u64) -> Result<String, String> {
    String::from_utf8(read_file(path, max)?)
        .map_err(|_| format!("{} is not UTF-8 text", path.display()))
}

/// Reads standard input as UTF-8 text, at most `max` bytes (an endless stream such as
/// `/dev/zero` is cut at the bound and refused).
pub fn read_stdin(max: u64) -> Result<String, String> {
    let bytes = read_bounded(std::io::stdin().lock(), max).map_err(|e| match e {
        Bounded::Io(e) => format!("cannot read stdin: {e}"),
        Bounded::TooLarge => too_large("stdin", max),
    })?;
    String::from_utf8(bytes).map_err(|_| "stdin is not UTF-8 text".into())
}

enum Bounded {
    Io(std::io::Error),
    TooLarge,
}

fn read_bounded(r: impl Read, max: u64) -> Result<Vec<u8>, Bounded> {
    let mut bytes = Vec::new();
    r.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(Bounded::Io)?;
    if bytes.len() as u64 > max {
        return Err(Bounded::TooLarge);
    }
    Ok(bytes)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_within_the_bound_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.csv");
        std::fs::write(&f, b"0123456789").unwrap();
        assert_eq!(read_file(&f, 10).unwrap(), b"0123456789");
        assert!(
            read_file(&f, 9)
                .unwrap_err()
                .contains("larger than 9 bytes")
        );
        // A directory, a device (through a symlink too) and a missing file.
        assert!(
            read_file(dir.path(), 10)
                .unwrap_err()
                .contains("not a regular file")
        );
        #[cfg(unix)]
        {
            assert!(
                read_file(Path::new("/dev/zero"), 10)
                    .unwrap_err()
                    .contains("not a regular file")
            );
            let link = dir.path().join("zero.png");
            std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
            assert!(
                read_file(&link, 10)
                    .unwrap_err()
                    .contains("not a regular file")
            );
        }
        assert!(
            read_file(&dir.path().join("none"), 10)
                .unwrap_err()
                .contains("cannot read")
        );
        assert!(read_text(&f, 10).is_ok());
        std::fs::write(&f, [0xff, 0xfe]).unwrap();
        assert!(read_text(&f, 10).unwrap_err().contains("not UTF-8"));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_fifo_without_a_writer_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe.csv");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        assert!(
            read_file(&fifo, 10)
                .unwrap_err()
                .contains("not a regular file")
        );
    }

    #[test]
    fn an_endless_stream_is_cut_at_the_bound() {
        let endless = std::io::repeat(0);
        assert!(matches!(
            read_bounded(endless, 1024),
            Err(Bounded::TooLarge)
        ));
    }
}
