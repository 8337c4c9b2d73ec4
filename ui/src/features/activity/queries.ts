import { useMutation, useQuery } from "@tanstack/react-query";
import { commands } from "../../bindings";
import { unwrap } from "../../lib/ipc";
import { type AuditQuery, activityKeys } from "./keys";

const filterOf = (q: AuditQuery) => ({
  operation: q.operation,
  text: q.text,
  from: null,
  to: null,
  limit: 500,
});

export function useAuditList(q: AuditQuery) {
  return useQuery({
    queryKey: activityKeys.list(q),
    queryFn: () => unwrap(commands.auditList(filterOf(q))),
  });
}

export function useAuditChain() {
  return useQuery({
    queryKey: activityKeys.chain,
    queryFn: () => unwrap(commands.auditVerify()),
  });
}

export function useAuditExport() {
  return useMutation({
    mutationFn: ({ q, path, overwrite }: { q: AuditQuery; path: string; overwrite: boolean }) =>
      unwrap(commands.auditExport({ ...filterOf(q), limit: null }, path, overwrite)),
  });
}

export function useDefaultPath() {
  return useQuery({
    queryKey: activityKeys.exportPath,
    queryFn: () => unwrap(commands.defaultExportPath("activity", "csv")),
    staleTime: 0,
  });
}
