//! For the window tests (which run under node): a real PostgreSQL server in a scratch
//! folder on a free loopback port, with the databases named as arguments. Prints one
//! JSON line (`host`, `port`, `superuser`, `password`, `owner`,
//! `ownerPassword`, `pid`, `serverVersion`, `serverVersionNum`; the databases belong to the owner, no superuser) and keeps the server until
//! its standard input closes (the test ended, or its runner died), then stops it by its
//! PID and removes the folder.

use std::io::{BufRead, Write};

fn main() -> std::process::ExitCode {
    let pg = match paydesk_testpg::TestPg::start() {
        Ok(pg) => pg,
        Err(e) => {
            eprintln!("paydesk-testpg: cannot start PostgreSQL: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    for name in std::env::args().skip(1) {
        if let Err(e) = pg.create_database(&name) {
            eprintln!("paydesk-testpg: cannot create database {name}: {e}");
            return std::process::ExitCode::FAILURE;
        }
    }
    // The password is a throwaway of this scratch server, printed for the test that
    // started it (the server listens on loopback only and is gone when the test ends).
    let line = format!(
        "{{\"host\":\"{}\",\"port\":{},\"superuser\":\"{}\",\"password\":\"{}\",\"owner\":\"{}\",\"ownerPassword\":\"{}\",\"pid\":{},\"serverVersion\":\"{}\",\"serverVersionNum\":{}}}",
        pg.host(),
        pg.port(),
        pg.superuser(),
        pg.superuser_password(),
        pg.owner(),
        pg.owner_password(),
        pg.pid(),
        pg.server_version().replace(['"', '\\'], ""),
        pg.server_version_num()
    );
    let mut out = std::io::stdout().lock();
    if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
        return std::process::ExitCode::FAILURE;
    }
    drop(out);
    // Until standard input closes.
    let mut sink = String::new();
    let stdin = std::io::stdin();
    let mut lock = stdin.lock();
    while lock.read_line(&mut sink).is_ok_and(|n| n > 0) {
        sink.clear();
    }
    drop(pg);
    std::process::ExitCode::SUCCESS
}
