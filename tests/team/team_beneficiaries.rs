//! Issue 35, the team's book of payees (schema 0024), held by the database against each
//! role with plain SQL (psql, the member's own password), as a hostile member would try:
//! nobody writes the table but through its functions, no full account can be put in it
//! in clear, and with the admin's setting on, a payee is approved only by a member other
//! than the one who added it.

#![allow(clippy::unwrap_used)]

mod common;

use paydesk_core::beneficiaries::{NewBeneficiary, TeamPayeeRow};
use paydesk_core::{CoreError, Desk, Endpoint, Profile};
use paydesk_team::TeamRole;
use paydesk_testpg::{Options, TestPg};
use sha2::Digest as _;

use common::team::{CLABE, DB, PASSWORD, cfg, member, refused, sql};

const MER: i64 = common::MER as i64;

/// Admin alice (added by the owner), maker mark, approver ann, viewer vic, signer sam.
fn team_db() -> TestPg {
    common::team::team_db_of(
        Options::default(),
        &[
            ("mark", TeamRole::Maker),
            ("ann", TeamRole::Approver),
            ("vic", TeamRole::Viewer),
            ("sam", TeamRole::Signer),
        ],
        "10000",
    )
}

/// The shape of a value sealed to the signers (a 2048-bit RSA block, base64): the
/// database cannot open it, and holds that nothing shorter or in clear goes there.
fn sealed() -> String {
    format!("{}==", "Q".repeat(342))
}

fn add_call(nickname: &str, masked: &str, sealed: &str) -> String {
    format!(
        "SELECT paydesk.add_beneficiary({MER}, '{nickname}', 'clabe', 'Casa', '', '{masked}', '{sealed}', 'BANAMEX', 'MX')"
    )
}

/// Approves the payee of `nickname` as the book shows it now (its id and seal's hash).
fn approve_call(nickname: &str) -> String {
    format!(
        "SELECT paydesk.approve_beneficiary({MER}, id, account_sealed_sha256)
           FROM paydesk.beneficiaries_shown WHERE nickname_key = '{nickname}'"
    )
}

/// The row of `nickname` as `t`'s book shows it (what an approver is shown).
fn row_of(t: &paydesk_team::Team, nickname: &str) -> TeamPayeeRow {
    t.payees()
        .unwrap()
        .into_iter()
        .find(|p| p.payee.nickname.eq_ignore_ascii_case(nickname))
        .and_then(|p| p.payee.team_row)
        .unwrap()
}

