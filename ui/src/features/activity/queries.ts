import { useMutation, useQuery } from "@tanstack/react-query";
import { commands } from "../../bindings";
import { useCommandMutation } from "../../lib/invalidate";
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

/// The audit logs set aside when a lost key started a new chain.
export function useAuditArchives() {
  return useQuery({
    queryKey: ["activity", "archives"],
    queryFn: () => unwrap(commands.auditArchives()),
  });
}

/// The first `limit` rows of one set-aside log, read once `enabled` (it is opened).
export function useArchivedRows(archive: number, limit: number, enabled: boolean) {
  return useQuery({
    queryKey: ["activity", "archive", archive],
    queryFn: () => unwrap(commands.auditArchivedRows(archive, limit)),
    enabled,
  });
}

/// Whether `profile`'s audit log holds sealed rows whose key is gone (the desk then
/// does not open), and how many.
export function useAuditKeyLost(profile: string) {
  return useQuery({
    queryKey: ["auditKeyLost", profile],
    queryFn: () => unwrap(commands.auditKeyLost(profile)),
  });
}

/// Sets `profile`'s old audit log aside and starts a new chain.
export function useAuditNewLog(profile: string) {
  return useCommandMutation("auditNewLog", () => unwrap(commands.auditNewLog(profile)));
}
