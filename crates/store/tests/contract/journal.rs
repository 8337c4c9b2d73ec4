//! The journal's contract ([`JournalStore`]): the transitions an outcome may make, which
//! entries count as live (the duplicate guard) and which as unsettled (what a lookup
//! settles), claims, and the list's filters.

use std::collections::BTreeSet;

use paydesk_store::Now;
use paydesk_store::journal::{Begin, Claim, Entry, Guard, Intent, Outcome, Status, fingerprint};
use paydesk_store::prelude::JournalStore;
use serde_json::{Value, json};

use super::Facts;

const KEY: &[u8] = b"0123456789abcdef0123456789abcdef";
const DAY: Guard = Guard {
    window_ms: 24 * 3_600_000,
    allow_duplicate: false,
};

fn begin(j: &dyn JournalStore, profile: &str, op: &str, no: &str, body: &Value, g: Guard) -> Begin {
    let fp = fingerprint(KEY, op, body);
    j.begin(
        profile,
        Intent {
            operation: op,
            mer_order_no: no,
            request: body,
            summary: "s",
            fingerprint: &fp,
            purpose: None,
        },
        g,
    )
    .unwrap()
}

fn sent(b: Begin) -> (Entry, Claim) {
    match b {
        Begin::Send(e, c) | Begin::Resend(e, c) => (e, c),
        other => panic!("expected a send: {other:?}"),
    }
}

fn outcome(status: Status) -> Outcome<'static> {
    Outcome {
        status,
        trade_no: None,
        code: None,
        message: Some("m"),
    }
}

/// An entry of its own intent (`body` made unique by `no`) brought to `status` the way
/// the desk brings one there: queued (pending), begun (sending), or begun and finished.
fn entry_in(j: &dyn JournalStore, no: &str, status: Status) -> Entry {
    let body = json!({ "sourceAmount": "1.00", "n": no });
    let e = match status {
        Status::Pending => {
            let fp = fingerprint(KEY, "v2.payout", &body);
            j.queue(
                "p",
                Intent {
                    operation: "v2.payout",
                    mer_order_no: no,
                    request: &body,
                    summary: "s",
                    fingerprint: &fp,
                    purpose: None,
                },
            )
            .unwrap()
        }
        Status::Sending => {
            let (e, c) = sent(begin(j, "p", "v2.payout", no, &body, DAY));
            j.release(e.id, &c).unwrap();
            e
        }
        done => {
            let (e, c) = sent(begin(j, "p", "v2.payout", no, &body, DAY));
            assert!(j.finish(e.id, &c, outcome(done)).unwrap());
            e
        }
    };
    let e = j.get(e.id).unwrap().unwrap();
    assert_eq!(e.status, status, "set up {no}");
    e
}

/// An outcome moves an entry only forward: accepted is final, rejected can only turn
/// out accepted (the order found at the gateway after all), an entry without a final
/// outcome (pending, sending, unknown) takes any. Every pair is tried; the entry is
/// where the rule says afterwards, and `finish` says whether it moved. The table is
/// the model's (`Status::may_finish_as`), which both adapters take their SQL from.
pub fn outcomes_move_entries_only_forward(j: &dyn JournalStore, facts: Facts) {
    use Status::*;
    // Written from the rule, not read from the code: from -> the outcomes it takes.
    let takes = |from: Status| -> &'static [Status] {
        match from {
            Pending | Sending | Unknown => &[Pending, Sending, Accepted, Rejected, Unknown],
            Rejected => &[Accepted],
            Accepted => &[],
        }
    };
    for from in Status::ALL {
        for to in Status::ALL {
            let expected = takes(from).contains(&to);
            assert_eq!(
                from.may_finish_as(to),
                expected,
                "the model's table: {from:?} -> {to:?}"
            );
            let e = entry_in(j, &format!("T-{}-{}", from.as_str(), to.as_str()), from);
            let (_, claim) = j.claim(e.id).unwrap().expect("no claim is live");
            let found = Outcome {
                trade_no: Some("T9"),
                ..outcome(to)
            };
            let moved = j.finish(e.id, &claim, found).unwrap();
            let now = j.get(e.id).unwrap().unwrap();
            assert_eq!(moved, expected, "{}: finish {from:?} -> {to:?}", facts.name);
            assert_eq!(
                now.status,
                if expected { to } else { from },
                "{}: {from:?} -> {to:?}",
                facts.name
            );
            if expected {
                assert_eq!(
                    now.trade_no.as_deref(),
                    Some("T9"),
                    "{}: the outcome's number kept",
                    facts.name
                );
            }
            assert!(
                j.claim(e.id).unwrap().is_some(),
                "{}: finishing gives the claim up, moved or not",
                facts.name
            );
        }
    }
}

