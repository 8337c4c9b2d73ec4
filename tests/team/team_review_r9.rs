//! What the ninth hostile review found in the request rows' rules and the journal's
//! approval check (notes: review-r9, R9-5 and R9-8; migration 0040), each hole attacked
//! as the signer who would use it, with plain SQL (psql, their own password), on a team
//! owned by a role that is not a superuser.

#![allow(clippy::unwrap_used)]

mod common;

use paydesk_team::TeamRole;
use paydesk_testpg::{Options, TestPg};

use common::team::{db_ms, executing_row, owner_sql, refused, sql};

const MER: i64 = common::MER as i64;

/// Admin alice, maker mark, approver ann, signers sam and sid; MXN payouts above 10,000
/// need one approval.
fn team_db() -> TestPg {
    common::team::team_db_of(
        Options::default(),
        &[
            ("mark", TeamRole::Maker),
            ("ann", TeamRole::Approver),
            ("sam", TeamRole::Signer),
            ("sid", TeamRole::Signer),
        ],
        "10000",
    )
}

/// A payout entry of `amount` MXN under `no` in `status`, written by the database's
/// owner (whom the journal's rules do not hold): what a worker's desk journaled.
fn entry_by_owner(pg: &TestPg, no: &str, amount: &str, status: &str) {
    let now = db_ms(pg);
    owner_sql(
        pg,
        &format!(
            "INSERT INTO paydesk.journal (mer_no, profile, operation, mer_order_no, request, summary, status, \
             attempts, created_at, updated_at, fingerprint, sent_at) VALUES ({MER}, 'team', 'v2.payout', '{no}', \
             '{{\"sourceAmount\":\"{amount}\",\"currencyCode\":\"MXN\"}}', 's', '{status}', 1, {now}, {now}, \
             'fp-{no}', {now})"
        ),
    );
}

fn set_entry(pg: &TestPg, no: &str, status: &str) {
    owner_sql(
        pg,
        &format!("UPDATE paydesk.journal SET status = '{status}' WHERE mer_order_no = '{no}'"),
    );
}

/// Row `no`'s outcome written by `who` with plain SQL.
fn outcome(pg: &TestPg, who: &str, no: &str, status: &str) -> Result<String, String> {
    sql(
        pg,
        who,
        &format!(
            "UPDATE paydesk.request_rows SET status = '{status}', message = 'by {who}' \
             WHERE mer_order_no = '{no}'"
        ),
    )
}

fn status_of(pg: &TestPg, no: &str) -> String {
    owner_sql(
        pg,
        &format!("SELECT status FROM paydesk.request_rows WHERE mer_order_no = '{no}'"),
    )
}