#[test]
fn the_book_is_written_only_through_its_functions_never_in_clear_and_four_eyes_when_asked() {
    let pg = team_db();
    let masked = "002010********7771";

    // Nobody writes the table directly, whatever their role.
    for user in ["mark", "ann", "vic", "sam", "alice"] {
        refused(
            sql(
                &pg,
                user,
                &format!(
                    "INSERT INTO paydesk.beneficiaries (mer_no, nickname, nickname_key, kind, first_name, last_name, account_masked, account_sealed, country, needs_approval, added_by, approved_by)
                     VALUES ({MER}, 'x', 'x', 'clabe', 'A', '', '{masked}', '{}', 'MX', false, '{user}', '{user}')",
                    sealed()
                ),
            ),
            &format!("{user} inserts a payee"),
            "permission denied",
        );
        refused(
            sql(&pg, user, "TRUNCATE paydesk.beneficiaries"),
            &format!("{user} truncates the book"),
            "permission denied",
        );
        refused(
            sql(
                &pg,
                user,
                "BEGIN; LOCK TABLE paydesk.beneficiaries IN ACCESS EXCLUSIVE MODE; COMMIT",
            ),
            &format!("{user} locks the book"),
            "permission denied",
        );
    }
    // A viewer or an approver adds none (not granted the function: review sql-r6 F12).
    for user in ["vic", "ann"] {
        refused(
            sql(&pg, user, &add_call("x", masked, &sealed())),
            &format!("{user} adds a payee"),
            "permission denied for function add_beneficiary",
        );
    }
    // No full account in clear: not as the masked form, not as the sealed one.
    refused(
        sql(&pg, "mark", &add_call("clear", CLABE, &sealed())),
        "a full CLABE as the masked account",
        "check constraint",
    );
    refused(
        sql(&pg, "mark", &add_call("clear", masked, CLABE)),
        "a full CLABE as the sealed account",
        "check constraint",
    );
    refused(
        sql(
            &pg,
            "mark",
            &add_call("clear", masked, &format!("{CLABE}{}", "0".repeat(340))),
        ),
        "a full CLABE padded to a length no RSA block has",
        "check constraint",
    );
    let found = sql(
        &pg,
        "sam",
        &format!("SELECT count(*) FROM paydesk.beneficiaries t WHERE t::text LIKE '%{CLABE}%'"),
    )
    .unwrap();
    assert_eq!(found, "0");

    // The setting off: a maker's payee is approved at once.
    sql(&pg, "mark", &add_call("rent", masked, &sealed())).unwrap();
    assert_eq!(
        sql(
            &pg,
            "vic",
            "SELECT nickname || ',' || account_masked || ',' || coalesce(approved_by, '-') FROM paydesk.beneficiaries"
        )
        .unwrap(),
        format!("rent,{masked},mark")
    );
    refused(
        sql(&pg, "mark", &add_call("RENT", masked, &sealed())),
        "the same nickname in another case",
        "already has a payee",
    );

    // Only an admin turns the approval on.
    for user in ["mark", "ann", "sam"] {
        refused(
            sql(&pg, user, "UPDATE paydesk.team SET payee_approval = true"),
            &format!("{user} changes the payee setting"),
            "permission denied",
        );
    }
    sql(
        &pg,
        "alice",
        "UPDATE paydesk.team SET payee_approval = true",
    )
    .unwrap();

    // Now a payee waits for another member's approval.
    sql(&pg, "mark", &add_call("water", masked, &sealed())).unwrap();
    let state = |who: &str| {
        sql(
            &pg,
            who,
            "SELECT coalesce(approved_by, 'waiting') FROM paydesk.beneficiaries WHERE nickname = 'water'",
        )
        .unwrap()
    };
    assert_eq!(state("vic"), "waiting");
    // Not around the rule: no column update, no self-approval, no approval by a viewer.
    for user in ["mark", "ann", "alice"] {
        refused(
            sql(
                &pg,
                user,
                "UPDATE paydesk.beneficiaries SET approved_by = 'ann', approved_at = now() WHERE nickname = 'water'",
            ),
            &format!("{user} approves by UPDATE"),
            "permission denied",
        );
    }
    refused(
        sql(&pg, "mark", &approve_call("water")),
        "the adder (a maker) approves",
        "permission denied",
    );
    refused(
        sql(&pg, "vic", &approve_call("water")),
        "a viewer approves",
        "permission denied",
    );
    // An admin who adds a payee cannot approve it either.
    sql(&pg, "alice", &add_call("gas", masked, &sealed())).unwrap();
    refused(
        sql(&pg, "alice", &approve_call("gas")),
        "an admin approves their own payee",
        "four eyes",
    );
    sql(&pg, "ann", &approve_call("water")).unwrap();
    assert_eq!(state("vic"), "ann");
    let water_id = sql(
        &pg,
        "vic",
        "SELECT id FROM paydesk.beneficiaries_shown WHERE nickname_key = 'water'",
    )
    .unwrap();
    refused(
        sql(&pg, "sam", &approve_call("water")),
        "approved twice",
        "already approved",
    );

    // Removed through the function only, by a maker or an admin.
    for user in ["mark", "alice"] {
        refused(
            sql(
                &pg,
                user,
                "DELETE FROM paydesk.beneficiaries WHERE nickname = 'rent'",
            ),
            &format!("{user} deletes a payee"),
            "permission denied",
        );
    }
    refused(
        sql(
            &pg,
            "vic",
            &format!("SELECT paydesk.remove_beneficiary({MER}, 'rent')"),
        ),
        "a viewer removes a payee",
        "permission denied for function remove_beneficiary",
    );
    assert_eq!(
        sql(
            &pg,
            "mark",
            &format!("SELECT paydesk.remove_beneficiary({MER}, 'rent')")
        )
        .unwrap(),
        "t"
    );

    // Each step is in the team's audit log, under the member who took it.
    let audit = pg
        .psql_owner(
            DB,
            "SELECT string_agg(operator || ':' || operation || ':' || identifiers, '|' ORDER BY id) FROM paydesk.audit_log WHERE operation LIKE 'team.payee.%'",
        )
        .unwrap();
    for line in [
        format!("mark:team.payee.add:nickname=rent account={masked}"),
        format!("mark:team.payee.add:nickname=water account={masked}"),
        format!(
            "ann:team.payee.approve:id={water_id} nickname=water account={masked} added_by=mark"
        ),
        format!("mark:team.payee.remove:nickname=rent account={masked}"),
    ] {
        assert!(audit.contains(&line), "{line} not in {audit}");
    }
    assert!(!audit.contains(CLABE));
}

