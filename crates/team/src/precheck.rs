//! What a signer's worker checks before it sends a request's rows: the balance. (A
//! maker's own payout limits, checked before a request is made, are the engine's:
//! `paydesk_core::team_member::TeamMember::check_my_limit`, as the desk's confirmation
//! asks them too.)

use rust_decimal::Decimal;

/// The rows of a payout request its signer's worker does not send because the balance,
/// asked once before any row goes, does not reach them (rows in order, by their amounts;
/// each row sent still has its own check with the fees the desk knows). A row already
/// in the journal (a request taken up again) is never held: it was sent, and is looked
/// up. Nothing held when the balance cannot be read (each row's own check still asks).
pub(super) async fn rows_beyond_balance(
    desk: &paydesk_core::desk::Desk,
    request: &paydesk_core::store::team::Request,
    rows: &[paydesk_core::store::team::RequestRow],
) -> std::collections::HashMap<i32, String> {
    let mut held = std::collections::HashMap::new();
    if request.operation != "payout" {
        return held;
    }
    let fresh: Vec<_> = rows
        .iter()
        .filter(|r| {
            desk.journal()
                .entry_by_number(&r.mer_order_no)
                .is_ok_and(|e| e.is_none())
        })
        .collect();
    if fresh.is_empty() {
        return held;
    }
    let balance = match desk.money().balance(&request.currency).await {
        Ok(s) => match s.balance.parse::<Decimal>() {
            Ok(b) => b,
            Err(_) => return held,
        },
        Err(e) => {
            tracing::warn!(error = %e, "the balance was not read before the request's rows");
            return held;
        }
    };
    let mut spent = Decimal::ZERO;
    for r in fresh {
        let Ok(amount) = r.amount.trim().parse::<Decimal>() else {
            continue;
        };
        if spent + amount > balance {
            held.insert(
                r.row_no,
                format!(
                    "beyond the available balance: {} {cur} when the worker took up this request, {} {cur} taken by the rows before it, this row {} {cur}; nothing was sent",
                    balance.normalize(),
                    spent.normalize(),
                    amount.normalize(),
                    cur = request.currency
                ),
            );
        } else {
            spent += amount;
        }
    }
    held
}
