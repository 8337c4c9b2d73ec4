//! The client side: psql and pg_isready against the scratch server, and the quoting of
//! connection strings and identifiers.

use std::io::{self, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::thread;

use crate::{HOST, binaries};

/// Runs `sql` (any number of statements, read from stdin) with psql as `user` on
/// `dbname`, stopping at the first error.
pub(crate) fn psql(
    bin: &Path,
    port: u16,
    user: &str,
    password: &str,
    dbname: &str,
    sql: &str,
) -> io::Result<Output> {
    let mut command = Command::new(binaries::program(bin, "psql"));
    clear_pg_env(&mut command);
    command
        .env("PGPASSWORD", password)
        .env("PGCONNECT_TIMEOUT", "10")
        .args([
            "-h",
            HOST,
            "-p",
            &port.to_string(),
            "-U",
            user,
            "-d",
            dbname,
        ])
        .args(["-X", "-q", "-v", "ON_ERROR_STOP=1", "-At", "-f", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn()?;
    // Written from a thread: psql answers while it reads, and a long script with long
    // answers would otherwise fill both pipes.
    let writer = child.stdin.take().map(|mut stdin| {
        let sql = sql.to_owned();
        thread::spawn(move || stdin.write_all(sql.as_bytes()))
    });
    let out = child.wait_with_output()?;
    if let Some(writer) = writer {
        // psql may exit before reading everything (a failed connection, ON_ERROR_STOP):
        // its stderr says why, not the broken pipe.
        let _ = writer.join();
    }
    Ok(out)
}

/// Whether the server on `port` accepts connections (`pg_isready`, which needs no
/// password).
pub(crate) fn is_ready(bin: &Path, port: u16) -> io::Result<bool> {
    let mut command = Command::new(binaries::program(bin, "pg_isready"));
    clear_pg_env(&mut command);
    let status = command
        .args(["-q", "-t", "1", "-h", HOST, "-p", &port.to_string()])
        .args(["-d", "postgres"])
        .stdin(Stdio::null())
        .status()
        .map_err(|e| io::Error::new(e.kind(), format!("could not run pg_isready: {e}")))?;
    Ok(status.success())
}

/// The client programs read PGHOST, PGOPTIONS, PGSERVICE, ... from the environment:
/// none of the developer's may reach the scratch server.
fn clear_pg_env(command: &mut Command) {
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("PG") {
            command.env_remove(name);
        }
    }
}

/// A value in a key=value connection string, as libpq and tokio-postgres read it.
pub(crate) fn quote_conninfo(value: &str) -> String {
    let escaped = value.replace('\\', "\\\\").replace('\'', "\\'");
    format!("'{escaped}'")
}

/// An SQL identifier, whatever its characters.
pub(crate) fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conninfo_values_are_quoted_and_escaped() {
        assert_eq!(quote_conninfo("plain"), "'plain'");
        assert_eq!(quote_conninfo(r"it's a \ test"), r"'it\'s a \\ test'");
        assert_eq!(quote_conninfo(""), "''");
    }

    #[test]
    fn identifiers_are_quoted() {
        assert_eq!(quote_ident("desk"), "\"desk\"");
        assert_eq!(quote_ident("a\"b"), "\"a\"\"b\"");
    }
}
