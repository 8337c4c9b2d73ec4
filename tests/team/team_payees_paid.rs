//! Issue 35 (team35, schema 0029): a team pays a payee of its book by nickname. The
//! maker's request names the payee (its id and the hash of its sealed account), never
//! its account; the database refuses a row naming a payee that is not approved or not
//! the one chosen; the signer's worker opens the seal and pays only a payee still in
//! the book, approved, unchanged, whose sealed account masks as shown. Attacked as each
//! role with plain SQL. Also: the maker's own limits said before submitting, the signer's
//! balance check, the worker's heartbeat and its alert, look-alike nicknames, and the
//! journal's purpose taken for the request's own operation only.

#![allow(clippy::unwrap_used)]

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use paydesk_core::alerts::{AlertKind, AlertSettings, AlertTarget, team_alerts};
use paydesk_core::beneficiaries::{NewBeneficiary, TeamPayeeRow};
use paydesk_core::forms::{PayoutForm, PayoutKind};
use paydesk_core::{CoreError, Desk, Endpoint, Profile};
use paydesk_team::{self as team, MemberLimit, RequestState, RowState, TeamRole};
use paydesk_testpg::{Options, TestPg};
use rust_decimal::Decimal;
use sha2::Digest as _;

use common::team::{CLABE, DB, PASSWORD, cfg, member, owner_sql, refused, sql};

const MER: i64 = common::MER as i64;
/// A second account (BBVA), valid by the CLABE's rules.
const CLABE_2: &str = "012180001234567899";

/// Admin alice (added by the owner), makers mark and max, approver ann, viewer vic,
/// support sue, signer sam.
fn team_db() -> TestPg {
    common::team::team_db_of(
        Options::default(),
        &[
            ("mark", TeamRole::Maker),
            ("max", TeamRole::Maker),
            ("ann", TeamRole::Approver),
            ("vic", TeamRole::Viewer),
            ("sue", TeamRole::Support),
            ("sam", TeamRole::Signer),
        ],
        "10000",
    )
}

fn rule_key(e: &CoreError) -> Option<String> {
    serde_json::to_value(e)
        .unwrap()
        .get("ruleKey")
        .and_then(|k| k.as_str())
        .map(str::to_string)
}

/// A signer's desk (it publishes the key payees are sealed to).
fn signer_desk(f: &common::Fixture, pg: &TestPg, user: &str) -> Desk {
    let p = f.home.get(&f.name).unwrap();
    f.home
        .put(Profile {
            team: Some(cfg(pg, user)),
            ..p
        })
        .unwrap();
    f.secrets.set_team_password(&f.name, PASSWORD).unwrap();
    Desk::open(&f.home, f.secrets.clone(), &f.name, Endpoint::Profile).unwrap()
}

fn payee(nickname: &str, account: &str) -> NewBeneficiary {
    NewBeneficiary {
        nickname: nickname.into(),
        first_name: "Casa Azul".into(),
        account: account.into(),
        ..Default::default()
    }
}

/// A payout to the payee of `nickname`, no account given.
fn to_payee(nickname: &str, amount: &str) -> PayoutForm {
    let mut f = PayoutForm::new(PayoutKind::Clabe, "", amount, "MXN");
    f.beneficiary = nickname.into();
    f
}

fn sha256_hex(s: &str) -> String {
    hex::encode(sha2::Sha256::digest(s.as_bytes()))
}

/// The payee's id and the hash of its sealed account, as the signer reads them.
fn id_and_hash(pg: &TestPg, nickname: &str) -> (i64, String) {
    let out = sql(
        pg,
        "sam",
        &format!(
            "SELECT id || ',' || account_sealed FROM paydesk.beneficiaries WHERE nickname_key = lower('{nickname}')"
        ),
    )
    .unwrap();
    let (id, sealed) = out.split_once(',').unwrap();
    (id.parse().unwrap(), sha256_hex(sealed))
}