/// A signer's desk (it publishes the key payees are sealed to).
/// Review sql-r6 F1: an approval names the row the approver was shown (its id and the
/// hash of its sealed account). A maker who removes the payee and adds the nickname
/// again with their own account while the approver looks gets a row that approval does
/// not reach; the nickname's approval approves nothing, and is no member's to call.
#[test]
fn an_approval_names_the_row_shown_so_a_payee_swapped_meanwhile_is_not_approved() {
    let pg = team_db();
    sql(
        &pg,
        "alice",
        "UPDATE paydesk.team SET payee_approval = true",
    )
    .unwrap();
    let victims = "002010********7771";
    let makers = "646180********4321";
    let makers_seal = format!("{}==", "R".repeat(342));
    sql(&pg, "mark", &add_call("Acme SA", victims, &sealed())).unwrap();
    // What the approver is shown: the row's id and its seal's hash (every member reads
    // them from the view).
    let shown = || {
        let out = sql(
            &pg,
            "ann",
            "SELECT id || ' ' || account_sealed_sha256 FROM paydesk.beneficiaries_shown WHERE nickname_key = 'acme sa'",
        )
        .unwrap();
        let (id, hash) = out.split_once(' ').unwrap();
        (id.parse::<i64>().unwrap(), hash.to_string())
    };
    let (seen_id, seen_hash) = shown();
    // The hash is the seal's, computed here apart from the database.
    assert_eq!(
        seen_hash,
        hex::encode(sha2::Sha256::digest(sealed().as_bytes()))
    );
    let approve = |who: &str, id: i64, hash: &str| {
        sql(
            &pg,
            who,
            &format!("SELECT paydesk.approve_beneficiary({MER}, {id}, '{hash}')"),
        )
    };

    // Meanwhile the maker swaps the payee: same nickname, their own account.
    sql(
        &pg,
        "mark",
        &format!("SELECT paydesk.remove_beneficiary({MER}, 'Acme SA')"),
    )
    .unwrap();
    sql(&pg, "mark", &add_call("Acme SA", makers, &makers_seal)).unwrap();
    let (new_id, new_hash) = shown();
    assert_ne!(new_id, seen_id);

    // The approver approves what they saw: refused, the new row stays unapproved.
    refused(
        approve("ann", seen_id, &seen_hash),
        "approving the row seen, swapped since",
        "no longer in the book",
    );
    refused(
        approve("ann", new_id, &seen_hash),
        "the new row with the seal seen",
        "another account than the one you were shown",
    );
    // Not by nickname, whoever calls it (its grant is gone; its body refuses too).
    for user in ["mark", "ann", "vic", "sam", "alice"] {
        refused(
            sql(
                &pg,
                user,
                &format!("SELECT paydesk.approve_beneficiary({MER}, 'Acme SA'::text)"),
            ),
            &format!("{user} approves by nickname"),
            "permission denied",
        );
    }
    // Arguments checked: no hash, a hash not of 64 hex digits.
    for bad in [
        "NULL",
        "''",
        "'ABC'",
        &format!("'{}'", new_hash.to_uppercase()),
    ] {
        refused(
            sql(
                &pg,
                "ann",
                &format!("SELECT paydesk.approve_beneficiary({MER}, {new_id}, {bad})"),
            ),
            &format!("hash {bad}"),
            "64 hex digits",
        );
    }
    // Granted to approvers, signers and admins only.
    for user in ["mark", "vic"] {
        refused(
            approve(user, new_id, &new_hash),
            &format!("{user} calls the approval"),
            "permission denied",
        );
    }
    let state = sql(
        &pg,
        "vic",
        "SELECT coalesce(approved_by, 'waiting') FROM paydesk.beneficiaries_shown WHERE nickname_key = 'acme sa'",
    )
    .unwrap();
    assert_eq!(state, "waiting");

    // The row the approver is shown now: approved, and the log names its id.
    approve("ann", new_id, &new_hash).unwrap();
    let state = sql(
        &pg,
        "vic",
        "SELECT coalesce(approved_by, 'waiting') FROM paydesk.beneficiaries_shown WHERE nickname_key = 'acme sa'",
    )
    .unwrap();
    assert_eq!(state, "ann");
    let logged = sql(
        &pg,
        "alice",
        "SELECT count(*) FROM paydesk.audit_log WHERE operation = 'team.payee.approve' AND identifiers LIKE 'id=' || (SELECT id FROM paydesk.beneficiaries_shown WHERE nickname_key = 'acme sa') || ' %'",
    );
    assert_eq!(logged.as_deref(), Ok("1"), "{logged:?}");
}