/// Unsettled is what was sent and has no outcome (sending left by a crash, unknown):
/// what `unresolved` lists, what a lookup marks "not found yet" and what an operator
/// resolves. A queued entry was never sent; a final one is settled.
pub fn only_unsettled_entries_are_listed_looked_up_and_resolved(
    j: &dyn JournalStore,
    facts: Facts,
) {
    use Status::*;
    let unsettled: BTreeSet<&str> = [Sending, Unknown].iter().map(|s| s.as_str()).collect();
    let mut made = Vec::new();
    for s in Status::ALL {
        made.push((s, entry_in(j, &format!("U-{}", s.as_str()), s)));
    }
    let listed: BTreeSet<i64> = j.unresolved("p").unwrap().iter().map(|e| e.id).collect();
    let expected: BTreeSet<i64> = made
        .iter()
        .filter(|(s, _)| unsettled.contains(s.as_str()))
        .map(|(_, e)| e.id)
        .collect();
    assert_eq!(listed, expected, "{}: unresolved", facts.name);
    assert_eq!(
        Status::UNSETTLED
            .iter()
            .map(|s| s.as_str())
            .collect::<BTreeSet<_>>(),
        unsettled,
        "the model's set"
    );

    // A lookup that did not find it: an unsettled entry becomes unknown, checked again
    // later; any other stays as it was.
    for (s, e) in &made {
        let (_, c) = j.claim(e.id).unwrap().unwrap();
        j.not_found_yet(e.id, &c, 42, "not listed yet").unwrap();
        let now = j.get(e.id).unwrap().unwrap();
        let want = if unsettled.contains(s.as_str()) {
            Unknown
        } else {
            *s
        };
        assert_eq!(now.status, want, "{}: not found yet on {s:?}", facts.name);
        if want == Unknown {
            assert_eq!(now.next_check_at, Some(42), "{}", facts.name);
        }
    }

    // An operator's resolution: only of an entry whose outcome nobody knows.
    for (i, (s, e)) in made.iter().enumerate() {
        let (_, c) = j.claim(e.id).unwrap().unwrap();
        let done = i % 2 == 0;
        let moved = j.resolve(e.id, &c, done, "checked with the bank").unwrap();
        let before = if unsettled.contains(s.as_str()) {
            Unknown
        } else {
            *s
        };
        let can = unsettled.contains(s.as_str());
        assert_eq!(moved, can, "{}: resolve {s:?}", facts.name);
        let now = j.get(e.id).unwrap().unwrap();
        let want = match (can, done) {
            (true, true) => Accepted,
            (true, false) => Pending,
            (false, _) => before,
        };
        assert_eq!(now.status, want, "{}: resolved {s:?}", facts.name);
        if can {
            assert_eq!(now.resolution.as_deref(), Some("checked with the bank"));
        }
    }
    assert!(
        j.unresolved("p").unwrap().is_empty(),
        "{}: all settled",
        facts.name
    );
}