/// One payout request of one row naming a payee, as a maker's psql writes it.
fn row_naming(no: &str, id: i64, hash: &str, clabe: &str, beneficiary: &str) -> String {
    format!(
        "WITH r AS (INSERT INTO paydesk.requests (operation, currency, total, row_count, summary) \
         VALUES ('payout', 'MXN', 100, 1, '100 MXN') RETURNING id) \
         INSERT INTO paydesk.request_rows (request_id, row_no, mer_order_no, amount, form, beneficiary) \
         SELECT id, 1, '{no}', 100, \
         '{{\"kind\":\"CLABE\",\"merOrderNo\":\"{no}\",\"amount\":\"100\",\"currency\":\"MXN\",\"clabe\":\"{clabe}\",\"payeeId\":{id},\"payeeSealedSha256\":\"{hash}\"}}', \
         '{beneficiary}' FROM r"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_team_pays_a_payee_by_nickname_and_never_one_changed_since_or_not_matching_its_mask() {
    let pg = team_db();
    let f = common::Fixture::new("team-paid").await;
    let desk = signer_desk(&f, &pg, "sam");
    let (mark, ann, sam) = (member(&pg, "mark"), member(&pg, "ann"), member(&pg, "sam"));
    mark.add_payee(&payee("Rent", CLABE)).unwrap();

    // By nickname: approved at once (under the rule's 10,000), the account never in the
    // request; approvers read the payee and its masked account.
    let r = mark.request_payout(&to_payee("rent", "250")).unwrap();
    assert_eq!(r.state, RequestState::Approved);
    let row = &ann.rows(r.id).unwrap()[0];
    assert_eq!(
        row.beneficiary,
        "CLABE 002010********7771 (BANAMEX), payee Rent"
    );
    let (id, hash) = id_and_hash(&pg, "rent");
    let form = sql(
        &pg,
        "sam",
        &format!(
            "SELECT form FROM paydesk.request_rows WHERE request_id = {}",
            r.id
        ),
    )
    .unwrap();
    assert!(!form.contains(&CLABE[6..14]), "{form}");
    let form: serde_json::Value = serde_json::from_str(&form).unwrap();
    assert_eq!(form["payeeId"], id);
    assert_eq!(form["payeeSealedSha256"], hash.as_str());
    assert_eq!(form["clabe"], "");

    // A second member, the signer, executes: paid once, to the payee's own account.
    let done = team::execute_next(&desk, &sam).await.unwrap().unwrap();
    assert_eq!((done.accepted, done.failed), (1, 0), "{:?}", ann.rows(r.id));
    let row = &ann.rows(r.id).unwrap()[0];
    assert_eq!(row.state, RowState::Accepted);
    assert_eq!(
        f.running
            .sandbox
            .orders_numbered(common::MER, &row.mer_order_no),
        1
    );
    let account = f.running.sandbox.with_state(|s| {
        s.orders
            .iter()
            .find(|o| o.mer_order_no == row.mer_order_no)
            .map(|o| o.account.clone())
    });
    assert_eq!(account.as_deref(), Some("CLABE 002…7771"));
    let entry = desk
        .journal()
        .entry_by_number(&row.mer_order_no)
        .unwrap()
        .unwrap();
    // The journal keeps the account masked. What was sent was the payee's full CLABE:
    // the same payout requested to that CLABE (typed in full) is the same intent, and
    // the signer's desk refuses it as already paid under the payee row's number.
    assert_eq!(entry.request["clabe"], "002010********7771");
    let mut typed = PayoutForm::new(PayoutKind::Clabe, "T-TYPED-1", "250", "MXN");
    typed.clabe = CLABE.into();
    let again = mark.request_payout(&typed).unwrap();
    team::execute_next(&desk, &sam).await.unwrap().unwrap();
    let twice = &ann.rows(again.id).unwrap()[0];
    assert_eq!(twice.state, RowState::Failed);
    let said = twice.message.as_deref().unwrap();
    assert!(
        said.contains(&format!(
            "already in the journal as merOrderNo {}",
            row.mer_order_no
        )),
        "{said}"
    );
    assert_eq!(
        f.running.sandbox.orders_numbered(common::MER, "T-TYPED-1"),
        0
    );

    // Changed after the request: removed and added again under the same nickname
    // (another account); the row fails, saying why, and nothing is sent.
    let r2 = mark.request_payout(&to_payee("rent", "260")).unwrap();
    assert!(mark.remove_payee("rent").unwrap());
    mark.add_payee(&payee("rent", CLABE_2)).unwrap();
    let done = team::execute_next(&desk, &sam).await.unwrap().unwrap();
    assert_eq!((done.accepted, done.failed), (0, 1));
    let row2 = &ann.rows(r2.id).unwrap()[0];
    assert_eq!(row2.state, RowState::Failed);
    assert!(
        row2.message
            .as_deref()
            .unwrap()
            .contains("no longer in the team's book"),
        "{row2:?}"
    );
    assert_eq!(
        f.running
            .sandbox
            .orders_numbered(common::MER, &row2.mer_order_no),
        0
    );

    // Its seal exchanged in place (as only the database's owner could): not the one
    // chosen, nothing sent.
    let r3 = mark.request_payout(&to_payee("rent", "270")).unwrap();
    let (other_id, _) = {
        mark.add_payee(&payee("spare", CLABE)).unwrap();
        id_and_hash(&pg, "spare")
    };
    owner_sql(
        &pg,
        &format!(
            "UPDATE paydesk.beneficiaries SET account_sealed = (SELECT account_sealed FROM paydesk.beneficiaries WHERE id = {other_id}) WHERE nickname_key = 'rent'"
        ),
    );
    team::execute_next(&desk, &sam).await.unwrap().unwrap();
    let row3 = &ann.rows(r3.id).unwrap()[0];
    assert_eq!(row3.state, RowState::Failed);
    assert!(
        row3.message
            .as_deref()
            .unwrap()
            .contains("changed since the request"),
        "{row3:?}"
    );
    assert_eq!(
        f.running
            .sandbox
            .orders_numbered(common::MER, &row3.mer_order_no),
        0
    );

    // Review r5 F5: a maker adds a payee showing the supplier's mask over another
    // account's seal (a seal any member could make); approvers would see the mask. The
    // signer opens the seal: it does not mask as shown, nothing is sent.
    let spare_seal = sql(
        &pg,
        "sam",
        "SELECT account_sealed FROM paydesk.beneficiaries WHERE nickname_key = 'spare'",
    )
    .unwrap();
    mark.add_payee(&payee("other", CLABE_2)).unwrap();
    let other_seal = sql(
        &pg,
        "sam",
        "SELECT account_sealed FROM paydesk.beneficiaries WHERE nickname_key = 'other'",
    )
    .unwrap();
    assert_ne!(spare_seal, other_seal);
    sql(
        &pg,
        "mark",
        &format!(
            "SELECT paydesk.add_beneficiary({MER}, 'supplier', 'clabe', 'Acme', 'SA', '002010********7771', '{other_seal}', 'BANAMEX', 'MX')"
        ),
    )
    .unwrap();
    let r4 = mark.request_payout(&to_payee("supplier", "280")).unwrap();
    team::execute_next(&desk, &sam).await.unwrap().unwrap();
    let row4 = &ann.rows(r4.id).unwrap()[0];
    assert_eq!(row4.state, RowState::Failed);
    assert!(
        row4.message
            .as_deref()
            .unwrap()
            .contains("does not match its shown account 002010********7771"),
        "{row4:?}"
    );
    assert_eq!(
        f.running
            .sandbox
            .orders_numbered(common::MER, &row4.mer_order_no),
        0
    );

    // A payee awaiting approval: the maker's desk says so and the database refuses a
    // row naming it, whoever writes it.
    member(&pg, "alice").set_payee_approval(true).unwrap();
    mark.add_payee(&payee("water", CLABE)).unwrap();
    let e = mark.request_payout(&to_payee("water", "100")).unwrap_err();
    assert_eq!(
        rule_key(&e).as_deref(),
        Some("payeeAwaitingApproval"),
        "{e}"
    );
    let (wid, whash) = id_and_hash(&pg, "water");
    refused(
        sql(
            &pg,
            "mark",
            &row_naming("PW-1", wid, &whash, "", "CLABE 002010********7771"),
        ),
        "a row naming a payee awaiting approval",
        "waits for another member's approval",
    );
    // Approved by another member: paid.
    ann.approve_payee(&TeamPayeeRow {
        id: wid,
        sealed_sha256: whash.clone(),
    })
    .unwrap();
    let r5 = mark.request_payout(&to_payee("water", "110")).unwrap();
    team::execute_next(&desk, &sam).await.unwrap().unwrap();
    assert_eq!(ann.rows(r5.id).unwrap()[0].state, RowState::Accepted);

    // A bulk file's `beneficiary` column on a team: rows by nickname, the account never
    // in the request; a row naming a payee awaiting approval refuses the file, naming
    // its line.
    let batch = mark
        .request_bulk(
            "pay.csv",
            b"beneficiary,amount,currency\nwater,120,MXN\nspare,130,MXN\n",
        )
        .unwrap();
    let rows = ann.rows(batch.id).unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(
        rows[0].beneficiary,
        "CLABE 002010********7771 (BANAMEX), payee water"
    );
    assert_eq!(
        rows[1].beneficiary,
        "CLABE 002010********7771 (BANAMEX), payee spare"
    );
    let forms = sql(
        &pg,
        "sam",
        &format!(
            "SELECT string_agg(form::text, '|') FROM paydesk.request_rows WHERE request_id = {}",
            batch.id
        ),
    )
    .unwrap();
    assert!(!forms.contains(&CLABE[6..14]), "{forms}");
    let done = team::execute_next(&desk, &sam).await.unwrap().unwrap();
    assert_eq!((done.accepted, done.failed), (2, 0));
    mark.add_payee(&payee("gas", CLABE_2)).unwrap();
    let e = mark
        .request_bulk(
            "pay2.csv",
            b"beneficiary,amount,currency\nwater,1,MXN\ngas,2,MXN\n",
        )
        .unwrap_err();
    assert_eq!(
        rule_key(&e).as_deref(),
        Some("payeeAwaitingApprovalLine"),
        "{e}"
    );
    assert!(e.to_string().contains("line 3"), "{e}");
}

#[test]
fn a_row_names_only_an_approved_current_payee_and_the_seals_are_the_signers() {
    let pg = team_db();
    let mark = member(&pg, "mark");
    // Sealed by hand to the shape of a 2048-bit block (the database cannot open it).
    let seal = |c: char| format!("{}==", c.to_string().repeat(342));
    for (nick, c) in [("acme", 'Q'), ("beta", 'R')] {
        sql(
            &pg,
            "mark",
            &format!(
                "SELECT paydesk.add_beneficiary({MER}, '{nick}', 'clabe', 'Acme', '', '002010********7771', '{}', 'BANAMEX', 'MX')",
                seal(c)
            ),
        )
        .unwrap();
    }
    let hash = |c: char| sha256_hex(&seal(c));
    let acme: i64 = owner_sql(
        &pg,
        "SELECT id FROM paydesk.beneficiaries WHERE nickname = 'acme'",
    )
    .parse()
    .unwrap();
    // The hash every member who may make a request reads is the seal's.
    assert_eq!(
        sql(
            &pg,
            "mark",
            &format!(
                "SELECT account_sealed_sha256 FROM paydesk.beneficiaries_shown WHERE id = {acme}"
            )
        )
        .unwrap(),
        hash('Q')
    );
    let masked = "CLABE 002010********7771 (BANAMEX), payee acme";
    // Another payee's hash, an id not in the book, an account of its own, a row that
    // does not name the payee's mask, a malformed hash: refused.
    refused(
        sql(
            &pg,
            "mark",
            &row_naming("PA-1", acme, &hash('R'), "", masked),
        ),
        "another payee's hash",
        "is not the one chosen",
    );
    refused(
        sql(
            &pg,
            "mark",
            &row_naming("PA-2", 999_999, &hash('Q'), "", masked),
        ),
        "an id not in the book",
        "is not in the team's book",
    );
    refused(
        sql(
            &pg,
            "mark",
            &row_naming("PA-3", acme, &hash('Q'), CLABE_2, masked),
        ),
        "a payee row with an account of its own",
        "carries no account of its own",
    );
    refused(
        sql(
            &pg,
            "mark",
            &row_naming("PA-4", acme, &hash('Q'), "", "CLABE 012180********7899"),
        ),
        "a row naming another account",
        "must name payee acme's account",
    );
    refused(
        sql(&pg, "mark", &row_naming("PA-5", acme, "abc", "", masked)),
        "a malformed hash",
        "SHA-256",
    );
    // As it should be: taken.
    sql(
        &pg,
        "mark",
        &row_naming("PA-6", acme, &hash('Q'), "", masked),
    )
    .unwrap();
    // A payee no live request holds is removed as before.
    assert!(mark.remove_payee("beta").unwrap());

    // The seals are the signers' only: nobody else reads them, whatever the role.
    for user in ["mark", "ann", "vic", "sue", "alice"] {
        refused(
            sql(
                &pg,
                user,
                "SELECT account_sealed FROM paydesk.beneficiaries",
            ),
            &format!("{user} reads the seals"),
            "permission denied",
        );
    }
    assert!(
        sql(
            &pg,
            "sam",
            "SELECT account_sealed FROM paydesk.beneficiaries"
        )
        .unwrap()
        .starts_with("QQQQ")
    );
    // Nobody writes the heartbeat but a signer's worker, for themself.
    for user in ["mark", "ann", "vic", "alice", "sam"] {
        refused(
            sql(
                &pg,
                user,
                "INSERT INTO paydesk.worker_beats VALUES ('sam', now(), now() + interval '1 day', NULL)",
            ),
            &format!("{user} writes a heartbeat"),
            "permission denied",
        );
    }
    refused(
        sql(&pg, "mark", "SELECT paydesk.worker_beat(true, false)"),
        "a maker beats",
        "permission denied",
    );
    sql(&pg, "sam", "SELECT paydesk.worker_beat(true, false)").unwrap();
    assert_eq!(
        sql(
            &pg,
            "vic",
            "SELECT signer || ',' || (seen_at <= now()) FROM paydesk.worker_beats"
        )
        .unwrap(),
        "sam,true"
    );
}

#[test]
fn look_alike_nicknames_are_refused() {
    let pg = team_db();
    let add = |nick: &str| {
        sql(
            &pg,
            "mark",
            &format!(
                "SELECT paydesk.add_beneficiary({MER}, '{nick}', 'clabe', 'Casa', '', '002010********7771', '{}==', 'BANAMEX', 'MX')",
                "Q".repeat(342)
            ),
        )
    };
    add("acme").unwrap();
    // Cyrillic а and м among Latin letters; all Cyrillic capitals reading "ACME"; a 1
    // for an l.
    for (nick, why) in [
        ("\u{0430}cme", "mixes Latin letters"),
        ("ac\u{043C}e", "mixes Latin letters"),
        ("\u{0410}\u{0421}\u{041C}\u{0415}", "reads like payee acme"),
    ] {
        refused(add(nick), nick, why);
    }
    add("pal").unwrap();
    refused(add("pa1"), "pa1", "reads like payee pal");
    // Review r6 R6-1: all Greek capitals reading as Latin ones, fullwidth and
    // mathematical letters, a capital I for an l, "rn" for an m.
    add("ANNA").unwrap();
    add("MAXIMA").unwrap();
    add("lan").unwrap();
    add("mark").unwrap();
    for (nick, alike) in [
        ("\u{0391}\u{039D}\u{039D}\u{0391}", "ANNA"),
        ("\u{039C}\u{0391}\u{03A7}\u{0399}\u{039C}\u{0391}", "MAXIMA"),
        ("\u{FF41}\u{FF43}\u{FF4D}\u{FF45}", "acme"),
        ("\u{FF21}\u{FF23}\u{FF2D}\u{FF25}", "acme"),
        ("\u{1D5BA}cme", "acme"),
        ("Ian", "lan"),
        ("rnark", "mark"),
    ] {
        refused(add(nick), nick, &format!("reads like payee {alike}"));
    }
    // Armenian and the other Cyrillic blocks among Latin letters.
    for nick in ["acm\u{0585}", "p\u{1C82}l", "pa\u{A64B}"] {
        refused(add(nick), nick, "mixes Latin letters");
    }
    // A name in one script of its own is a payee like any other.
    add("Иван").unwrap();
    add("ΔΗΜΗΤΡΑ").unwrap();
    assert_eq!(member(&pg, "vic").payees().unwrap().len(), 8);
}

/// Review sql-r6 F2: invisible characters NFKC keeps are not printable (a variation
/// selector after "Acme" prints as "Acme"); the skeleton lowercases the same whatever the
/// caller's collation (the book's column is "C"); Latin with diacritics is Latin in the
/// one-script rule ("ÉΤΑΤ" is É and Greek Tau, Alpha, Tau).
#[test]
fn invisible_characters_and_accented_look_alikes_are_refused() {
    let pg = team_db();
    let add = |nick: &str| {
        sql(
            &pg,
            "mark",
            &format!(
                "SELECT paydesk.add_beneficiary({MER}, '{nick}', 'clabe', 'Casa', '', '002010********7771', '{}==', 'BANAMEX', 'MX')",
                "Q".repeat(342)
            ),
        )
    };
    add("Acme SA").unwrap();
    for c in [
        '\u{FE0F}',
        '\u{FE00}',
        '\u{034F}',
        '\u{115F}',
        '\u{1160}',
        '\u{3164}',
        '\u{FFA0}',
        '\u{17B4}',
        '\u{180B}',
        '\u{E0041}',
        '\u{E0100}',
    ] {
        let nick = format!("Acme{c} SA");
        refused(
            add(&nick),
            &format!("U+{:04X} in a nickname", c as u32),
            "beneficiaries_printable_r6",
        );
        // The desk refuses it before the database is asked.
        assert!(
            paydesk_core::beneficiaries::forbidden(c),
            "U+{:04X} on the desk",
            c as u32
        );
    }
    // The same skeleton in the book's collation ("C") as in the caller's.
    let skel = pg
        .psql_owner(
            DB,
            "SELECT paydesk.nickname_skeleton('ÉTAT' COLLATE \"C\") || '|' || paydesk.nickname_skeleton('état' COLLATE \"C\")",
        )
        .unwrap();
    assert_eq!(skel.trim(), "état|état");
    add("ÉTAT").unwrap();
    refused(add("ÉΤΑΤ"), "ÉΤΑΤ", "mixes Latin letters");
    assert!(paydesk_core::beneficiaries::mixes_scripts("ÉΤΑΤ"));
    assert!(!paydesk_core::beneficiaries::mixes_scripts("ÉTAT"));
    assert!(!paydesk_core::beneficiaries::mixes_scripts("ΔΗΜΗΤΡΑ"));
    // Not refused by the wider rules: accents and one script of its own.
    add("Café Ñandú").unwrap();
    add("ΔΗΜΗΤΡΑ").unwrap();
    assert_eq!(member(&pg, "vic").payees().unwrap().len(), 4);
}

#[test]
fn a_makers_desk_names_the_limit_a_payout_would_pass_before_submitting() {
    let pg = team_db();
    let (alice, mark) = (member(&pg, "alice"), member(&pg, "mark"));
    alice
        .set_member_limit(&MemberLimit {
            member: "mark".into(),
            currency: "MXN".into(),
            per_payout: Some("1000".into()),
            per_day: Some("1500".into()),
            day_zone: "UTC".into(),
            set_by: String::new(),
        })
        .unwrap();
    let count = || owner_sql(&pg, "SELECT count(*) FROM paydesk.requests");
    let clabe = |amount: &str| {
        let mut f = PayoutForm::new(PayoutKind::Clabe, "", amount, "MXN");
        f.clabe = CLABE.into();
        f
    };
    let e = mark.request_payout(&clabe("1200")).unwrap_err();
    assert_eq!(rule_key(&e).as_deref(), Some("memberLimitPerPayout"), "{e}");
    assert!(e.to_string().contains("1000 MXN"), "{e}");
    assert_eq!(count(), "0");
    mark.request_payout(&clabe("900")).unwrap();
    // 900 + 700 > 1500: the day's limit, with what is left (600).
    let e = mark.request_payout(&clabe("700")).unwrap_err();
    assert_eq!(rule_key(&e).as_deref(), Some("memberLimitPerDay"), "{e}");
    let left = Decimal::from(1500) - Decimal::from(900);
    assert!(e.to_string().contains(&format!("{left} MXN left")), "{e}");
    assert_eq!(count(), "1");
    // A bulk file: its rows together.
    let e = mark
        .request_bulk(
            "b.csv",
            format!("type,amount,currency,account\nclabe,400,MXN,{CLABE}\nclabe,300,MXN,{CLABE}\n")
                .as_bytes(),
        )
        .unwrap_err();
    assert_eq!(rule_key(&e).as_deref(), Some("memberLimitPerDay"), "{e}");
    assert_eq!(count(), "1");
    // Within it, it goes; another maker has no limit.
    mark.request_payout(&clabe("600")).unwrap();
    member(&pg, "max").request_payout(&clabe("5000")).unwrap();
}

#[test]
fn a_signers_worker_that_stopped_answering_is_an_alert() {
    let pg = team_db();
    let vic = member(&pg, "vic");
    let now = || chrono::Utc::now().timestamp_millis();
    let kinds = |at: i64| -> Vec<(AlertKind, AlertTarget)> {
        team_alerts(&vic, &AlertSettings::default(), at)
            .unwrap()
            .into_iter()
            .map(|a| (a.kind, a.target))
            .collect()
    };
    // No worker ever ran, nothing waits: nothing to say.
    assert!(kinds(now() + 60 * 60_000).is_empty());
    sql(&pg, "sam", "SELECT paydesk.worker_beat(true, false)").unwrap();
    // Seen just now: running.
    assert!(kinds(now()).is_empty());
    // Review r6 R6-7: the beat's age is the database's; a member's desk whose clock runs
    // an hour ahead raises no alert for a worker seen just now.
    assert!(kinds(now() + 60 * 60_000).is_empty());
    // Not seen for 16 minutes (the default 15), by the database's clock: stopped
    // answering; it opens the sync, which it keeps, when no request waits.
    owner_sql(
        &pg,
        "UPDATE paydesk.worker_beats SET seen_at = seen_at - interval '16 minutes', started_at = started_at - interval '16 minutes'",
    );
    let later = now();
    assert_eq!(kinds(later), [(AlertKind::WorkerSilent, AlertTarget::Sync)]);
    let a = &team_alerts(&vic, &AlertSettings::default(), later).unwrap()[0];
    assert_eq!(a.params["signer"], "sam");
    assert_eq!(a.params["minutes"], "16");
    // Stopped on purpose: no alert of its own.
    sql(&pg, "sam", "SELECT paydesk.worker_beat(false, true)").unwrap();
    assert!(kinds(later).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_signers_worker_beats_while_it_runs_and_refuses_a_row_beyond_the_balance() {
    let pg = team_db();
    let f = common::Fixture::new("team-beat").await;
    let desk = signer_desk(&f, &pg, "sam");
    let (mark, ann, sam) = (member(&pg, "mark"), member(&pg, "ann"), member(&pg, "sam"));
    // The balance short of the payout: the signer's worker asks it first; the row fails
    // saying so, nothing is sent.
    let mut m = f
        .running
        .sandbox
        .with_state(|s| s.merchants[&common::MER].clone());
    m.opening.insert("MXN".into(), "100.00".parse().unwrap());
    f.running.sandbox.add_merchant(m);
    let mut form = PayoutForm::new(PayoutKind::Clabe, "T-BAL-1", "250", "MXN");
    form.clabe = CLABE.into();
    let r = mark.request_payout(&form).unwrap();
    let stop = AtomicBool::new(false);
    let beats = || {
        sql(
            &pg,
            "vic",
            "SELECT signer || ',' || (stopped_at IS NULL) FROM paydesk.worker_beats",
        )
        .unwrap()
    };
    let run = team::work(&desk, &sam, &stop, Duration::from_millis(200), None, |_| {});
    let watch = async {
        for _ in 0..100 {
            if ann.request(r.id).unwrap().state == RequestState::Done {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert_eq!(beats(), "sam,true");
        stop.store(true, Ordering::Relaxed);
    };
    let (ran, ()) = tokio::join!(run, watch);
    ran.unwrap();
    let row = &ann.rows(r.id).unwrap()[0];
    assert_eq!(row.state, RowState::Failed, "{row:?}");
    assert!(
        row.message
            .as_deref()
            .unwrap()
            .contains("beyond the available balance: 100 MXN"),
        "{row:?}"
    );
    assert_eq!(f.running.sandbox.orders_numbered(common::MER, "T-BAL-1"), 0);
    // Stopped on purpose: said so.
    assert_eq!(beats(), "sam,false");

    // A batch beyond the balance: the balance is asked once before any row goes; the
    // rows it reaches, in order, are paid, the next ones are not sent and say why.
    let batch = mark
        .request_bulk(
            "pay.csv",
            format!(
                "type,amount,currency,account,merOrderNo\nclabe,40,MXN,{CLABE},T-BAL-2\nclabe,50,MXN,{CLABE},T-BAL-3\nclabe,30,MXN,{CLABE},T-BAL-4\n"
            )
            .as_bytes(),
        )
        .unwrap();
    let done = team::execute_next(&desk, &sam).await.unwrap().unwrap();
    assert_eq!(
        (done.accepted, done.failed),
        (2, 1),
        "{:?}",
        ann.rows(batch.id)
    );
    let rows = ann.rows(batch.id).unwrap();
    // 40 + 50 = 90 within 100; 90 + 30 is not.
    assert_eq!(rows[2].state, RowState::Failed);
    let said = rows[2].message.as_deref().unwrap();
    assert!(
        said.contains("beyond the available balance: 100 MXN") && said.contains("90 MXN taken"),
        "{said}"
    );
    assert_eq!(f.running.sandbox.orders_numbered(common::MER, "T-BAL-4"), 0);
    for no in ["T-BAL-2", "T-BAL-3"] {
        assert_eq!(f.running.sandbox.orders_numbered(common::MER, no), 1);
    }
}

#[test]
fn the_journal_takes_a_requests_purpose_for_its_own_operation_only() {
    let pg = team_db();
    let mark = member(&pg, "mark");
    let mut form = PayoutForm::new(PayoutKind::Clabe, "F3-1", "100", "MXN");
    form.clabe = CLABE.into();
    form.purpose = paydesk_core::purpose::Purpose::new("Rent for November", "");
    mark.request_payout(&form).unwrap();
    // Executed by sam's worker (a signer journals a payout only so, 0039).
    common::team::take_row(&pg, "ann", "sam", "F3-1");
    let journal = |op: &str, fp: &str| {
        sql(
            &pg,
            "sam",
            &format!(
                "INSERT INTO paydesk.journal (mer_no, profile, operation, mer_order_no, request, summary,
                     status, attempts, created_at, updated_at, fingerprint, purpose)
                 VALUES ({MER}, 'p', '{op}', 'F3-1', '{{\"currencyCode\":\"MXN\",\"sourceAmount\":\"100\"}}', 's', 'pending', 0, 1, 1, '{fp}', 'signer says')"
            ),
        )
        .unwrap();
        owner_sql(
            &pg,
            &format!(
                "SELECT coalesce(purpose, '-') FROM paydesk.journal WHERE operation = '{op}' AND mer_order_no = 'F3-1'"
            ),
        )
    };
    // The payout request's number journaled as a payin: neither the request's purpose
    // nor the writer's.
    assert_eq!(journal("v2.payment", "fp-a"), "-");
    // As the payout it is: the maker's.
    assert_eq!(journal("v2.payout", "fp-b"), "Rent for November");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_team_desks_confirmation_names_the_payee_or_says_the_account_is_new() {
    use paydesk_core::beneficiaries::Payee;
    let pg = team_db();
    let f = common::Fixture::new("team-note").await;
    // A signer's desk publishes the seal key.
    drop(signer_desk(&f, &pg, "sam"));
    let mark = member(&pg, "mark");
    mark.add_payee(&payee("Rent", CLABE)).unwrap();
    // Mark's own profile: the same team, no merchant key (a desk reads the team's log:
    // mark views too).
    member(&pg, "alice")
        .set_member_roles("mark", &[TeamRole::Maker, TeamRole::Viewer])
        .unwrap();
    let prof = f.home.get(&f.name).unwrap();
    f.home
        .put(Profile {
            name: "mark-desk".into(),
            team: Some(cfg(&pg, "mark")),
            ..prof
        })
        .unwrap();
    f.secrets.set_team_password("mark-desk", PASSWORD).unwrap();
    let desk = Desk::open(&f.home, f.secrets.clone(), "mark-desk", Endpoint::Profile).unwrap();
    assert!(!desk.holds_key());
    // Chosen from the team's book: the payee, its account masked; nothing sent.
    let p = desk
        .money()
        .payout_preview(&to_payee("rent", "100"))
        .unwrap();
    assert_eq!(
        p.payee,
        Some(Payee::Known {
            nickname: "Rent".into(),
            name: "Casa Azul".into()
        })
    );
    assert_eq!(p.account, "002010********7771");
    assert_eq!(p.bank.as_deref(), Some("BANAMEX"));
    // Typed in full, an account no payee of the book has: new.
    let mut typed = PayoutForm::new(PayoutKind::Clabe, "T-NOTE-1", "100", "MXN");
    typed.clabe = CLABE_2.into();
    assert_eq!(
        desk.money().payout_preview(&typed).unwrap().payee,
        Some(Payee::New)
    );
    // Typed in full, masking like a payee's: the desk cannot tell (it does not open
    // the seals), so it claims neither.
    typed.clabe = CLABE.into();
    assert_eq!(desk.money().payout_preview(&typed).unwrap().payee, None);
    // The maker's own limit, said at the confirmation.
    member(&pg, "alice")
        .set_member_limit(&MemberLimit {
            member: "mark".into(),
            currency: "MXN".into(),
            per_payout: Some("50".into()),
            per_day: None,
            day_zone: "UTC".into(),
            set_by: String::new(),
        })
        .unwrap();
    let e = desk
        .money()
        .payout_preview(&to_payee("rent", "100"))
        .unwrap_err();
    assert_eq!(rule_key(&e).as_deref(), Some("memberLimitPerPayout"), "{e}");
    assert_eq!(owner_sql(&pg, "SELECT count(*) FROM paydesk.requests"), "0");
    // A member who makes no requests (the signer) previews a payout without a maker's
    // limit being asked of the database, which keeps it to makers (review r6 R6-12).
    let sam = signer_desk(&f, &pg, "sam");
    let mut own = PayoutForm::new(PayoutKind::Clabe, "T-NOTE-2", "100", "MXN");
    own.clabe = CLABE_2.into();
    let p = sam.money().payout_preview(&own).unwrap();
    assert_eq!(p.amount, "100");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_card_payee_is_paid_from_its_seal_and_its_holder_stays_hidden_from_viewers() {
    let pg = team_db();
    let f = common::Fixture::new("team-card-payee").await;
    let desk = signer_desk(&f, &pg, "sam");
    let (mark, ann, sam) = (member(&pg, "mark"), member(&pg, "ann"), member(&pg, "sam"));
    mark.add_payee(&NewBeneficiary {
        nickname: "ana".into(),
        first_name: "Ana".into(),
        last_name: "Lima".into(),
        account: "4111 1111 1111 1111".into(),
        country: "US".into(),
        ..Default::default()
    })
    .unwrap();
    // The card's names and country from the book; the rest of the holder's address the
    // maker gives, as for any card payout.
    let mut form = PayoutForm::new(PayoutKind::Card, "T-CPAYEE-1", "30", "USD");
    form.beneficiary = "ana".into();
    for (field, value) in [
        (&mut form.email, "ana.lima@example.com"),
        (&mut form.mobile, "5551234567"),
        (&mut form.address_line, "1 Main St"),
        (&mut form.city, "Austin"),
        (&mut form.state, "TX"),
        (&mut form.post_code, "73301"),
    ] {
        *field = value.into();
    }
    let r = mark.request_payout(&form).unwrap();
    let row = &ann.rows(r.id).unwrap()[0];
    assert!(
        row.beneficiary
            .starts_with("card 411111******1111 of Ana Lima, US")
            && row.beneficiary.ends_with(", payee ana"),
        "{}",
        row.beneficiary
    );
    // A viewer reads the card's mask, not its holder (schema 0016's rule holds for a
    // payee's row too).
    let seen = sql(
        &pg,
        "vic",
        &format!(
            "SELECT paydesk.shown_beneficiary({}, 1) || ' | ' || paydesk.shown_summary({})",
            r.id, r.id
        ),
    )
    .unwrap();
    assert!(
        !seen.contains("Lima") && seen.contains("411111******1111"),
        "{seen}"
    );
    let form_text = sql(
        &pg,
        "sam",
        &format!(
            "SELECT form FROM paydesk.request_rows WHERE request_id = {}",
            r.id
        ),
    )
    .unwrap();
    assert!(!form_text.contains("41111111"), "{form_text}");
    if ann.request(r.id).unwrap().state == RequestState::Waiting {
        ann.approve(r.id).unwrap();
    }
    let done = team::execute_next(&desk, &sam).await.unwrap().unwrap();
    assert_eq!((done.accepted, done.failed), (1, 0), "{:?}", ann.rows(r.id));
    assert_eq!(
        f.running.sandbox.orders_numbered(common::MER, "T-CPAYEE-1"),
        1
    );
    let account = f.running.sandbox.with_state(|s| {
        s.orders
            .iter()
            .find(|o| o.mer_order_no == "T-CPAYEE-1")
            .map(|o| o.account.clone())
    });
    assert_eq!(account.as_deref(), Some("411111******1111"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_payee_row_sent_before_is_looked_up_not_refused_when_its_payee_is_gone() {
    let pg = team_db();
    let f = common::Fixture::new("team-payee-again").await;
    let desk = signer_desk(&f, &pg, "sam");
    let (mark, ann, sam) = (member(&pg, "mark"), member(&pg, "ann"), member(&pg, "sam"));
    mark.add_payee(&payee("rent", CLABE)).unwrap();
    let r = mark.request_payout(&to_payee("rent", "75")).unwrap();
    // The gateway takes the payout but its answer is lost: the row stays unknown.
    f.running.sandbox.set_fault(
        "/v2/payout",
        paydesk_sandbox::Fault {
            drop_rate: 1.0,
            ..Default::default()
        },
    );
    let done = team::execute_next(&desk, &sam).await.unwrap().unwrap();
    assert_eq!(done.unknown, 1, "{:?}", ann.rows(r.id));
    let no = ann.rows(r.id).unwrap()[0].mer_order_no.clone();
    assert_eq!(f.running.sandbox.orders_numbered(common::MER, &no), 1);
    f.running.sandbox.clear_faults();
    // The payee is removed meanwhile; the request is taken up again (its wait cut short
    // by the owner): the row was sent, so it is looked up, never refused as "not paid".
    assert!(mark.remove_payee("rent").unwrap());
    owner_sql(
        &pg,
        &format!(
            "UPDATE paydesk.requests SET claimed_at = now() - interval '1 hour' WHERE id = {}",
            r.id
        ),
    );
    desk.journal().reconcile_all(false).await.unwrap();
    let again = team::execute_next(&desk, &sam).await.unwrap().unwrap();
    let row = &ann.rows(r.id).unwrap()[0];
    assert_ne!(row.state, RowState::Failed, "{row:?}");
    assert_eq!(row.state, RowState::Accepted, "{again:?} {row:?}");
    assert_eq!(f.running.sandbox.orders_numbered(common::MER, &no), 1);
}

/// Review r6 R6-8: the confirmation of a payout naming a payee carries a stand-in
/// account (it passes the rules and masks as the payee's, so it is likely a stranger's).
/// The send path of a team desk refuses any form naming a payee on its own rule, before
/// the gateway is asked anything: only the signer's worker pays a payee, by its seal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_team_desk_never_sends_a_payout_naming_a_payee_with_its_stand_in() {
    let pg = team_db();
    let f = common::Fixture::new("team-standin").await;
    let desk = signer_desk(&f, &pg, "sam");
    member(&pg, "mark")
        .add_payee(&payee("Rent", CLABE))
        .unwrap();
    let orders = || f.running.sandbox.with_state(|s| s.orders.len());
    let before = orders();
    let e = desk
        .money()
        .payout(&to_payee("rent", "250"))
        .await
        .unwrap_err();
    assert_eq!(
        rule_key(&e).as_deref(),
        Some("teamPayeeSentOnlyByRequest"),
        "{e}"
    );
    assert_eq!(orders(), before);
}

/// Review r6 R6-7: a running worker beats between the rows of a long request too, so a
/// request longer than the heartbeat's period raises no "worker silent" meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_signers_worker_beats_during_a_long_request() {
    let pg = team_db();
    let f = common::Fixture::new("team-longbeat").await;
    let p = f.home.get(&f.name).unwrap();
    f.home
        .put(Profile {
            sync: paydesk_core::profile::SyncSettings {
                payouts_in_flight: 1,
                ..p.sync.clone()
            },
            ..p
        })
        .unwrap();
    let desk = signer_desk(&f, &pg, "sam");
    let (mark, ann, sam) = (member(&pg, "mark"), member(&pg, "ann"), member(&pg, "sam"));
    // Rows one at a time, each answered after 1 s: longer than one heartbeat period.
    let rows = team::BEAT_EVERY.as_secs() + 3;
    f.running.sandbox.set_fault(
        "/v2/payout",
        paydesk_sandbox::Fault {
            latency_ms: 1_000,
            ..Default::default()
        },
    );
    let mut csv = String::from("type,amount,currency,account,firstName,lastName,country\n");
    for i in 0..rows {
        csv.push_str(&format!("clabe,{}.00,MXN,{CLABE},,,MX\n", 10 + i));
    }
    // Under the team's rule (10,000): approved at once.
    let r = mark.request_bulk("long.csv", csv.as_bytes()).unwrap();
    let stop = AtomicBool::new(false);
    // Milliseconds between the worker's first beat and its latest, read while the
    // request is still executing.
    let span = || {
        sql(
            &pg,
            "vic",
            "SELECT (extract(epoch FROM seen_at - started_at) * 1000)::bigint FROM paydesk.worker_beats",
        )
        .unwrap()
        .parse::<i64>()
        .unwrap_or(0)
    };
    let run = team::work(&desk, &sam, &stop, Duration::from_millis(200), None, |_| {});
    let watch = async {
        let mut beat_while_executing = 0;
        for _ in 0..400 {
            let state = ann.request(r.id).unwrap().state;
            if state == RequestState::Done {
                break;
            }
            if state == RequestState::Executing {
                beat_while_executing = beat_while_executing.max(span());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        stop.store(true, Ordering::Relaxed);
        beat_while_executing
    };
    let (ran, beat_while_executing) = tokio::join!(run, watch);
    ran.unwrap();
    assert_eq!(ann.request(r.id).unwrap().state, RequestState::Done);
    assert!(
        beat_while_executing >= team::BEAT_EVERY.as_millis() as i64,
        "no beat during the request (latest {beat_while_executing} ms after the first)"
    );
}
