import { useQuery } from "@tanstack/react-query";
import { commands } from "../../bindings";
import { useCommandMutation } from "../../lib/invalidate";
import { unwrap } from "../../lib/ipc";
import type { ConversionRate } from "../../lib/types";
import { balanceKeys } from "./keys";

export function useQueryBalances() {
  return useCommandMutation("balances", (currencies: string[]) =>
    unwrap(commands.balances(currencies)),
  );
}

/// The last snapshot of each currency: what the screen opens with, without asking the
/// gateway (each question is a request and an audit entry).
export function useLatestBalances() {
  return useQuery({
    queryKey: balanceKeys.latest,
    queryFn: () => unwrap(commands.balancesLatest()),
  });
}

export function useBalanceHistory(currency: string | null) {
  return useQuery({
    queryKey: balanceKeys.history(currency ?? ""),
    enabled: !!currency,
    queryFn: () => unwrap(commands.balanceHistory(currency ?? "")),
  });
}

/// Every profile's last balances, last sync and unknown outcomes, with totals per
/// currency; converted to `target` only with the rates the user gave.
export function useOverview(target: string | null, rates: ConversionRate[]) {
  return useQuery({
    queryKey: balanceKeys.overview(target ?? "", JSON.stringify(rates)),
    queryFn: () => unwrap(commands.balancesOverview(target, rates)),
  });
}

/// The reconciliation of `currency`'s balance between its snapshots taken at `from` and
/// `to` (read from the cache; nothing is asked of the gateway).
export function useReconcile(currency: string | null, from: number | null, to: number | null) {
  return useQuery({
    queryKey: balanceKeys.reconcile(currency ?? "", from ?? 0, to ?? 0),
    enabled: !!currency && from !== null && to !== null,
    queryFn: () => unwrap(commands.balanceReconcile(currency ?? "", from ?? 0, to ?? 0)),
  });
}

/// Paid payins not settled yet and reserve not released yet, per currency.
export function useUpcoming() {
  return useQuery({
    queryKey: balanceKeys.upcoming,
    queryFn: () => unwrap(commands.balancesUpcoming(null)),
  });
}