/// The duplicate guard: a new number for an intent already live (queued, being sent,
/// unknown) or accepted within the window is a duplicate and writes nothing; a
/// rejected one, or one accepted before the window, is not. The same number again is
/// that entry (or a mismatch, for another request or another operation).
pub fn a_live_or_recent_intent_is_a_duplicate_and_writes_nothing(
    j: &dyn JournalStore,
    facts: Facts,
) {
    use Status::*;
    for s in Status::ALL {
        let no = format!("D-{}", s.as_str());
        let e = entry_in(j, &no, s);
        let body = json!({ "sourceAmount": "1.00", "n": no });
        let again = format!("{no}-again");
        let live = Status::LIVE.contains(&s);
        assert_eq!(
            live,
            matches!(s, Pending | Sending | Unknown),
            "the model's LIVE: {s:?}"
        );
        match begin(j, "p", "v2.payout", &again, &body, DAY) {
            Begin::Duplicate(d) if live || s == Accepted => assert_eq!(d.id, e.id),
            Begin::Send(n, c) if s == Rejected => {
                assert_eq!(n.mer_order_no, again);
                j.release(n.id, &c).unwrap();
                continue;
            }
            other => panic!("{}: an earlier {s:?} entry: {other:?}", facts.name),
        }
        assert!(
            j.get_by_number("p", &again).unwrap().is_none(),
            "{}: a duplicate writes nothing",
            facts.name
        );
        let fp = fingerprint(KEY, "v2.payout", &body);
        assert_eq!(
            j.same_intent("p", &fp, DAY.window_ms, &[])
                .unwrap()
                .unwrap()
                .id,
            e.id
        );
        assert!(
            j.same_intent("p", &fp, DAY.window_ms, &[no.as_str()])
                .unwrap()
                .is_none()
        );
        assert_eq!(j.same_intents("p", &fp, DAY.window_ms).unwrap().len(), 1);
    }

    // Accepted before the window: no longer a duplicate.
    let body = json!({ "sourceAmount": "1.00", "n": "D-accepted" });
    std::thread::sleep(std::time::Duration::from_millis(300));
    let short = Guard {
        window_ms: 200,
        ..DAY
    };
    assert!(
        matches!(
            begin(j, "p", "v2.payout", "D-accepted-later", &body, short),
            Begin::Send(..)
        ),
        "{}: accepted before the window",
        facts.name
    );

    // Confirmed by the operator: a second one goes.
    let body = json!({ "sourceAmount": "1.00", "n": "D-unknown" });
    let confirmed = Guard {
        allow_duplicate: true,
        ..DAY
    };
    assert!(matches!(
        begin(j, "p", "v2.payout", "D-unknown-2", &body, confirmed),
        Begin::Send(..)
    ));

    // The same number: that entry; with another request or operation: a mismatch.
    let body = json!({ "sourceAmount": "1.00", "n": "D-accepted" });
    match begin(j, "p", "v2.payout", "D-accepted", &body, DAY) {
        Begin::Exists(e) => assert_eq!(e.mer_order_no, "D-accepted"),
        other => panic!("{}: {other:?}", facts.name),
    }
    let other = json!({ "sourceAmount": "99.00", "n": "D-accepted" });
    assert!(matches!(
        begin(j, "p", "v2.payout", "D-accepted", &other, DAY),
        Begin::Mismatch(_)
    ));
    assert!(matches!(
        begin(j, "p", "v1.payment", "D-accepted", &body, DAY),
        Begin::Mismatch(_)
    ));
    assert_eq!(
        j.get_by_key("p", "v2.payout", "D-accepted")
            .unwrap()
            .unwrap()
            .status,
        Accepted
    );
    assert!(
        j.get_by_key("p", "v1.payment", "D-accepted")
            .unwrap()
            .is_none()
    );
}

