import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useState } from "react";
import { commands } from "../../bindings";
import { unwrap } from "../../lib/ipc";
import type { Entry } from "../../lib/types";

export type OrderPrefix = "PI" | "PO" | "TU" | "WD" | "RV";

/// The order number a form fixes when it opens, kept until its operation is answered:
/// a second click or a retry sends the same number, which the journal never sends twice.
export function useOrderNo(prefix: OrderPrefix) {
  const [no, setNo] = useState("");
  const renew = useCallback(() => {
    void unwrap(commands.orderNoNew(prefix)).then(setNo);
  }, [prefix]);
  useEffect(renew, [renew]);
  return [no, renew] as const;
}

/// A journal entry until its outcome is known: an unknown one is reconciled by querying
/// the gateway, every two seconds, never sent again.
export function useReconcile(entry: Entry | null) {
  const unresolved = entry !== null && (entry.status === "unknown" || entry.status === "sending");
  return useQuery({
    queryKey: ["journal", "reconcile", entry?.id],
    queryFn: () => unwrap(commands.journalReconcile(entry?.id ?? 0)),
    enabled: unresolved,
    refetchInterval: (q) => {
      const e = q.state.data;
      if (e && cannotBeAsked(e)) return false;
      const s = e?.status;
      return s === "unknown" || s === "sending" || s === undefined ? 2000 : false;
    },
  });
}

export function useJournalList(operations: string[]) {
  return useQuery({
    queryKey: ["journal", "list", operations],
    queryFn: () => unwrap(commands.journalList(operations, 50)),
  });
}

/// After anything that moved money: the lists that show it are stale.
export function useMoneyChanged() {
  const qc = useQueryClient();
  return useCallback(() => {
    void qc.invalidateQueries({ queryKey: ["journal"] });
    void qc.invalidateQueries({ queryKey: ["cards"] });
    void qc.invalidateQueries({ queryKey: ["dashboard"] });
    void qc.invalidateQueries({ queryKey: ["orders"] });
    void qc.invalidateQueries({ queryKey: ["review"] });
  }, [qc]);
}

export function useOpenPayUrl() {
  return useMutation({ mutationFn: (url: string) => unwrap(commands.payUrlOpen(url)) });
}

/// An unknown outcome the gateway cannot be asked about (a card withdrawal, a review
/// submission: the interface gives no query for them): its next check is never.
export function cannotBeAsked(e: Entry) {
  return e.nextCheckAt !== null && e.nextCheckAt > Date.now() + 365 * 86_400_000;
}
