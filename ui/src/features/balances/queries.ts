import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { commands } from "../../bindings";
import { unwrap } from "../../lib/ipc";
import type { ConversionRate } from "../../lib/types";
import { dashboardKeys } from "../dashboard/keys";
import { balanceKeys } from "./keys";

export function useQueryBalances() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (currencies: string[]) => unwrap(commands.balances(currencies)),
    onSuccess: () =>
      Promise.all([
        qc.invalidateQueries({ queryKey: balanceKeys.all }),
        qc.invalidateQueries({ queryKey: dashboardKeys.all }),
      ]),
  });
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
