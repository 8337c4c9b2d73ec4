//! `paydesk report failures`: why money did not come in (issue 36), as the Reports
//! screen shows it: the success rate by method, currency and day, and the failed and
//! closed orders by the gateway's reason and message, beside the period before.

use paydesk_reports::failures::{Breakdown, CurrencyAmount, FailureReport, RateLine, Tally};

use super::*;

/// The days asked for, in `zone`: --from to --to, by default the 7 days ending today.
fn period(
    from: Option<&str>,
    to: Option<&str>,
    zone: paydesk_reports::statement::Zone,
) -> Result<paydesk_reports::statement::Period, Failure> {
    // Read as the Reports screen reads them (`paydesk_api::reports::period`).
    paydesk_api::reports::period(from, to, zone, chrono::Utc::now().timestamp_millis())
        .map_err(as_flags)
}

pub(super) fn run(
    from: Option<String>,
    to: Option<String>,
    tz: Option<String>,
    offline: bool,
    g: &Global,
) -> Result<(), Failure> {
    // The arguments are checked before a desk is opened.
    let zone = zone_or_profile(tz.as_deref(), g)?;
    let period = period(from.as_deref(), to.as_deref(), zone)?;
    runtime()?.block_on(async {
        let desk = open(g).await?;
        if !offline {
            // Both periods at once: the one before ends where this one starts.
            let both = paydesk_reports::statement::Period::new(period.previous().from, period.to)?;
            let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            desk.orders().refresh_period(both, cancel, |_| {}).await?;
        }
        let r = desk.failures(period, zone)?;
        print(g, &r, || text(&r, &zone, offline))
    })
}

/// "n/a" where no order ended.
fn rate(r: &Option<String>) -> String {
    r.as_ref().map_or_else(|| "n/a".into(), |r| format!("{r}%"))
}

/// Amounts per currency: "USD 120.00 (3), MXN 4500.00 (2)"; "-" for none.
fn amounts(a: &[CurrencyAmount]) -> String {
    if a.is_empty() {
        return "-".into();
    }
    a.iter()
        .map(|c| format!("{} {} ({})", c.currency, c.amount, c.count))
        .collect::<Vec<_>>()
        .join(", ")
}

fn count(t: &Tally) -> i64 {
    t.count
}

fn line(name: &str, l: &RateLine, before: Option<&RateLine>) -> String {
    format!(
        "  {:<24} {:<8} {:<8} {:>9} {:>7} {:>7} {:>8} {:>8}  {}",
        name,
        rate(&l.rate),
        before.map_or_else(|| "n/a".into(), |b| rate(&b.rate)),
        count(&l.succeeded),
        count(&l.failed),
        count(&l.closed),
        count(&l.pending),
        count(&l.unknown),
        amounts(&l.not_paid.amounts)
    )
}

fn key(k: &Option<String>) -> String {
    k.clone().unwrap_or_else(|| "not given".into())
}

fn table(out: &mut Vec<String>, title: &str, lines: &[RateLine], before: Option<&[RateLine]>) {
    out.push(String::new());
    out.push(title.to_string());
    out.push(format!(
        "  {:<24} {:<8} {:<8} {:>9} {:>7} {:>7} {:>8} {:>8}  not paid (amounts)",
        "", "rate", "before", "succeeded", "failed", "closed", "pending", "unknown"
    ));
    if lines.is_empty() {
        out.push("  no orders".into());
    }
    for l in lines {
        let b = before.and_then(|b| b.iter().find(|p| p.key == l.key));
        out.push(line(&key(&l.key), l, b));
    }
}

pub(super) fn text(
    r: &FailureReport,
    zone: &paydesk_reports::statement::Zone,
    offline: bool,
) -> String {
    let (c, p): (&Breakdown, &Breakdown) = (&r.current, &r.previous);
    let mut out = vec![
        format!(
            "Why money did not come in: {} to {} ({}), against {} to {}",
            c.first_day, c.last_day, r.time_zone, p.first_day, p.last_day
        ),
        r.definition.clone(),
    ];
    match (offline, r.as_of) {
        (false, _) => out.push("figures read again from the gateway now".into()),
        (true, Some(t)) => out.push(format!(
            "figures as of the sync at {} (offline: not read again)",
            zone.format(t, "%Y-%m-%d %H:%M:%S")
        )),
        (true, None) => out.push("figures from a cache never synced (offline)".into()),
    }
    out.push(String::new());
    out.push(format!(
        "All orders: success rate {} (before {}); succeeded {}, failed {}, closed {}, pending {}, unknown state {} (before: {}, {}, {}, {}, {})",
        rate(&c.all.rate),
        rate(&p.all.rate),
        c.all.succeeded.count,
        c.all.failed.count,
        c.all.closed.count,
        c.all.pending.count,
        c.all.unknown.count,
        p.all.succeeded.count,
        p.all.failed.count,
        p.all.closed.count,
        p.all.pending.count,
        p.all.unknown.count,
    ));
    out.push(format!(
        "Not paid (failed or closed): {}; before: {}",
        amounts(&c.all.not_paid.amounts),
        amounts(&p.all.not_paid.amounts)
    ));
    table(&mut out, "By kind", &c.by_kind, Some(&p.by_kind));
    table(&mut out, "By method", &c.by_method, Some(&p.by_method));
    table(
        &mut out,
        "By currency",
        &c.by_currency,
        Some(&p.by_currency),
    );
    table(&mut out, "By day", &c.by_day, None);
    out.push(String::new());
    out.push(
        "Failed and closed orders by reason and message  orders  before  failed  closed  amounts"
            .into(),
    );
    if c.reasons.is_empty() {
        out.push("  none".into());
    }
    for l in &c.reasons {
        let before = p
            .reasons
            .iter()
            .find(|b| b.reason == l.reason && b.message == l.message)
            .map_or(0, |b| b.orders.count);
        out.push(format!(
            "  reason: {} | message: {}  {:>6} {:>7} {:>7} {:>7}  {}",
            key(&l.reason),
            key(&l.message),
            l.orders.count,
            before,
            l.failed,
            l.closed,
            amounts(&l.orders.amounts)
        ));
    }
    for b in &p.reasons {
        if !c
            .reasons
            .iter()
            .any(|l| l.reason == b.reason && l.message == b.message)
        {
            out.push(format!(
                "  reason: {} | message: {}  {:>6} {:>7}  (only before)",
                key(&b.reason),
                key(&b.message),
                0,
                b.orders.count
            ));
        }
    }
    out.join("\n")
}