/// R9-8: a row's outcome is written only by the signer executing its request, only
/// while the row is open, and only as its journal entry says: a second signer flips no
/// paid row to refused (its maker would request it again: money twice), and neither
/// does the executing signer.
#[test]
fn a_rows_outcome_is_the_executing_signers_and_agrees_with_the_journal() {
    let pg = team_db();
    executing_row(&pg, "mark", "ann", "sam", "R9-8-1", "100");
    entry_by_owner(&pg, "R9-8-1", "100", "accepted");
    // Sid, a signer, does not execute it: no outcome of his, open row or not.
    for status in ["rejected", "failed", "accepted", "unknown"] {
        refused(
            outcome(&pg, "sid", "R9-8-1", status),
            &format!("another signer writes {status} on a waiting row"),
            "only by the signer executing its request",
        );
    }
    // Sam, executing it, writes what the journal says: paid.
    refused(
        outcome(&pg, "sam", "R9-8-1", "rejected"),
        "refused while its entry is accepted",
        "not what its journal entry",
    );
    outcome(&pg, "sam", "R9-8-1", "accepted").unwrap();
    assert_eq!(status_of(&pg, "R9-8-1"), "accepted");
    // The review's flip, by the second signer and by the executing one: final.
    refused(
        outcome(&pg, "sid", "R9-8-1", "rejected"),
        "another signer flips a paid row",
        "only by the signer executing its request",
    );
    for status in ["rejected", "failed", "unknown", "waiting"] {
        refused(
            outcome(&pg, "sam", "R9-8-1", status),
            &format!("a paid row made {status}"),
            "is final",
        );
    }
    assert_eq!(status_of(&pg, "R9-8-1"), "accepted");

    // An entry whose money may have left (unknown, then sending): the row is neither
    // refused nor failed nor paid, only unknown; refused once the entry is.
    executing_row(&pg, "mark", "ann", "sam", "R9-8-2", "200");
    entry_by_owner(&pg, "R9-8-2", "200", "unknown");
    for entry in ["unknown", "sending"] {
        set_entry(&pg, "R9-8-2", entry);
        for status in ["rejected", "failed", "accepted"] {
            refused(
                outcome(&pg, "sam", "R9-8-2", status),
                &format!("{status} while its entry is {entry}"),
                "not what its journal entry",
            );
        }
        outcome(&pg, "sam", "R9-8-2", "unknown").unwrap();
    }
    set_entry(&pg, "R9-8-2", "rejected");
    refused(
        outcome(&pg, "sam", "R9-8-2", "accepted"),
        "paid while its entry is refused",
        "not what its journal entry",
    );
    outcome(&pg, "sam", "R9-8-2", "rejected").unwrap();
    assert_eq!(status_of(&pg, "R9-8-2"), "rejected");
    refused(
        outcome(&pg, "sam", "R9-8-2", "unknown"),
        "a refused row taken back",
        "is final",
    );
    // A row with nothing journaled fails (held, over a limit): nothing of it left.
    executing_row(&pg, "mark", "ann", "sam", "R9-8-3", "300");
    outcome(&pg, "sam", "R9-8-3", "failed").unwrap();
    // The owner is not held (a repair).
    owner_sql(
        &pg,
        "UPDATE paydesk.request_rows SET status = 'unknown' WHERE mer_order_no = 'R9-8-3'",
    );
    assert_eq!(status_of(&pg, "R9-8-3"), "unknown");
}

/// R9-5: a payout is journaled (or a queued one taken up for a send) only under a row
/// still open: a row failed with nothing journaled (held, over a limit), whose maker may
/// request it again under a new number, is paid by no claim of its request.
#[test]
fn a_payout_is_journaled_only_under_an_open_row() {
    let pg = team_db();
    let now = db_ms(&pg);
    let plant = |no: &str, status: &str| {
        format!(
            "INSERT INTO paydesk.journal (mer_no, profile, operation, mer_order_no, request, summary, status, \
             attempts, created_at, updated_at, fingerprint, sent_at) VALUES ({MER}, 'x', 'v2.payout', '{no}', \
             '{{\"sourceAmount\":\"100\",\"currencyCode\":\"MXN\"}}', 's', '{status}', 1, {now}, {now}, 'fp-{no}', {now})"
        )
    };
    executing_row(&pg, "mark", "ann", "sam", "R9-5-1", "100");
    outcome(&pg, "sam", "R9-5-1", "failed").unwrap();
    for status in ["pending", "sending"] {
        refused(
            sql(&pg, "sam", &plant("R9-5-1", status)),
            &format!("a {status} payout under a failed row"),
            "not a row of an approved request",
        );
    }
    // An open row (unknown) still journals, and a queued entry is taken up for a send
    // only while its row is open.
    executing_row(&pg, "mark", "ann", "sam", "R9-5-2", "100");
    outcome(&pg, "sam", "R9-5-2", "unknown").unwrap();
    sql(&pg, "sam", &plant("R9-5-2", "pending")).unwrap();
    outcome(&pg, "sam", "R9-5-2", "failed").unwrap();
    refused(
        sql(
            &pg,
            "sam",
            "UPDATE paydesk.journal SET status = 'sending', claimed_by = 'pg:' || pg_backend_pid() || ':psql', \
             claimed_until = (extract(epoch FROM clock_timestamp()) * 1000)::bigint + 60000 \
             WHERE mer_order_no = 'R9-5-2'",
        ),
        "a queued payout of a failed row sent",
        "not a row of an approved request",
    );
    assert_eq!(
        owner_sql(
            &pg,
            "SELECT string_agg(mer_order_no || ' ' || status, ',') FROM paydesk.journal"
        ),
        "R9-5-2 pending"
    );
}
