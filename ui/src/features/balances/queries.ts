import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { commands } from "../../bindings";
import { unwrap } from "../../lib/ipc";

export const balanceKeys = {
  history: (currency: string) => ["balances", "history", currency] as const,
};

export function useQueryBalances() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (currencies: string[]) => unwrap(commands.balances(currencies)),
    onSuccess: () =>
      Promise.all([
        qc.invalidateQueries({ queryKey: ["balances"] }),
        qc.invalidateQueries({ queryKey: ["dashboard"] }),
      ]),
  });
}

export function useBalanceHistory(currency: string | null) {
  return useQuery({
    queryKey: balanceKeys.history(currency ?? ""),
    enabled: !!currency,
    queryFn: () => unwrap(commands.balanceHistory(currency ?? "")),
  });
}
