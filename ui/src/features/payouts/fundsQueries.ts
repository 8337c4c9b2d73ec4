// Checked before it leaves (issue 35): a payout's balance, fees and what is left, asked
// of the gateway as the confirmation opens (the cached balance, with its age, if not).
import { useQuery } from "@tanstack/react-query";
import { commands } from "../../bindings";
import { unwrap } from "../../lib/ipc";

import { fundsKeys } from "./keys";

export { fundsKeys };

/// The funds of a payout of `amount` in `currency`; `refetch()` asks the gateway again.
export function usePayoutFunds(currency: string, amount: string) {
  return useQuery({
    queryKey: fundsKeys.payout(currency, amount),
    queryFn: () => unwrap(commands.payoutFunds(currency, amount, true)),
    staleTime: 0,
    gcTime: 0,
    retry: false,
  });
}
