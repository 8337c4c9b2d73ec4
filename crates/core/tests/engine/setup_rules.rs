//! The live set-up's key rules, as every front end gets them from the core.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use paydesk_core::{CoreError, MemoryStore, Secrets};

#[test]
fn the_merchants_own_public_key_is_refused_as_the_gateways() {
    let secrets = Secrets::new(Arc::new(MemoryStore::default()));
    let own = secrets.generate_merchant_key("live", 2048).unwrap();
    for text in [&own.public_pem, &own.public_base64] {
        let err = secrets.set_gateway_key("live", text).unwrap_err();
        assert!(
            matches!(&err, CoreError::Validation { field, rule }
                if field == "gatewayPublicKey" && rule.contains("your own public key")),
            "{err}"
        );
    }
    assert!(
        secrets.gateway_key("live").unwrap().is_none(),
        "nothing kept"
    );
    // Another key (the gateway's) is taken.
    let other = Secrets::new(Arc::new(MemoryStore::default()))
        .generate_merchant_key("gw", 2048)
        .unwrap();
    secrets.set_gateway_key("live", &other.public_pem).unwrap();
    assert!(secrets.gateway_key("live").unwrap().is_some());
}

#[test]
fn a_private_keys_text_is_read_before_anything_is_replaced() {
    let err = Secrets::private_key_info("this is not a private key").unwrap_err();
    assert!(
        matches!(&err, CoreError::Validation { field, .. } if field == "privateKey"),
        "{err}"
    );
    let secrets = Secrets::new(Arc::new(MemoryStore::default()));
    let kept = secrets.generate_merchant_key("live", 2048).unwrap();
    let pem = secrets.merchant_key("live").unwrap().to_pkcs8_pem();
    let read = Secrets::private_key_info(&pem).unwrap();
    assert_eq!(read.fingerprint, kept.fingerprint);
}
