//! The book of payees (issue 35) on a solo desk: real keyring, real SQLite file, the
//! sandbox on loopback. A payee chosen by nickname is paid at its own account; the files
//! of the desk never hold a full account; a bulk file names payees by nickname.

#![allow(clippy::unwrap_used)]

use crate::common;

use paydesk_core::CoreError;
use paydesk_core::beneficiaries::{NewBeneficiary, Payee};
use paydesk_core::forms::{PayoutForm, PayoutKind};
use paydesk_core::new_mer_order_no;

// Valid CLABEs of three banks (check digits computed by hand: weights 3, 7, 1).
const BANAMEX: &str = "002010077777777771";
const BBVA: &str = "012180001234567899";
const BANORTE: &str = "072180009876543213";

fn payee(nickname: &str, first: &str, account: &str) -> NewBeneficiary {
    NewBeneficiary {
        nickname: nickname.into(),
        first_name: first.into(),
        account: account.into(),
        ..Default::default()
    }
}

fn key_of(e: &CoreError) -> (String, Option<String>) {
    match e {
        CoreError::Validation { field, rule } => (field.clone(), rule.key.clone()),
        other => panic!("not a field rule: {other}"),
    }
}

/// Every byte of every file under `dir` (the profile's SQLite file, its WAL, the home's files).
fn files_hold(dir: &std::path::Path, needle: &str) -> Vec<String> {
    let mut hits = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(bytes) = std::fs::read(&p)
                && bytes.windows(needle.len()).any(|w| w == needle.as_bytes())
            {
                hits.push(p.display().to_string());
            }
        }
    }
    hits
}

