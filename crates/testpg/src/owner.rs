//! Which user the server runs as.
//!
//! initdb and postgres refuse to run as root, and CI runs as root. Then the server
//! runs as the `postgres` system user that Debian's package creates, and owns its
//! scratch folder; otherwise it runs as whoever runs the tests.

use std::os::unix::fs::{MetadataExt, chown};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;
use std::{fs, io};

const SERVER_USER: &str = "postgres";

/// The user the server's programs run as, when that is not the current user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RunAs {
    uid: u32,
    gid: u32,
}

impl RunAs {
    /// `None` when the current user may run the server; the `postgres` user when
    /// running as root. `scratch` is a folder this process has just created: its owner
    /// is the effective user, with no unsafe call to ask for it.
    pub(crate) fn for_scratch(scratch: &Path) -> io::Result<Option<RunAs>> {
        if fs::metadata(scratch)?.uid() != 0 {
            return Ok(None);
        }
        let passwd = fs::read_to_string("/etc/passwd")?;
        let Some((uid, gid)) = lookup(&passwd, SERVER_USER) else {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                "running as root, which initdb refuses, and there is no `postgres` user in \
                 /etc/passwd to run the server as: install Debian's `postgresql` package, \
                 which creates it, or run the tests as another user",
            ));
        };
        let run_as = RunAs { uid, gid };
        run_as.give(scratch)?;
        Ok(Some(run_as))
    }

    /// Hands a file or folder to the server's user.
    pub(crate) fn give(&self, path: &Path) -> io::Result<()> {
        chown(path, Some(self.uid), Some(self.gid))
    }

    /// Makes `command` run as the server's user (std drops root's supplementary groups
    /// too).
    pub(crate) fn apply(&self, command: &mut Command) {
        command.uid(self.uid).gid(self.gid);
    }
}

/// A user's uid and gid from the text of /etc/passwd (`name:x:uid:gid:...`).
fn lookup(passwd: &str, name: &str) -> Option<(u32, u32)> {
    passwd.lines().find_map(|line| {
        let mut fields = line.split(':');
        if fields.next()? != name {
            return None;
        }
        let _password = fields.next()?;
        let uid = fields.next()?.parse().ok()?;
        let gid = fields.next()?.parse().ok()?;
        Some((uid, gid))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PASSWD: &str = "root:x:0:0:root:/root:/bin/bash\n\
        postgresx:x:7:7::/:/bin/false\n\
        postgres:x:101:104:PostgreSQL administrator,,,:/var/lib/postgresql:/bin/bash\n";

    #[test]
    fn finds_a_user_by_its_exact_name() {
        assert_eq!(lookup(PASSWD, "postgres"), Some((101, 104)));
        assert_eq!(lookup(PASSWD, "root"), Some((0, 0)));
        assert_eq!(lookup(PASSWD, "postgre"), None);
        assert_eq!(lookup("postgres:x:oops:1:::\n", "postgres"), None);
    }
}
