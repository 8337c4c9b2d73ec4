import type { AlertTarget } from "../../lib/types";

/// Where opening an alert leads: the order, the journal entry (on the Dashboard's
/// "Needs attention"), the balances, the sync (Dashboard), the request (Approvals).
export function alertRoute(target: AlertTarget): string {
  switch (target.to) {
    case "entry":
      return target.tradeNo
        ? `/orders?order=${encodeURIComponent(target.tradeNo)}`
        : `/?entry=${target.id}`;
    case "order":
      return `/orders?order=${encodeURIComponent(target.tradeNo)}`;
    case "balances":
      return `/balances?currency=${encodeURIComponent(target.currency)}`;
    case "sync":
      return "/";
    case "request":
      return `/approvals?request=${target.id}`;
  }
}