fn clabe_form(amount: &str) -> PayoutForm {
    PayoutForm::new(PayoutKind::Clabe, &new_mer_order_no("PO"), amount, "MXN")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_payee_chosen_by_nickname_is_paid_at_its_account_and_kept_only_masked_and_sealed() {
    let f = common::Fixture::new("book").await;
    let desk = f.desk().await;
    let rent = desk
        .records()
        .add_beneficiary(&payee("Rent", "Casa Azul", BBVA))
        .unwrap();
    assert_eq!(rent.account, "012180********7899");
    assert_eq!(rent.bank.as_deref(), Some("BBVA MEXICO"));
    assert_eq!(rent.country, "MX");
    desk.records()
        .add_beneficiary(&payee("payroll-ana", "Ana", BANORTE))
        .unwrap();

    // A nickname is unique per book, whatever its case.
    let taken = desk
        .records()
        .add_beneficiary(&payee("RENT", "Other", BANAMEX))
        .unwrap_err();
    assert_eq!(
        key_of(&taken),
        ("nickname".into(), Some("payeeNicknameTaken".into()))
    );
    let listed = desk.records().beneficiaries().unwrap();
    let names: Vec<&str> = listed.iter().map(|b| b.nickname.as_str()).collect();
    assert_eq!(names, ["payroll-ana", "Rent"]);

    // Chosen by nickname: the confirmation shows the masked account, its bank, and that
    // the book knows it.
    let form = PayoutForm {
        beneficiary: "rent".into(),
        ..clabe_form("12.34")
    };
    let preview = desk.money().payout_preview(&form).unwrap();
    assert_eq!(preview.account, "012180********7899");
    assert_eq!(preview.bank.as_deref(), Some("BBVA MEXICO"));
    assert_eq!(
        preview.payee,
        Some(Payee::Known {
            nickname: "Rent".into(),
            name: "Casa Azul".into()
        })
    );
    let receipt = desk.money().payout(&form).await.unwrap();
    assert_eq!(
        receipt.entry.status,
        paydesk_core::journal::Status::Accepted
    );
    // The order the gateway received is to the payee's account (bank 012, last 7899).
    let sent = f.running.sandbox.with_state(|s| {
        s.orders
            .iter()
            .filter(|o| o.mer_order_no == form.mer_order_no)
            .map(|o| o.account.clone())
            .collect::<Vec<_>>()
    });
    assert_eq!(sent, ["CLABE 012…7899"]);

    // An account the book has never seen says so.
    let new = desk
        .money()
        .payout_preview(&PayoutForm {
            clabe: BANAMEX.into(),
            ..clabe_form("5")
        })
        .unwrap();
    assert_eq!(new.payee, Some(Payee::New));
    // The same account typed in full is the known payee.
    let typed = desk
        .money()
        .payout_preview(&PayoutForm {
            clabe: BANORTE.into(),
            ..clabe_form("5")
        })
        .unwrap();
    assert!(
        matches!(typed.payee, Some(Payee::Known { ref nickname, .. }) if nickname == "payroll-ana")
    );

    // A nickname the book does not hold, or one with another account, is refused before
    // anything is written or sent.
    let before = f.running.sandbox.with_state(|s| s.orders.len());
    let unknown = desk
        .money()
        .payout(&PayoutForm {
            beneficiary: "landlord".into(),
            ..clabe_form("5")
        })
        .await
        .unwrap_err();
    assert_eq!(
        key_of(&unknown),
        ("beneficiary".into(), Some("payeeUnknown".into()))
    );
    let differs = desk
        .money()
        .payout(&PayoutForm {
            beneficiary: "Rent".into(),
            clabe: BANAMEX.into(),
            ..clabe_form("5")
        })
        .await
        .unwrap_err();
    assert_eq!(
        key_of(&differs),
        ("clabe".into(), Some("payeeAccountDiffers".into()))
    );
    assert_eq!(f.running.sandbox.with_state(|s| s.orders.len()), before);

    // No file of the desk holds a payee's full account.
    for full in [BBVA, BANORTE] {
        assert_eq!(
            files_hold(f.dir.path(), full),
            Vec::<String>::new(),
            "{full}"
        );
    }

    // Removed, the nickname is unknown again; the audit log has both changes.
    desk.records().remove_beneficiary("RENT").unwrap();
    assert_eq!(desk.records().beneficiaries().unwrap().len(), 1);
    let again = desk.records().remove_beneficiary("rent").unwrap_err();
    assert_eq!(key_of(&again).1.as_deref(), Some("payeeUnknown"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bulk_rows_name_payees_by_nickname_and_a_wrong_one_is_refused_naming_row_and_field() {
    let f = common::Fixture::new("bookbulk").await;
    let desk = f.desk().await;
    desk.records()
        .add_beneficiary(&payee("rent", "Casa Azul", BBVA))
        .unwrap();
    desk.records()
        .add_beneficiary(&NewBeneficiary {
            nickname: "visa-bob".into(),
            first_name: "Bob".into(),
            last_name: "Stone".into(),
            account: "4111111111111111".into(),
            country: "US".into(),
            kind: Some(PayoutKind::Card),
        })
        .unwrap();
    let file = format!(
        "type,amount,currency,account,beneficiary,firstName,lastName,country\n\
         ,10.00,MXN,,rent,,,\n\
         ,11.00,USD,,visa-bob,,,\n\
         clabe,12.00,MXN,{BANAMEX},,,,\n\
         ,13.00,MXN,,landlord,,,\n\
         clabe,14.00,MXN,{BANAMEX},rent,,,\n\
         clabe,15.00,MXN,{BBVA},Rent,,,\n\
         card,16.00,MXN,,rent,,,\n"
    );
    let checked = desk.money().bulk_parse(file.as_bytes()).unwrap();
    let errors: Vec<(usize, &str, Option<&str>)> = checked
        .errors
        .iter()
        .map(|e| (e.line, e.field.as_str(), e.rule.key.as_deref()))
        .collect();
    assert_eq!(
        errors,
        [
            (5, "beneficiary", Some("payeeUnknown")),
            (6, "account", Some("payeeAccountDiffers")),
            (8, "type", Some("payeeTypeDiffers")),
        ]
    );
    // The refusals name the row's own cell.
    assert_eq!(checked.errors[0].value.as_deref(), Some("landlord"));
    let plan = desk.money().bulk_plan(&checked).unwrap();
    let rows: Vec<(usize, &str, Option<&Payee>)> = plan
        .rows
        .iter()
        .map(|r| (r.line, r.payout.account.as_str(), r.payout.payee.as_ref()))
        .collect();
    let known = |n: &str, name: &str| Payee::Known {
        nickname: n.into(),
        name: name.into(),
    };
    assert_eq!(
        rows,
        [
            (2, "012180********7899", Some(&known("rent", "Casa Azul"))),
            (3, "411111******1111", Some(&known("visa-bob", "Bob Stone"))),
            (4, "002010********7771", Some(&Payee::New)),
            (7, "012180********7899", Some(&known("rent", "Casa Azul"))),
        ]
    );
    // The card payee's names and country come from the book.
    assert_eq!(plan.rows[1].payout.beneficiary, "Bob Stone");
    // A payee whose sealed account this desk's key does not open (here: its seal moved
    // onto another payee's row) is refused on its rows; the rest of the book still pays.
    desk.records()
        .add_beneficiary(&payee("water", "Agua", BANAMEX))
        .unwrap();
    {
        let conn = rusqlite::Connection::open(f.home.database(&f.name)).unwrap();
        conn.execute(
            "UPDATE beneficiaries SET account_sealed = (SELECT account_sealed FROM beneficiaries WHERE nickname = 'rent') WHERE nickname = 'water'",
            [],
        )
        .unwrap();
    }
    let mixed = desk
        .money()
        .bulk_parse(b"amount,currency,beneficiary\n1.00,MXN,water\n2.00,MXN,rent\n")
        .unwrap();
    let refused: Vec<(usize, &str, Option<&str>)> = mixed
        .errors
        .iter()
        .map(|e| (e.line, e.field.as_str(), e.rule.key.as_deref()))
        .collect();
    assert_eq!(refused, [(2, "beneficiary", Some("payeeSealUnreadable"))]);
    assert_eq!(mixed.rows.len(), 1);
    let single = desk
        .money()
        .payout_preview(&PayoutForm {
            beneficiary: "water".into(),
            ..clabe_form("1")
        })
        .unwrap_err();
    assert_eq!(key_of(&single).1.as_deref(), Some("payeeSealUnreadable"));

    // A row by nickname and the same row by its account are one payout (one number).
    let nick_no = &plan.rows[0].mer_order_no;
    let by_account = format!("type,amount,currency,account\nclabe,10.00,MXN,{BBVA}\n");
    let plain = desk.money().bulk_parse(by_account.as_bytes()).unwrap();
    let plain_plan = desk.money().bulk_plan(&plain).unwrap();
    assert_eq!(&plain_plan.rows[0].mer_order_no, nick_no);
}

/// Review r6 R6-1: a solo desk refuses a nickname that reads like one in its book (all
/// Greek capitals, fullwidth letters, a capital I for an l), as the team's database does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_nickname_reading_like_a_payee_in_the_book_is_refused() {
    let f = common::Fixture::new("lookalike").await;
    let desk = f.desk().await;
    desk.records()
        .add_beneficiary(&payee("ANNA", "Ana", BANAMEX))
        .unwrap();
    desk.records()
        .add_beneficiary(&payee("lan", "Lan", BBVA))
        .unwrap();
    for nick in [
        "\u{0391}\u{039D}\u{039D}\u{0391}",
        "\u{FF41}\u{FF4E}\u{FF4E}\u{FF41}",
        "Ian",
    ] {
        let e = desk
            .records()
            .add_beneficiary(&payee(nick, "Impostor", BANORTE))
            .unwrap_err();
        assert_eq!(
            key_of(&e),
            ("nickname".into(), Some("payeeNicknameLookAlike".into())),
            "{nick}: {e}"
        );
    }
    assert_eq!(desk.records().beneficiaries().unwrap().len(), 2);
    desk.records()
        .add_beneficiary(&payee("Ivan", "Ivan", BANORTE))
        .unwrap();
}
