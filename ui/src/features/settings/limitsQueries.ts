// The profile's payout limits per currency (issue 35).
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { commands, type Limits_Deserialize } from "../../bindings";
import { useCommandMutation } from "../../lib/invalidate";
import { unwrap } from "../../lib/ipc";

import { fundsKeys } from "../payouts/keys";

const limitsKey = fundsKeys.limits;

export function usePayoutLimits() {
  return useQuery({ queryKey: limitsKey, queryFn: () => unwrap(commands.payoutLimits(null)) });
}

/// Saves the limits (checked by the core); the card shows them as kept.
export function useSavePayoutLimits() {
  const qc = useQueryClient();
  return useCommandMutation(
    "payoutLimits",
    (set: Limits_Deserialize) => unwrap(commands.payoutLimits(set)),
    { onSuccess: (l) => void qc.setQueryData(limitsKey, l) },
  );
}
