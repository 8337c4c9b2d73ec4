import { useQuery } from "@tanstack/react-query";
import { commands, type QueryType } from "../../bindings";
import { useCommandMutation } from "../../lib/invalidate";
import { unwrap } from "../../lib/ipc";
import { reversalKeys } from "./keys";

// A lookup at the gateway by trade number; what it finds is cached, so what the command
// declares (the cached list) is read again once it is answered.

export function useRefundLookup(refundNo: string) {
  return useCommandMutation(
    "refundQuery",
    (tradeNo: string) => unwrap(commands.refundQuery(tradeNo, refundNo)),
    { evenOnError: true },
  );
}

export function useOrderLookup(queryType: QueryType) {
  return useCommandMutation(
    "orderQuery",
    (tradeNo: string) => unwrap(commands.orderQuery(tradeNo, queryType)),
    { evenOnError: true },
  );
}

/// The refunds and chargebacks cached, of one order when `tradeNo` is given.
export function useReversals(tradeNo: string) {
  return useQuery({
    queryKey: reversalKeys.list(tradeNo),
    queryFn: () => unwrap(commands.reversals(tradeNo || null)),
  });
}
