//! `sign`, `verify` and `keygen`: the signing rule of `signing.md` from a terminal.

use std::path::{Path, PathBuf};

use clap::Args;
use paydesk_gateway::{PrivateKey, PublicKey, SignSettings, sign_body};
use serde_json::{Map, Value};

use crate::Failure;

#[derive(Debug, Args)]
pub struct SignArgs {
    /// Private key file: PEM PKCS#8, PEM PKCS#1, or bare base64 DER.
    #[arg(long, value_name = "FILE")]
    private_key: PathBuf,
    /// Top-level keys left out of the canonical string (default: sign,sing,signType).
    #[arg(long, value_name = "KEY,KEY", value_delimiter = ',')]
    exclude: Option<Vec<String>>,
    /// Keep empty top-level values ("", null, [], {}) in the canonical string.
    #[arg(long)]
    keep_empty: bool,
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Public key file: PEM SPKI, PEM PKCS#1, or bare base64 DER.
    #[arg(long, value_name = "FILE")]
    public_key: PathBuf,
    /// The signature, standard base64.
    #[arg(long, value_name = "BASE64")]
    sign: String,
    /// Top-level keys left out of the canonical string (default: sign,sing,signType).
    #[arg(long, value_name = "KEY,KEY", value_delimiter = ',')]
    exclude: Option<Vec<String>>,
    /// Keep empty top-level values in the canonical string.
    #[arg(long)]
    keep_empty: bool,
}

#[derive(Debug, Args)]
pub struct KeygenArgs {
    /// Key size in bits.
    #[arg(long, default_value_t = 2048, value_parser = parse_bits)]
    bits: usize,
    /// Directory to write private_key.pem and public_key.pem into (created if missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Replace existing key files.
    #[arg(long)]
    force: bool,
}

fn parse_bits(s: &str) -> Result<usize, String> {
    match s {
        "2048" | "3072" | "4096" => Ok(s.parse().unwrap_or(2048)),
        _ => Err(format!("must be 2048, 3072 or 4096, got {s:?}")),
    }
}

/// The canonical string's settings, as the app's signing tools read them.
fn settings(exclude: Option<Vec<String>>, keep_empty: bool) -> SignSettings {
    paydesk_api::tools::settings(exclude, keep_empty)
}

fn read_key_file(path: &Path) -> Result<zeroize::Zeroizing<String>, Failure> {
    paydesk_core::input::read_text(path, paydesk_core::input::MAX_KEY_BYTES)
        .map(zeroize::Zeroizing::new)
        .map_err(Failure::Input)
}

fn read_body() -> Result<Map<String, Value>, Failure> {
    let text = paydesk_core::input::read_stdin(paydesk_core::input::MAX_DOCUMENT_BYTES)
        .map_err(Failure::Input)?;
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(Failure::Input("stdin must hold a JSON object".into())),
        Err(e) => Err(Failure::Input(format!("stdin is not valid JSON: {e}"))),
    }
}

pub fn sign(a: SignArgs) -> Result<(), Failure> {
    let key = PrivateKey::from_text(&read_key_file(&a.private_key)?)
        .map_err(|e| Failure::Input(format!("{}: {e}", a.private_key.display())))?;
    let body = read_body()?;
    let signed = sign_body(&body, &settings(a.exclude, a.keep_empty), &key)
        .map_err(|e| Failure::Input(e.to_string()))?;
    let line = serde_json::to_string(&signed).map_err(|e| Failure::Input(e.to_string()))?;
    println!("{line}");
    Ok(())
}

pub fn verify(a: VerifyArgs) -> Result<(), Failure> {
    let key = PublicKey::from_text(&read_key_file(&a.public_key)?)
        .map_err(|e| Failure::Input(format!("{}: {e}", a.public_key.display())))?;
    let body = read_body()?;
    match paydesk_api::tools::verify(&body, &settings(a.exclude, a.keep_empty), &key, &a.sign) {
        Ok(v) if v.valid => {
            println!("valid");
            Ok(())
        }
        Ok(_) => Err(Failure::Check(format!(
            "invalid: {}",
            paydesk_gateway::signing::VerifyError::Mismatch
        ))),
        Err(_) => Err(Failure::Input("--sign is not valid base64".into())),
    }
}

pub fn keygen(a: KeygenArgs) -> Result<(), Failure> {
    let key = PrivateKey::generate(a.bits).map_err(|e| Failure::Input(e.to_string()))?;
    std::fs::create_dir_all(&a.out)
        .map_err(|e| Failure::Input(format!("cannot create {}: {e}", a.out.display())))?;
    let private_path = a.out.join("private_key.pem");
    let public_path = a.out.join("public_key.pem");
    if !a.force {
        for p in [&private_path, &public_path] {
            if p.exists() {
                return Err(Failure::Input(format!(
                    "{} exists; pass --force to replace it",
                    p.display()
                )));
            }
        }
    }
    write_private(&private_path, key.to_pkcs8_pem().as_bytes())?;
    let public = key.public_key();
    std::fs::write(&public_path, public.to_pem())
        .map_err(|e| Failure::Input(format!("cannot write {}: {e}", public_path.display())))?;
    println!("{}", public.fingerprint());
    eprintln!(
        "wrote {} (private, mode 0600) and {}",
        private_path.display(),
        public_path.display()
    );
    Ok(())
}

/// Creates the file with mode 0600 from the start, so the key is never readable by others.
pub fn write_private(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    use std::io::Write;
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let mut f = opts
        .open(path)
        .map_err(|e| Failure::Input(format!("cannot write {}: {e}", path.display())))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // An existing file keeps its old mode on open; set it explicitly.
        f.set_permissions(std::fs::Permissions::from_mode(0o600))
            .map_err(|e| Failure::Input(e.to_string()))?;
    }
    f.write_all(bytes)
        .map_err(|e| Failure::Input(format!("cannot write {}: {e}", path.display())))
}
