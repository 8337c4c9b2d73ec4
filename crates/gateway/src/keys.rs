//! RSA keys through aws-lc-rs: import (PEM PKCS#8, PEM PKCS#1, bare base64 DER of
//! either), generation, export, RSA256 signing and verification, and fingerprints.
//!
//! A private key never prints: its `Debug` shows only the size and the fingerprint of
//! its public half, and it implements neither `Display` nor `Serialize`. The DER and PEM
//! copies of it made here are zeroized when dropped (aws-lc clears the key pair's own
//! memory when it frees it).

use std::fmt;

use aws_lc_rs::encoding::{AsDer, Pkcs8V1Der, PublicKeyX509Der};
use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::rsa::{self, KeySize};
use aws_lc_rs::signature::{self, KeyPair as _, RsaKeyPair, UnparsedPublicKey};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use sha2::{Digest as _, Sha256};
use zeroize::Zeroizing;

pub const MIN_BITS: usize = 2048;
pub const MAX_BITS: usize = 4096;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("the key is neither PEM nor base64 DER")]
    NotPemOrBase64,
    #[error("the PEM block is a {0:?}; expected {1}")]
    WrongPemLabel(String, &'static str),
    #[error("the key could not be read as an RSA {0} key")]
    Unreadable(&'static str),
    #[error("the key has {0} bits; keys from {MIN_BITS} to {MAX_BITS} bits are accepted")]
    BadSize(usize),
    #[error("key sizes 2048, 3072 and 4096 can be generated, not {0}")]
    UnsupportedGenerateSize(usize),
    #[error("the key could not be generated")]
    Generate,
    #[error("signing failed")]
    Sign,
}

/// Decodes PEM (any of the accepted labels) or bare base64 DER into DER bytes and
/// the PEM label, if any.
fn decode_text(text: &str) -> Result<(Option<String>, Zeroizing<Vec<u8>>), KeyError> {
    let t = text.trim();
    if t.starts_with("-----BEGIN") {
        let p = pem::parse(t).map_err(|_| KeyError::NotPemOrBase64)?;
        let tag = p.tag().to_string();
        return Ok((Some(tag), Zeroizing::new(p.into_contents())));
    }
    let compact: Zeroizing<String> =
        Zeroizing::new(t.chars().filter(|c| !c.is_whitespace()).collect());
    B64.decode(compact.as_bytes())
        .map(|der| (None, Zeroizing::new(der)))
        .map_err(|_| KeyError::NotPemOrBase64)
}

/// A merchant's (or the sandbox gateway's) RSA private key.
pub struct PrivateKey {
    pair: RsaKeyPair,
    pkcs8: Zeroizing<Vec<u8>>,
}

impl PrivateKey {
    /// Reads PEM PKCS#8, PEM PKCS#1, or bare base64 DER of either.
    pub fn from_text(text: &str) -> Result<Self, KeyError> {
        match decode_text(text)? {
            (Some(label), der) if label == "PRIVATE KEY" => Self::from_pkcs8_der(&der),
            (Some(label), der) if label == "RSA PRIVATE KEY" => Self::from_pkcs1_der(&der),
            (Some(label), _) => Err(KeyError::WrongPemLabel(
                label,
                "PRIVATE KEY or RSA PRIVATE KEY",
            )),
            (None, der) => Self::from_der(&der),
        }
    }

    /// PKCS#8 or PKCS#1 DER, whichever it is.
    pub fn from_der(der: &[u8]) -> Result<Self, KeyError> {
        Self::from_pkcs8_der(der).or_else(|_| Self::from_pkcs1_der(der))
    }

    pub fn from_pkcs8_der(der: &[u8]) -> Result<Self, KeyError> {
        let pair = RsaKeyPair::from_pkcs8(der).map_err(|_| unreadable(der, "PKCS#8"))?;
        Self::checked(pair)
    }

    pub fn from_pkcs1_der(der: &[u8]) -> Result<Self, KeyError> {
        let pair = RsaKeyPair::from_der(der).map_err(|_| unreadable(der, "PKCS#1"))?;
        Self::checked(pair)
    }

    fn checked(pair: RsaKeyPair) -> Result<Self, KeyError> {
        let bits = pair.public_modulus_len() * 8;
        if !(MIN_BITS..=MAX_BITS).contains(&bits) {
            return Err(KeyError::BadSize(bits));
        }
        let pkcs8 = Zeroizing::new(
            AsDer::<Pkcs8V1Der>::as_der(&pair)
                .map_err(|_| KeyError::Unreadable("PKCS#8"))?
                .as_ref()
                .to_vec(),
        );
        Ok(Self { pair, pkcs8 })
    }

    /// Generates a new key of 2048, 3072 or 4096 bits.
    pub fn generate(bits: usize) -> Result<Self, KeyError> {
        let size = match bits {
            2048 => KeySize::Rsa2048,
            3072 => KeySize::Rsa3072,
            4096 => KeySize::Rsa4096,
            other => return Err(KeyError::UnsupportedGenerateSize(other)),
        };
        let pair = RsaKeyPair::generate(size).map_err(|_| KeyError::Generate)?;
        Self::checked(pair)
    }

    pub fn bits(&self) -> usize {
        self.pair.public_modulus_len() * 8
    }

    /// PKCS#8 DER: the form kept in the keyring (fits Windows' 2,560-byte limit up to
    /// 4096 bits, which PEM does not).
    pub fn pkcs8_der(&self) -> &[u8] {
        &self.pkcs8
    }

    /// PEM PKCS#8 (the `PRIVATE KEY` label), for writing a key file.
    pub fn to_pkcs8_pem(&self) -> Zeroizing<String> {
        let block = pem::Pem::new("PRIVATE KEY", self.pkcs8.to_vec());
        let text = Zeroizing::new(pem::encode(&block));
        drop(Zeroizing::new(block.into_contents()));
        text
    }

    pub fn public_key(&self) -> PublicKey {
        // The pair's public key is PKCS#1 DER, which `from_der` accepts.
        PublicKey::from_der(self.pair.public_key().as_ref())
            .unwrap_or_else(|_| unreachable!("a key pair's own public key always parses"))
    }

    /// RSASSA-PKCS1-v1_5 with SHA-256 over `message`.
    pub fn sign(&self, message: &[u8]) -> Result<Vec<u8>, KeyError> {
        let mut sig = vec![0; self.pair.public_modulus_len()];
        self.pair
            .sign(
                &signature::RSA_PKCS1_SHA256,
                &SystemRandom::new(),
                message,
                &mut sig,
            )
            .map_err(|_| KeyError::Sign)?;
        Ok(sig)
    }
}

impl fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "PrivateKey(<redacted>, {} bits, public {})",
            self.bits(),
            self.public_key().fingerprint()
        )
    }
}

