import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { commands, type QueryType } from "../../bindings";
import { unwrap } from "../../lib/ipc";
import { reversalKeys } from "./keys";

/// A lookup at the gateway by trade number; what it finds is cached, so the cached list
/// is refreshed once it is answered.
function useLookup<T>(query: (tradeNo: string) => Promise<T>) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: query,
    onSettled: () => qc.invalidateQueries({ queryKey: reversalKeys.all }),
  });
}

export function useRefundLookup(refundNo: string) {
  return useLookup((tradeNo) => unwrap(commands.refundQuery(tradeNo, refundNo)));
}

export function useOrderLookup(queryType: QueryType) {
  return useLookup((tradeNo) => unwrap(commands.orderQuery(tradeNo, queryType)));
}

/// The refunds and chargebacks cached, of one order when `tradeNo` is given.
export function useReversals(tradeNo: string) {
  return useQuery({
    queryKey: reversalKeys.list(tradeNo),
    queryFn: () => unwrap(commands.reversals(tradeNo || null)),
  });
}
