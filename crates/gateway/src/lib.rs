//! The payment gateway's protocol, as `shared/gateway-interface.md` describes it and
//! `shared/signing.md` fixes where it is silent: wire types for all 11 operations,
//! canonical signing and verification, an HTTP client whose errors say what the caller
//! may do, field validators, money, and the state dictionary.
//!
//! Nothing here knows about profiles, keyrings or storage; `paydesk-core` does.

pub mod client;
pub mod conventions;
pub mod dictionary;
pub mod error;
pub mod keys;
pub mod money;
pub mod redact;
pub mod sensitive;
pub mod signing;
pub mod validate;
pub mod wire;

pub use client::{Answer, ClientConfig, Credentials, GatewayClient, Prepared, SignatureStatus};
pub use conventions::{Conventions, OrderKind};
pub use dictionary::{Meaning, Reading, StateDictionary, StateField};
pub use error::{GatewayError, NextStep};
pub use keys::{KeyError, PrivateKey, PublicKey};
pub use money::{Currency, Money};
pub use sensitive::Sensitive;
pub use signing::{SignSettings, canonical_string, sign_body, verify_body};
pub use validate::FieldError;
