// Why a bulk row is sent, held, looked up or already paid, in the user's language, from
// the facts the plan gives (`RowReason`); the journal's own message is quoted.
import type { TFunction } from "i18next";
import type { RowReason } from "../../bindings";

export function rowReason(t: TFunction, why: RowReason): string {
  const status = (s: string) => t(`journal.${s}`, { defaultValue: s });
  const then = (confirmedAs: string | null | undefined, held: string) =>
    confirmedAs ? t("payouts.why.confirmedAs", { number: confirmedAs }) : t(held);
  switch (why.kind) {
    case "new":
      return t("payouts.why.new");
    case "notSentYet":
      return t("payouts.why.notSentYet");
    case "paidBefore":
      return why.tradeNo
        ? t("payouts.why.paidBeforeTrade", { earlier: why.earlier, tradeNo: why.tradeNo })
        : t("payouts.why.paidBefore", { earlier: why.earlier });
    case "lookUp":
      return why.message
        ? t("payouts.why.lookUpSaid", { earlier: why.earlier, message: why.message })
        : t("payouts.why.lookUp", { earlier: why.earlier });
    case "changed":
      return `${t("payouts.why.changed", { earlier: why.earlier, status: status(why.status) })} ${then(why.confirmedAs, "payouts.why.heldNewNumber")}`;
    case "paidDaysAgo":
      return `${t("payouts.why.paidDaysAgo", { earlier: why.earlier, count: why.days })} ${then(why.confirmedAs, "payouts.why.heldNewPayout")}`;
    case "overLimit":
      return t("payouts.why.overLimit", {
        limit: t(why.limit === "perDay" ? "payouts.why.limitPerDay" : "payouts.why.limitPerPayout"),
        value: why.value,
        currency: why.currency,
      });
    case "beyondBalance":
      return t("payouts.why.beyondBalance", {
        balance: why.balance,
        needed: why.needed,
        currency: why.currency,
      });
    case "sameRecent":
      return `${t("payouts.why.sameRecent", { earlier: why.earlier, status: status(why.status), count: why.minutes })} ${earlierUnknown(why.status) ? t("payouts.why.heldUntilKnown") : then(why.confirmedAs, "payouts.why.heldNewPayout")}`;
  }
}

/// The earlier payout's outcome is unknown (its journal status), so a repeat of it waits.
function earlierUnknown(status: string): boolean {
  return status === "unknown" || status === "sending";
}

/// Held whatever is confirmed (issue 35): over a limit or beyond the balance; or a repeat
/// of a payout whose outcome is unknown (review r6 R6-5), until that one is known.
export function heldFirm(why: RowReason): boolean {
  return (
    why.kind === "overLimit" ||
    why.kind === "beyondBalance" ||
    (why.kind === "sameRecent" && earlierUnknown(why.status))
  );
}
