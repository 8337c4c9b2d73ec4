/// What the activity log is filtered by.
export type AuditQuery = { operation: string | null; text: string | null };

export const activityKeys = {
  all: ["activity"] as const,
  list: (q: AuditQuery) => ["activity", "list", q] as const,
  chain: ["activity", "chain"] as const,
  exportPath: ["activity", "export-path"] as const,
};
