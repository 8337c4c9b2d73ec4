import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { commands } from "../../bindings";
import { unwrap } from "../../lib/ipc";
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