/// A claim keeps every other claim out until it is released or the outcome recorded.
pub fn a_live_claim_keeps_others_out(j: &dyn JournalStore, facts: Facts) {
    let (e, c) = sent(begin(j, "p", "v2.payout", "C1", &json!({"c": 1}), DAY));
    assert!(
        j.claim(e.id).unwrap().is_none(),
        "{}: being sent",
        facts.name
    );
    j.release(e.id, &c).unwrap();
    let (_, c) = j.claim(e.id).unwrap().expect("released");
    assert!(
        j.claim(e.id).unwrap().is_none(),
        "{}: claimed again",
        facts.name
    );
    j.release(e.id, &Claim("not this claim".into())).unwrap();
    assert!(
        j.claim(e.id).unwrap().is_none(),
        "{}: only its own claim releases it",
        facts.name
    );
    j.finish(e.id, &c, outcome(Status::Unknown)).unwrap();
    assert!(j.claim(e.id).unwrap().is_some(), "{}: finished", facts.name);
}

/// Entries newest first; the statuses and operations asked for are filtered in the
/// query, so the limit counts matching entries.
pub fn a_list_limit_counts_only_matching_entries(j: &dyn JournalStore, facts: Facts) {
    let mut made = Vec::new();
    for (i, op) in ["v2.payout", "v1.payment", "v1.payment", "v1.payment"]
        .iter()
        .enumerate()
    {
        made.push(sent(begin(
            j,
            "p",
            op,
            &format!("N{i}"),
            &json!({ "n": i }),
            DAY,
        )));
    }
    j.finish(made[0].0.id, &made[0].1, outcome(Status::Unknown))
        .unwrap();
    let payouts = j.list("p", &[], &["v2.payout"], 1).unwrap();
    assert_eq!(
        payouts.len(),
        1,
        "{}: the older payout past newer payins",
        facts.name
    );
    assert_eq!(payouts[0].mer_order_no, "N0");
    let unknown = j.list("p", &[Status::Unknown], &[], 1).unwrap();
    assert_eq!(unknown[0].id, made[0].0.id);
    let all: Vec<String> = j
        .list("p", &[], &[], 10)
        .unwrap()
        .into_iter()
        .map(|e| e.mer_order_no)
        .collect();
    assert_eq!(
        all,
        ["N3", "N2", "N1", "N0"],
        "{}: newest first",
        facts.name
    );
    assert_eq!(j.list("p", &[], &[], 2).unwrap().len(), 2);
    assert_eq!(
        j.list("p", &[], &[], -1).unwrap().len(),
        4,
        "{}: no limit",
        facts.name
    );
    assert_eq!(
        j.list("p", &[Status::Sending], &["v1.payment"], 10)
            .unwrap()
            .len(),
        3
    );
    let elsewhere = j.list("another desk", &[], &[], 10).unwrap().len();
    assert_eq!(
        elsewhere,
        if facts.shared_by_profiles { 4 } else { 0 },
        "{}: another profile's journal",
        facts.name
    );
}

