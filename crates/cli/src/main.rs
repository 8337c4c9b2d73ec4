//! `paydesk`: PayDesk from a terminal.
//!
//! Exit codes: 0 success; 1 a check failed (for `verify`: the signature is not valid);
//! 2 bad input or usage (a one-line reason on stderr).

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod keys;
mod sandbox;

#[derive(Debug, Parser)]
#[command(
    name = "paydesk",
    version,
    about = "PayDesk, the payment gateway back office, from a terminal"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Sign a JSON object read from stdin; prints {"canonical": ..., "sign": ...}.
    Sign(keys::SignArgs),
    /// Verify a signature over a JSON object read from stdin (exit 0 valid, 1 invalid, 2 bad input).
    Verify(keys::VerifyArgs),
    /// Generate an RSA key pair: PKCS#8 private key (mode 0600) and SPKI public key, PEM.
    Keygen(keys::KeygenArgs),
    /// Serve the sandbox gateway on 127.0.0.1 with a demo merchant, for trying PayDesk out.
    Sandbox(sandbox::SandboxArgs),
}

/// A failure with the exit code it maps to.
#[derive(Debug)]
pub enum Failure {
    /// Exit 1: the command ran and the answer is "no".
    Check(String),
    /// Exit 2: the input or the arguments are wrong.
    Input(String),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Sign(a) => keys::sign(a),
        Command::Verify(a) => keys::verify(a),
        Command::Keygen(a) => keys::keygen(a),
        Command::Sandbox(a) => sandbox::run(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Check(msg)) => {
            eprintln!("{msg}");
            ExitCode::from(1)
        }
        Err(Failure::Input(msg)) => {
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
    }
}