/// An RSA public key, kept as SubjectPublicKeyInfo DER.
#[derive(Clone, PartialEq, Eq)]
pub struct PublicKey {
    spki: Vec<u8>,
    bits: usize,
}

impl PublicKey {
    /// Reads PEM SPKI (`BEGIN PUBLIC KEY`), PEM PKCS#1 (`BEGIN RSA PUBLIC KEY`), or
    /// bare base64 DER of either.
    pub fn from_text(text: &str) -> Result<Self, KeyError> {
        match decode_text(text)? {
            (Some(label), der) if label == "PUBLIC KEY" || label == "RSA PUBLIC KEY" => {
                Self::from_der(&der)
            }
            (Some(label), _) => Err(KeyError::WrongPemLabel(
                label,
                "PUBLIC KEY or RSA PUBLIC KEY",
            )),
            (None, der) => Self::from_der(&der),
        }
    }

    /// SPKI or PKCS#1 DER.
    pub fn from_der(der: &[u8]) -> Result<Self, KeyError> {
        let key = rsa::PublicKey::from_der(der).map_err(|_| KeyError::Unreadable("public"))?;
        let spki = AsDer::<PublicKeyX509Der>::as_der(&key)
            .map_err(|_| KeyError::Unreadable("public"))?
            .as_ref()
            .to_vec();
        let bits = modulus_bits(key.as_ref()).ok_or(KeyError::Unreadable("public"))?;
        if !(MIN_BITS..=MAX_BITS).contains(&bits) {
            return Err(KeyError::BadSize(bits));
        }
        Ok(Self { spki, bits })
    }

    pub fn bits(&self) -> usize {
        self.bits
    }

    pub fn spki_der(&self) -> &[u8] {
        &self.spki
    }

    pub fn to_pem(&self) -> String {
        pem::encode(&pem::Pem::new("PUBLIC KEY", self.spki.clone()))
    }

