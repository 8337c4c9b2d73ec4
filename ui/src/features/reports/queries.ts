// The Reports screen's calls: statements, their export, the period read again, and the
// profile's reporting settings (business zone, change horizon).
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { type Comparison_Serialize, commands, type Reporting_Deserialize } from "../../bindings";
import { useCommandMutation } from "../../lib/invalidate";
import { unwrap } from "../../lib/ipc";
import { reportKeys } from "./keys";
import type { Days } from "./period";

export type Comparison = Comparison_Serialize;

export function useReportSettings() {
  return useQuery({
    queryKey: reportKeys.settings,
    queryFn: () => unwrap(commands.reportSettings(null)),
  });
}

/// Saves the business zone and change horizon; the screen takes the saved ones at once.
export function useSaveReportSettings() {
  const qc = useQueryClient();
  return useCommandMutation(
    "reportSettings",
    (set: Reporting_Deserialize) => unwrap(commands.reportSettings(set)),
    { onSuccess: (r) => void qc.setQueryData(reportKeys.settings, r) },
  );
}

/// The statement of `days` in the zone `zone` (a zone name: the business's, daylight
/// saving honoured by the core), beside the period before it.
export function useStatement(days: Days | null, zone: string | null, currency: string | null) {
  return useQuery({
    queryKey: reportKeys.statement(days, zone, currency),
    queryFn: () =>
      unwrap(
        commands.reportStatement(
          days?.from ?? "",
          days?.to ?? "",
          days?.previousFrom ?? "",
          days?.previousTo ?? "",
          zone ?? "",
          currency,
        ),
      ),
    enabled: days !== null && zone !== null,
  });
}

/// The file name a statement export of `format` suggests.
export function useStatementExportPath(format: "xlsx" | "csv" | "pdf") {
  return useQuery({
    queryKey: reportKeys.exportPath(format),
    queryFn: () => unwrap(commands.defaultExportPath("statement", format)),
    staleTime: 0,
  });
}

export function useReportExport(days: Days, zone: string, currency: string | null) {
  return useCommandMutation("reportExport", (v: { path: string; overwrite: boolean }) =>
    unwrap(commands.reportExport(days.from, days.to, zone, currency, v.path, v.overwrite)),
  );
}

/// Reads the period's orders again from the gateway; the statement is then read again.
export function useReportRefresh(zone: string | null) {
  return useCommandMutation("reportRefresh", (d: Days) =>
    unwrap(commands.reportRefresh(d.from, d.to, zone ?? "")),
  );
}

/// Stops a refresh under way (it runs as a sync).
export function cancelRefresh() {
  void commands.ordersSyncCancel();
}
