import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useState } from "react";
import { commands, type JournalOperation } from "../../bindings";
import { useCommandMutation, useInvalidateAfter } from "../../lib/invalidate";
import type { CommandName } from "../../lib/invalidates";
import { unwrap } from "../../lib/ipc";
import type { Entry } from "../../lib/types";
import { journalKeys } from "./keys";

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
  const invalidate = useInvalidateAfter();
  const q = useQuery({
    ...reconcileOptions(entry?.id),
    enabled: unresolved,
    refetchInterval: (q) => {
      const e = q.state.data;
      if (e && cannotBeAsked(e)) return false;
      const s = e?.status;
      return s === "unknown" || s === "sending" || s === undefined ? 2000 : false;
    },
  });
  // Once the outcome is known (accepted, refused, pending again), what the reconcile
  // command declares is stale: the journal tables, the orders, the palette.
  const settled = q.data && q.data.status !== "unknown" && q.data.status !== "sending";
  const settledAt = settled ? q.data?.updatedAt : undefined;
  useEffect(() => {
    if (settledAt !== undefined) void invalidate("journalReconcile");
  }, [settledAt, invalidate]);
  return q;
}

/// One entry's live state: a lookup never replaces a later state (a resolution written
/// while a lookup was under way) with an earlier one.
function reconcileOptions(id: number | undefined) {
  return {
    queryKey: journalKeys.reconcile(id),
    queryFn: () => unwrap(commands.journalReconcile(id ?? 0)),
    structuralSharing: (old: unknown, next: unknown) => {
      const o = old as Entry | undefined;
      const n = next as Entry;
      return o && n && o.id === n.id && o.updatedAt > n.updatedAt ? o : n;
    },
  };
}

/// The later of two states of one entry (a reconciled or resolved one replaces the one
/// a receipt came with, and a new receipt for the same entry replaces both).
export function newest(a: Entry, b: Entry | undefined | null): Entry {
  return b && b.id === a.id && b.updatedAt >= a.updatedAt ? b : a;
}

/// A receipt's entry as it stands now, from what `ReceiptView` reconciles or resolves
/// (this only reads: it never asks the gateway itself).
export function useEntryNow(entry: Entry | null): Entry | null {
  const q = useQuery({ ...reconcileOptions(entry?.id), enabled: false });
  return entry ? newest(entry, q.data) : null;
}

/// An unknown outcome the gateway cannot be asked about (a card withdrawal, a review
/// submission: the core says which) is resolved by hand (`journalResolve`).
export function canResolve(e: Entry) {
  return (e.status === "unknown" || e.status === "sending") && !e.canBeLookedUp;
}

/// Resolves an unknown outcome by hand: `done` marks it accepted, otherwise it may be
/// sent again with the same number. The entry's new state replaces the reconciled one.
export function useResolve() {
  const qc = useQueryClient();
  return useCommandMutation(
    "journalResolve",
    (v: { id: number; done: boolean; reason: string }) =>
      unwrap(commands.journalResolve(v.id, v.done, v.reason)),
    { onSuccess: (e) => void qc.setQueryData(journalKeys.reconcile(e.id), e) },
  );
}

export function useJournalList(operations: JournalOperation[]) {
  return useQuery({
    queryKey: journalKeys.list(operations),
    queryFn: () => unwrap(commands.journalList(operations, 50)),
  });
}

/// What a form does once its create call is answered, besides refreshing the lists: the
/// duplicate guard's `settle`.
export type Settled = (data: unknown, error: unknown) => void;

/// A call that may move money (or send a document): once answered, refused or not, what
/// `command` declares stale (whatever shows money) is read again, and then `onSettled`
/// learns the answer.
export function useMoneyMutation<T, V>(
  command: CommandName,
  send: (v: V) => Promise<T>,
  onSettled?: Settled,
) {
  return useCommandMutation(command, send, { evenOnError: true, onSettled });
}

/// An earlier journal entry, looked up live (the one a duplicate refusal names).
export function useJournalEntry(id: number) {
  return useQuery({
    queryKey: journalKeys.entry(id),
    queryFn: () => unwrap(commands.journalEntry(id)),
  });
}

export function useOpenPayUrl() {
  return useMutation({ mutationFn: (url: string) => unwrap(commands.payUrlOpen(url)) });
}

/// An outcome the gateway cannot be asked about (a card withdrawal, a review
/// submission: the interface gives no query for them), as the backend says.
export function cannotBeAsked(e: Entry) {
  return !e.canBeLookedUp;
}

/// Looks an unknown outcome up at the gateway now (a person asked): never sends it.
export function useLookUpNow() {
  const qc = useQueryClient();
  return useCommandMutation("journalLookUp", (id: number) => unwrap(commands.journalLookUp(id)), {
    onSuccess: (e) => void qc.setQueryData(journalKeys.reconcile(e.id), e),
  });
}

/// Sends again, under its own number, a payout the journal knows was not sent; the
/// account is typed again (the journal keeps it masked) and the core checks it is the
/// entry's own.
export function useResendPayin() {
  const qc = useQueryClient();
  return useMoneyMutation(
    "payinResend",
    (v: { id: number; taxId: string | null }) => unwrap(commands.payinResend(v.id, v.taxId)),
    (data) => {
      const r = data as { entry: Entry } | undefined;
      if (r?.entry) qc.setQueryData(journalKeys.reconcile(r.entry.id), r.entry);
    },
  );
}

export function useResendPayout() {
  const qc = useQueryClient();
  return useMoneyMutation(
    "payoutResend",
    (v: { id: number; account: string }) => unwrap(commands.payoutResend(v.id, v.account)),
    (data) => {
      const r = data as { entry: Entry } | undefined;
      if (r?.entry) qc.setQueryData(journalKeys.reconcile(r.entry.id), r.entry);
    },
  );
}