/// A payout begun under a per-day limit is summed against the day's other payouts in the
/// transaction that writes it: what would pass the limit is refused and writes nothing; a
/// `pending` entry taken up counts once (as itself); refused entries, other currencies
/// and entries that go nowhere new are not summed or checked (review-money-r5 F1, F3).
pub fn a_day_limit_is_summed_where_the_intent_is_written(j: &dyn JournalStore, f: Facts) {
    use paydesk_store::journal::{DayLimit, OverDay};
    use rust_decimal::Decimal;
    let d = |s: &str| s.parse::<Decimal>().unwrap();
    let payout = |no: &str, amount: &str, currency: &str| json!({ "sourceAmount": amount, "currencyCode": currency, "clabe": no });
    let within = |no: &str, body: &Value| {
        let fp = fingerprint(KEY, "v2.payout", body);
        let amount = d(body["sourceAmount"].as_str().unwrap());
        j.begin_within(
            "p",
            Intent {
                operation: "v2.payout",
                mer_order_no: no,
                request: body,
                summary: "s",
                fingerprint: &fp,
                purpose: None,
            },
            DAY,
            DayLimit {
                operations: &["v2.payout", "v1.payout"],
                currency: "MXN",
                amount,
                per_day: d("100"),
                since_ms: chrono::Utc::now().timestamp_millis() - 3_600_000,
            },
        )
        .unwrap()
    };
    let queue = |no: &str, body: &Value| {
        let fp = fingerprint(KEY, "v2.payout", body);
        j.queue(
            "p",
            Intent {
                operation: "v2.payout",
                mer_order_no: no,
                request: body,
                summary: "s",
                fingerprint: &fp,
                purpose: None,
            },
        )
        .unwrap()
    };
    let name = f.name;
    // 40 accepted, 40 in flight: 80 used.
    let a = payout("A", "40.00", "MXN");
    let (e, c) = sent(within("A", &a).unwrap());
    assert!(j.finish(e.id, &c, outcome(Status::Accepted)).unwrap());
    let (e, c) = sent(within("B", &payout("B", "40", "mxn")).unwrap());
    j.release(e.id, &c).unwrap();
    // Refused ones and other currencies do not count.
    let (e, c) = sent(within("R", &payout("R", "10", "MXN")).unwrap());
    assert!(j.finish(e.id, &c, outcome(Status::Rejected)).unwrap());
    let usd = payout("U", "500", "USD");
    let (e, c) = sent(begin(j, "p", "v2.payout", "U", &usd, DAY));
    assert!(j.finish(e.id, &c, outcome(Status::Accepted)).unwrap());
    // 80 + 30 > 100: refused, nothing written.
    let used = d("40") + d("40");
    assert_eq!(
        within("C", &payout("C", "30", "MXN")).unwrap_err(),
        OverDay { used },
        "{name}"
    );
    assert!(j.get_by_number("p", "C").unwrap().is_none(), "{name}");
    // A queued 20 taken up: counted as itself, 80 + 20 = 100 fits.
    queue("D", &payout("D", "20", "MXN"));
    match within("D", &payout("D", "20", "MXN")) {
        Ok(Begin::Resend(e, _)) => assert_eq!(e.mer_order_no, "D"),
        other => panic!("{name}: {other:?}"),
    }
    // A queued 10 taken up now would make 110: refused, it stays not sent.
    queue("E", &payout("E", "10", "MXN"));
    assert_eq!(
        within("E", &payout("E", "10", "MXN")).unwrap_err(),
        OverDay {
            used: used + d("20")
        },
        "{name}"
    );
    assert_eq!(
        j.get_by_number("p", "E").unwrap().unwrap().status,
        Status::Pending,
        "{name}"
    );
    // An entry that goes nowhere new is not checked: the journal answers with it.
    match within("A", &a) {
        Ok(Begin::Exists(e)) => assert_eq!(e.mer_order_no, "A"),
        other => panic!("{name}: {other:?}"),
    }
}

/// The journal's times are the store's clock's (the desk's: `Desk::set_clock`), not the
/// system's: an entry's creation, sending and outcome times, and the duplicate window
/// measured from its outcome.
pub fn times_follow_the_store_s_clock<'a>(
    journal_at: &dyn Fn(Now) -> Box<dyn JournalStore + 'a>,
    facts: Facts,
) {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicI64, Ordering};
    // 2030-03-17: a time no system clock of a test run reads.
    const T0: i64 = 1_900_000_000_000;
    let t = Arc::new(AtomicI64::new(T0));
    let at = t.clone();
    let now = Now::of(move || at.load(Ordering::Relaxed));
    let minute = Guard {
        window_ms: 60_000,
        allow_duplicate: false,
    };
    let body = json!({ "sourceAmount": "3.00", "n": "clock" });
    let (e, claim) = sent(begin(
        &*journal_at(now.clone()),
        "p",
        "v2.payout",
        "CLK-1",
        &body,
        minute,
    ));
    assert_eq!((e.created_at, e.sent_at), (T0, Some(T0)), "{}", facts.name);
    t.store(T0 + 5_000, Ordering::Relaxed);
    assert!(
        journal_at(now.clone())
            .finish(e.id, &claim, outcome(Status::Accepted))
            .unwrap()
    );
    let done = journal_at(now.clone()).get(e.id).unwrap().unwrap();
    assert_eq!(done.updated_at, T0 + 5_000, "{}", facts.name);
    // Accepted 59 s ago by the clock: the same intent is a duplicate; 61 s: it is not.
    t.store(T0 + 5_000 + 59_000, Ordering::Relaxed);
    match begin(
        &*journal_at(now.clone()),
        "p",
        "v2.payout",
        "CLK-2",
        &body,
        minute,
    ) {
        Begin::Duplicate(d) => assert_eq!(d.id, e.id),
        other => panic!("{}: within the window: {other:?}", facts.name),
    }
    t.store(T0 + 5_000 + 61_000, Ordering::Relaxed);
    let (again, _) = sent(begin(
        &*journal_at(now.clone()),
        "p",
        "v2.payout",
        "CLK-3",
        &body,
        minute,
    ));
    assert_eq!(again.created_at, T0 + 66_000, "{}", facts.name);
}