    /// Bare base64 of the SPKI DER, the form gateway portals usually ask for.
    pub fn to_base64(&self) -> String {
        B64.encode(&self.spki)
    }

    /// `SHA256:` and the lower-case hex SHA-256 of the SPKI DER, grouped by two.
    pub fn fingerprint(&self) -> String {
        let digest = Sha256::digest(&self.spki);
        let hex: Vec<String> = digest.iter().map(|b| format!("{b:02x}")).collect();
        format!("SHA256:{}", hex.join(":"))
    }

    pub fn verify(&self, message: &[u8], sig: &[u8]) -> bool {
        UnparsedPublicKey::new(&signature::RSA_PKCS1_2048_8192_SHA256, &self.spki)
            .verify(message, sig)
            .is_ok()
    }
}

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PublicKey({} bits, {})", self.bits, self.fingerprint())
    }
}

/// Why aws-lc refused a private key: its size, when the DER says a size outside the
/// accepted range (aws-lc refuses keys under 2048 bits as unreadable), else unreadable.
fn unreadable(der: &[u8], form: &'static str) -> KeyError {
    match private_modulus_bits(der, true) {
        Some(bits) if !(MIN_BITS..=MAX_BITS).contains(&bits) => KeyError::BadSize(bits),
        _ => KeyError::Unreadable(form),
    }
}

/// The modulus size of an RSA private key in PKCS#8 (`outer`: it wraps PKCS#1 once, no
/// deeper) or PKCS#1 DER.
fn private_modulus_bits(der: &[u8], outer: bool) -> Option<usize> {
    /// The tag, and the content's range, of the element at `at`.
    fn tlv(b: &[u8], at: usize) -> Option<(u8, usize, usize)> {
        let tag = *b.get(at)?;
        let first = *b.get(at + 1)?;
        let (len, start) = if first < 0x80 {
            (usize::from(first), at + 2)
        } else {
            let n = usize::from(first & 0x7f);
            if n == 0 || n > 4 {
                return None;
            }
            let mut len = 0usize;
            for k in 0..n {
                len = (len << 8) | usize::from(*b.get(at + 2 + k)?);
            }
            (len, at + 2 + n)
        };
        let end = start.checked_add(len)?;
        (end <= b.len()).then_some((tag, start, end))
    }
    let (tag, body, _) = tlv(der, 0)?;
    (tag == 0x30).then_some(())?;
    let (tag, _, version_end) = tlv(der, body)?;
    (tag == 0x02).then_some(())?;
    let (next, start, end) = tlv(der, version_end)?;
    match next {
        // PKCS#8: AlgorithmIdentifier, then the PKCS#1 key in an OCTET STRING.
        0x30 if outer => {
            let (tag, inner, inner_end) = tlv(der, end)?;
            (tag == 0x04).then_some(())?;
            private_modulus_bits(der.get(inner..inner_end)?, false)
        }
        // PKCS#1: the modulus.
        0x02 => {
            let n = der.get(start..end)?;
            let n = &n[n.iter().position(|&b| b != 0)?..];
            Some(n.len() * 8 - n[0].leading_zeros() as usize)
        }
        _ => None,
    }
}

/// Bit length of the modulus in a PKCS#1 `RSAPublicKey` DER: the first INTEGER.
fn modulus_bits(pkcs1: &[u8]) -> Option<usize> {
    fn read_len(b: &[u8], i: &mut usize) -> Option<usize> {
        let first = *b.get(*i)?;
        *i += 1;
        if first < 0x80 {
            return Some(usize::from(first));
        }
        let n = usize::from(first & 0x7f);
        let mut len = 0usize;
        for _ in 0..n {
            len = (len << 8) | usize::from(*b.get(*i)?);
            *i += 1;
        }
        Some(len)
    }
    let mut i = 0;
    (pkcs1.get(i)? == &0x30).then_some(())?;
    i += 1;
    read_len(pkcs1, &mut i)?;
    (pkcs1.get(i)? == &0x02).then_some(())?;
    i += 1;
    let len = read_len(pkcs1, &mut i)?;
    let n = pkcs1.get(i..i + len)?;
    let n = match n.iter().position(|&b| b != 0) {
        Some(p) => &n[p..],
        None => return Some(0),
    };
    Some(n.len() * 8 - n[0].leading_zeros() as usize)
}
