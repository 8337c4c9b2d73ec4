//! Preparing a data directory and what a start needs: the superuser's password, the
//! cluster, its client authentication, a free port.

use std::fs::{self, File};
use std::io::{self, Read};
use std::net::{Ipv4Addr, TcpListener};
use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::SUPERUSER;
use crate::owner::RunAs;

/// Every connection needs a password: initdb's `trust` for local sockets would let a
/// test pass that a real client fails.
const PG_HBA: &str = "# paydesk-testpg: a password for every connection\n\
    local all all scram-sha-256\n\
    host all all 127.0.0.1/32 scram-sha-256\n";

/// Runs initdb for `data` (superuser `paydesk_super` with `password`, UTF8, in the
/// C.UTF-8 locale, or with no locale where C.UTF-8 is missing), then replaces its
/// pg_hba.conf with one that asks every connection for a password.
pub(crate) fn initdb(
    bin: &Path,
    scratch: &Path,
    data: &Path,
    password: &str,
    run_as: Option<RunAs>,
    durable: bool,
) -> io::Result<()> {
    let pwfile = scratch.join("superuser-password");
    fs::write(&pwfile, password)?;
    if let Some(run_as) = run_as {
        run_as.give(&pwfile)?;
    }
    let run = |locale: &str| -> io::Result<Output> {
        let mut command = Command::new(bin.join("initdb"));
        command
            .arg("-D")
            .arg(data)
            .args([
                "-U",
                SUPERUSER,
                "--auth=scram-sha-256",
                "-E",
                "UTF8",
                locale,
            ])
            .arg(format!("--pwfile={}", pwfile.display()))
            .current_dir(scratch)
            .stdin(Stdio::null());
        if !durable {
            command.arg("-N");
        }
        if let Some(run_as) = run_as {
            run_as.apply(&mut command);
        }
        command.output()
    };
    let mut out = run("--locale=C.UTF-8")?;
    if !out.status.success() {
        // initdb removes the data directory it failed to fill; this is in case not.
        let _ = fs::remove_dir_all(data);
        out = run("--no-locale")?;
    }
    // Only the server needs the password from now on.
    let _ = fs::remove_file(&pwfile);
    if !out.status.success() {
        return Err(io::Error::other(format!(
            "initdb failed ({}): {}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    // Overwritten in place, so it keeps the server's user as its owner.
    fs::write(data.join("pg_hba.conf"), PG_HBA)
}

/// A port no one listens on now; the server binds it a moment later, and a start that
/// loses the race is tried again on another.
pub(crate) fn free_port() -> io::Result<u16> {
    Ok(TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?
        .local_addr()?
        .port())
}

/// `bytes` random bytes from the kernel, in hex.
pub(crate) fn random_hex(bytes: usize) -> io::Result<String> {
    let mut buf = vec![0u8; bytes];
    File::open("/dev/urandom")?.read_exact(&mut buf)?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_random_hex() -> io::Result<()> {
        let (a, b) = (random_hex(16)?, random_hex(16)?);
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
        Ok(())
    }
}