/// The payouts a new one may repeat (review r6 R6-2): every live entry of the operations
/// asked, however many newer entries there are, and accepted ones only within the window
/// (by the store's clock); rejected ones and other operations never; with `contains`,
/// only those whose kept request holds that text. Newest first, no cap.
pub fn live_or_recent_entries_are_read_whole<'a>(
    journal_at: &dyn Fn(Now) -> Box<dyn JournalStore + 'a>,
    facts: Facts,
) {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicI64, Ordering};
    const T0: i64 = 1_900_000_000_000;
    let t = Arc::new(AtomicI64::new(T0));
    let at = t.clone();
    let now = Now::of(move || at.load(Ordering::Relaxed));
    let j = journal_at(now.clone());
    let j = &*j;
    let unknown = entry_in(j, "LR-unknown", Status::Unknown);
    let pending = entry_in(j, "LR-pending", Status::Pending);
    let old = entry_in(j, "LR-accepted-old", Status::Accepted);
    let _rejected = entry_in(j, "LR-rejected", Status::Rejected);
    t.store(T0 + 120_000, Ordering::Relaxed);
    let recent = entry_in(j, "LR-accepted-new", Status::Accepted);
    let payin = {
        let (e, c) = sent(begin(
            j,
            "p",
            "v1.payment",
            "LR-payin",
            &json!({"n": 1}),
            DAY,
        ));
        j.finish(e.id, &c, outcome(Status::Unknown)).unwrap();
        e
    };
    // More newer entries than any cap a list would take.
    for i in 0..1_050 {
        entry_in(j, &format!("LR-more-{i}"), Status::Accepted);
    }
    let minute = 60_000;
    let got = j.live_or_recent("p", &["v2.payout"], minute, None).unwrap();
    let ids: BTreeSet<i64> = got.iter().map(|e| e.id).collect();
    assert!(
        ids.contains(&unknown.id),
        "{}: an old unknown one",
        facts.name
    );
    assert!(ids.contains(&pending.id), "{}", facts.name);
    assert!(ids.contains(&recent.id), "{}", facts.name);
    assert!(
        !ids.contains(&old.id),
        "{}: accepted before the window",
        facts.name
    );
    assert!(
        !ids.contains(&payin.id),
        "{}: another operation",
        facts.name
    );
    assert_eq!(got.len(), 3 + 1_050, "{}: no cap", facts.name);
    assert!(
        got.windows(2).all(|w| w[0].id > w[1].id),
        "{}: newest first",
        facts.name
    );
    // Only those whose kept request holds the text ("n":"LR-unknown" is one's own).
    let one = j
        .live_or_recent("p", &["v2.payout"], minute, Some("\"LR-unknown\""))
        .unwrap();
    assert_eq!(
        one.iter().map(|e| e.id).collect::<Vec<_>>(),
        [unknown.id],
        "{}",
        facts.name
    );
    let payins = j
        .live_or_recent("p", &["v1.payment", "v2.payout"], minute, Some("\"n\":1"))
        .unwrap();
    assert_eq!(payins.len(), 1, "{}: {payins:?}", facts.name);
}
