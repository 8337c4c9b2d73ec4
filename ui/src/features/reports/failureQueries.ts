// Why money did not come in (issue 36): the failure breakdown of a period, on the
// Reports screen (the period chosen) and on the Dashboard (the last 7 days).
import { useQuery } from "@tanstack/react-query";
import { commands, type FailureReport_Serialize } from "../../bindings";
import { unwrap } from "../../lib/ipc";

export type FailureReport = FailureReport_Serialize;

/// The breakdown of the days `from` to `to` in `zone` (a zone name; empty: the
/// business zone), beside the period of the same length just before.
export function useFailures(from: string, to: string, zone: string | null, enabled = true) {
  return useQuery({
    queryKey: ["reports", "failures", from, to, zone],
    queryFn: () => unwrap(commands.reportFailures(from, to, zone ?? "")),
    enabled: enabled && zone !== null,
  });
}

/// The Dashboard's: the 7 days ending today in the business zone (a sync refreshes it).
export function useRecentFailures() {
  return useQuery({
    queryKey: ["dashboard", "failures"],
    queryFn: () => unwrap(commands.reportFailures("", "", "")),
  });
}
