import type { JournalOperation } from "../../bindings";

/// The journal of what this desk sent: its lists, one entry, and one entry's live state.
export const journalKeys = {
  all: ["journal"] as const,
  list: (operations: JournalOperation[]) => ["journal", "list", operations] as const,
  entry: (id: number) => ["journal", "entry", id] as const,
  reconcile: (id: number | undefined) => ["journal", "reconcile", id] as const,
};
