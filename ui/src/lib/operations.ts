// What each operation the journal and the audit log record is called for people: the
// gateway's wire names (`v2.payout`) and the desk's own (`sync`) stay internal.
import type { TFunction } from "i18next";

/// Every operation the audit log records, in the order the Activity filter offers them.
export const OPERATIONS = [
  "v2.payment",
  "v1.payment",
  "v1.payment.vn_bank",
  "v2.payout",
  "v1.payout",
  "v2.card.topUp",
  "v1.card.withdraw",
  "v1.submit.transferOrder",
  "review.evidence",
  "v2.order.query",
  "v1.order.query",
  "v2.order.queryOrderList",
  "v2.balance.query",
  "sync",
  "reconcile",
  "journal_resolve",
  "duplicate_override",
  "export",
  "sandbox.simulate",
  "audit.new_log",
] as const;

/// An operation's name for people; one the desk does not know keeps its own name.
export function operationLabel(t: TFunction, operation: string): string {
  return t(`operation.${operation.replaceAll(".", "_")}`, { defaultValue: operation });
}
