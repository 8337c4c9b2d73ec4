//! The book of payees' contract ([`BeneficiaryStore`]): a payee added once by its
//! nickname (compared in lower case), found by nickname and by its account's digest,
//! listed by nickname, removed once. A desk's own book: only a desk's SQLite file
//! implements it; a team's book is the team's (`TeamStore::payees`, `add_payee`, ...:
//! sealed to the signers, approved by another member), with a contract of its own
//! (`team.rs`).

use paydesk_model::beneficiaries::{Beneficiary, PayoutKind, StoredBeneficiary};
use paydesk_store::CoreError;
use paydesk_store::beneficiaries::BeneficiaryStore;

use super::Facts;

fn payee(nickname: &str, kind: PayoutKind, last4: &str, digest: &str) -> StoredBeneficiary {
    StoredBeneficiary {
        shown: Beneficiary {
            nickname: nickname.into(),
            kind,
            first_name: "Ana".into(),
            last_name: "Lima".into(),
            account: format!("****{last4}"),
            bank: (kind == PayoutKind::Clabe).then(|| "BANAMEX".into()),
            country: "MX".into(),
            created_at: 0,
            awaiting_approval: false,
            team_row: None,
        },
        sealed_account: format!("sealed:{digest}"),
        account_digest: digest.into(),
    }
}

/// A payee reads back as added (masked account, bank, country, its seal and digest),
/// stamped with when it was added; by nickname in any case and by digest; a second payee
/// of the same nickname (in another case) is refused naming the nickname and changes
/// nothing; the book lists by nickname; a removal removes once.
pub fn a_payee_is_added_once_found_by_nickname_and_digest_and_removed(
    b: &dyn BeneficiaryStore,
    facts: Facts,
) {
    assert!(b.list().unwrap().is_empty(), "{}: a new book", facts.name);
    let ana = payee("Ana", PayoutKind::Clabe, "7771", "d-ana");
    let added = b.add(&ana).unwrap();
    assert!(added.created_at > 0, "{}: stamped when added", facts.name);
    assert_eq!(
        Beneficiary {
            created_at: 0,
            ..added.clone()
        },
        ana.shown,
        "{}: as given",
        facts.name
    );

    let found = b.by_nickname("  aNA ").unwrap().unwrap();
    assert_eq!(found.shown, added, "{}: by nickname", facts.name);
    assert_eq!(found.sealed_account, "sealed:d-ana");
    assert_eq!(found.account_digest, "d-ana");
    assert_eq!(
        b.by_digest("d-ana").unwrap().map(|p| p.shown.nickname),
        Some("Ana".into()),
        "{}: by digest",
        facts.name
    );
    assert!(b.by_digest("d-nobody").unwrap().is_none());
    assert!(b.by_nickname("Bea").unwrap().is_none());

    let again = b.add(&payee("ANA", PayoutKind::Card, "1111", "d-other"));
    match again {
        Err(CoreError::Validation { field, .. }) => {
            assert_eq!(field, "nickname", "{}", facts.name)
        }
        other => panic!("{}: a taken nickname: {other:?}", facts.name),
    }
    assert!(
        b.by_digest("d-other").unwrap().is_none(),
        "{}: the refused payee left nothing",
        facts.name
    );

    b.add(&payee("bea", PayoutKind::Card, "1111", "d-bea"))
        .unwrap();
    b.add(&payee("Carl", PayoutKind::Clabe, "2222", "d-carl"))
        .unwrap();
    let names: Vec<String> = b
        .list()
        .unwrap()
        .into_iter()
        .map(|p| p.shown.nickname)
        .collect();
    assert_eq!(names, ["Ana", "bea", "Carl"], "{}: by nickname", facts.name);
    let bea = b.by_nickname("BEA").unwrap().unwrap();
    assert_eq!(bea.shown.kind, PayoutKind::Card);
    assert_eq!(bea.shown.bank, None);

    assert!(b.remove("ana").unwrap(), "{}", facts.name);
    assert!(!b.remove("Ana").unwrap(), "{}: removed once", facts.name);
    assert!(b.by_nickname("Ana").unwrap().is_none());
    assert!(b.by_digest("d-ana").unwrap().is_none());
    assert_eq!(b.list().unwrap().len(), 2, "{}", facts.name);
}