/// Review sql-r6 F3: a team upgrade waits a bounded time for each lock it needs. A
/// member's open read (a viewer's transaction on the book) no longer holds `team init`,
/// and every session queued behind it, for ever: it fails within its bound, naming who
/// holds the lock, and applies once they are gone.
#[test]
fn a_team_upgrade_waits_a_bounded_time_for_a_members_open_read_and_names_it() {
    use paydesk_store_pg::{PgLink, init_team};
    use std::time::{Duration, Instant};
    let pg = team_db();
    // The database as the release before schema 0032 left it (0032 and the files after
    // it undone: 0033 adds an index, 0034 a trigger, 0035 a trigger and a function, 0036
    // a trigger and two columns, 0037 restates 0035's function, 0038 two columns and
    // three functions and replaces 0035's void, 0039 a trigger and two functions and
    // restates 0022's lock, 0041 a trigger, its function and two columns; its view and
    // function are replaced as they are).
    let later: usize = pg
        .psql_owner(
            DB,
            "SELECT count(*) FROM paydesk.schema_migrations WHERE file >= 32",
        )
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    pg.psql_owner(
        DB,
        "DROP TRIGGER journal_w_sent_claim ON paydesk.journal;
         DROP FUNCTION paydesk.journal_w_sent_claim();
         ALTER TABLE paydesk.journal DROP COLUMN sent_claim, DROP COLUMN refused_on_send;
         DROP FUNCTION paydesk.approve_beneficiary(bigint, bigint, text);
         ALTER TABLE paydesk.beneficiaries DROP CONSTRAINT beneficiaries_printable_r6;
         DROP INDEX paydesk.request_rows_added;
         DROP TRIGGER journal_sends_kept ON paydesk.journal;
         DROP FUNCTION paydesk.journal_sends_kept();
         DROP TRIGGER journal_written ON paydesk.journal;
         DROP FUNCTION paydesk.journal_written();
         DROP FUNCTION paydesk.journal_void(bigint, text, boolean);
         DROP FUNCTION paydesk.journal_reset_sent_at(bigint, text);
         DROP FUNCTION paydesk.journal_claim_live(text, bigint);
         DROP TRIGGER journal_x_payout_approved ON paydesk.journal;
         DROP FUNCTION paydesk.journal_x_payout_approved();
         DROP FUNCTION paydesk.journal_payout_approved(text, text);
         DROP FUNCTION paydesk.journal_owner_session();
         ALTER TABLE paydesk.journal DROP COLUMN voided;
         ALTER TABLE paydesk.team DROP COLUMN not_found_grace_ms;
         DROP TRIGGER team_payee_approval_on ON paydesk.team;
         DROP FUNCTION paydesk.team_payee_approval_on();
         ALTER TABLE paydesk.beneficiaries DROP COLUMN added_xact;
         ALTER TABLE paydesk.team DROP COLUMN payee_approval_on;
         DELETE FROM paydesk.schema_migrations WHERE file >= 32",
    )
    .unwrap();
    let owner = PgLink::connect(&cfg(&pg, pg.owner()), pg.owner_password()).unwrap();
    std::thread::scope(|s| {
        let held = s.spawn(|| {
            sql(
                &pg,
                "vic",
                "BEGIN; SELECT count(*) FROM paydesk.beneficiaries_shown; SELECT pg_sleep(30); COMMIT",
            )
        });
        let holds = || {
            pg.psql_owner(
                DB,
                "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)
                  WHERE a.usename = 'vic' AND l.granted AND l.relation = 'paydesk.beneficiaries'::regclass",
            )
            .unwrap()
            .trim()
                == "1"
        };
        let waited = Instant::now();
        while !holds() {
            assert!(waited.elapsed() < Duration::from_secs(10), "vic never read");
            std::thread::sleep(Duration::from_millis(50));
        }
        let started = Instant::now();
        let e = init_team(&owner, MER).unwrap_err().to_string();
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{:?}",
            started.elapsed()
        );
        for needle in ["0032", "vic", "beneficiaries", "paydesk team init"] {
            assert!(e.contains(needle), "{needle} not in {e}");
        }
        pg.psql_super(
            DB,
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'vic'",
        )
        .unwrap();
        let _ = held.join();
    });
    // Nothing of 0032 was applied; once the reader is gone the upgrade applies it (and
    // the files after it).
    assert_eq!(init_team(&owner, MER).unwrap(), later);
    assert_eq!(
        sql(
            &pg,
            "vic",
            "SELECT count(*) FROM paydesk.schema_migrations WHERE file = 32"
        )
        .unwrap(),
        "1"
    );
}

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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_makers_payee_is_sealed_to_the_signers_and_waits_for_another_members_approval() {
    let pg = team_db();
    let f = common::Fixture::new("team-book").await;
    let signer = signer_desk(&f, &pg, "sam");
    let (mark, ann, alice, vic) = (
        member(&pg, "mark"),
        member(&pg, "ann"),
        member(&pg, "alice"),
        member(&pg, "vic"),
    );
    let rent = NewBeneficiary {
        nickname: "Rent".into(),
        first_name: "Casa Azul".into(),
        account: CLABE.into(),
        ..Default::default()
    };
    // Only an admin turns the approval on.
    assert!(matches!(
        mark.set_payee_approval(true),
        Err(CoreError::Validation { .. })
    ));
    assert_eq!(signer.records().payee_approval().unwrap(), Some(false));
    alice.set_payee_approval(true).unwrap();
    assert_eq!(signer.records().payee_approval().unwrap(), Some(true));
    // A signer's desk does not change it (an admin's setting).
    assert!(signer.records().set_payee_approval(false).is_err());
    let added = mark.add_payee(&rent).unwrap();
    assert_eq!(added.payee.account, "002010********7771");
    assert_eq!(added.payee.bank.as_deref(), Some("BANAMEX"));
    assert_eq!(added.added_by, "mark");
    assert_eq!(added.approved_by, None);
    // The database holds it sealed: no CLABE in any column, for anyone who reads it (a
    // viewer reads the book through `beneficiaries_shown`: schema 0028).
    for (user, table) in [
        ("sam", "paydesk.beneficiaries"),
        ("ann", "paydesk.beneficiaries_shown"),
        ("vic", "paydesk.beneficiaries_shown"),
    ] {
        let row = sql(
            &pg,
            user,
            &format!("SELECT t::text FROM {table} t WHERE nickname = 'Rent'"),
        )
        .unwrap();
        assert!(!row.is_empty(), "{user}");
        assert!(!row.contains(CLABE), "{row}");
        assert!(!row.contains(&CLABE[6..14]), "{row}");
    }
    // A team desk's book is the team's: awaiting the approval there too.
    let on_desk = signer.records().beneficiaries().unwrap();
    assert_eq!(on_desk.len(), 1);
    assert!(on_desk[0].awaiting_approval);
    assert_eq!(on_desk[0].account, "002010********7771");
    // Sealed to the signers: a signer reads the seal (schema 0029), a maker does not.
    assert!(mark.payee_sealed_account("rent").is_err());
    let sealed = member(&pg, "sam")
        .payee_sealed_account("rent")
        .unwrap()
        .unwrap();
    assert!(sealed.len() >= 340, "{sealed}");
    // Four eyes: not the maker, not a viewer; an approver.
    assert!(mark.approve_payee(&row_of(&vic, "rent")).is_err());
    assert!(vic.approve_payee(&row_of(&vic, "rent")).is_err());
    assert!(
        vic.add_payee(&NewBeneficiary {
            nickname: "x".into(),
            ..rent.clone()
        })
        .is_err()
    );
    // Review sql-r6 F1 on the desk: the row ann's book showed, swapped since (removed and
    // added again: a new row, a new seal), is not approved; the row shown now is.
    let shown = row_of(&ann, "rent");
    assert!(mark.remove_payee("rent").unwrap());
    mark.add_payee(&rent).unwrap();
    let e = ann.approve_payee(&shown).unwrap_err().to_string();
    assert!(e.contains("no longer in the book"), "{e}");
    assert!(vic.payees().unwrap()[0].approved_by.is_none());
    assert_ne!(row_of(&ann, "rent"), shown);
    ann.approve_payee(&row_of(&ann, "rent")).unwrap();
    let listed = vic.payees().unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].approved_by.as_deref(), Some("ann"));
    assert!(matches!(
        mark.add_payee(&NewBeneficiary {
            nickname: "rent".into(),
            ..rent.clone()
        }),
        Err(CoreError::Validation { .. })
    ));
    assert!(!signer.records().beneficiaries().unwrap()[0].awaiting_approval);
    // A signer's desk does not remove a payee (a maker or an admin does).
    assert!(signer.records().remove_beneficiary("rent").is_err());
    assert!(mark.remove_payee("rent").unwrap());
    assert!(!mark.remove_payee("rent").unwrap());
}
