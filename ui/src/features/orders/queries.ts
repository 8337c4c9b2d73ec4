import {
  keepPreviousData,
  useMutation,
  useMutationState,
  useQueries,
  useQuery,
  useQueryClient,
} from "@tanstack/react-query";
import { Channel } from "@tauri-apps/api/core";
import { useEffect, useMemo, useSyncExternalStore } from "react";
import { commands } from "../../bindings";
import { machineZone } from "../../lib/format";
import { useCommandMutation } from "../../lib/invalidate";
import { unwrap } from "../../lib/ipc";
import type {
  CachedOrder,
  ExportProgress,
  OrderFilter,
  SimulateAction,
  SyncProgress,
  SyncReport,
} from "../../lib/types";
import { orderKeys } from "./keys";

export const PAGE_SIZE = 100;

/// No filter: every order, newest first.
export const EMPTY_FILTER: OrderFilter = {
  from: null,
  to: null,
  movedFrom: null,
  movedTo: null,
  states: [],
  currencies: [],
  methods: [],
  kinds: [],
  unknownKind: false,
  settles: [],
  reserveStatuses: [],
  minAmount: null,
  maxAmount: null,
  search: null,
  sort: "created",
  descending: true,
};

export function fetchPage(filter: OrderFilter, page: number) {
  return unwrap(commands.ordersPage(filter, page * PAGE_SIZE, PAGE_SIZE));
}

/// The first page (for the total) and every page under the visible rows.
export function useOrderPages(filter: OrderFilter, pages: number[]) {
  const first = useQuery({
    queryKey: orderKeys.page(filter, 0),
    queryFn: () => fetchPage(filter, 0),
    placeholderData: keepPreviousData,
  });
  const rest = useQueries({
    queries: pages
      .filter((p) => p > 0)
      .map((p) => ({
        queryKey: orderKeys.page(filter, p),
        queryFn: () => fetchPage(filter, p),
        staleTime: 30_000,
      })),
  });
  return { first, rest };
}

export function useCurrencies() {
  return useQuery({
    queryKey: orderKeys.currencies,
    queryFn: () => unwrap(commands.currencies()),
  });
}

export function useOrderDetail(tradeNo: string | null) {
  return useQuery({
    queryKey: orderKeys.detail(tradeNo ?? ""),
    enabled: !!tradeNo,
    queryFn: () => unwrap(commands.orderDetail(tradeNo ?? "")),
    staleTime: 0,
  });
}

/// The order as the orders table already read it (a page of any filter in the UI's query
/// cache), shown at once while `order_detail` asks the gateway; `null` when no page read
/// holds it (the order opened from its address, say).
export function useListedOrder(tradeNo: string | null): CachedOrder | null {
  const client = useQueryClient();
  return useMemo(() => {
    if (!tradeNo) return null;
    for (const [, page] of client.getQueriesData<{ rows: CachedOrder[] }>({
      queryKey: ["orders", "page"],
    })) {
      const o = page?.rows.find((r) => r.tradeNo === tradeNo);
      if (o) return o;
    }
    return null;
  }, [client, tradeNo]);
}

/// Every sync is one mutation of this key, whoever starts it (the Orders screen's button,
/// the first run's load of the sandbox's demo orders): the Orders screen shows the last
/// one, with its progress, even when another screen started it.
export const SYNC_KEY = ["orders", "sync"] as const;

let syncProgress: SyncProgress | null = null;
const progressListeners = new Set<() => void>();
function setSyncProgress(p: SyncProgress | null) {
  syncProgress = p;
  for (const l of progressListeners) l();
}

/// The running (or last) sync's progress.
export function useSyncProgress(): SyncProgress | null {
  return useSyncExternalStore(
    (l) => {
      progressListeners.add(l);
      return () => progressListeners.delete(l);
    },
    () => syncProgress,
  );
}

/// A sync, finished or not, changed the cache: what `ordersSync` declares is read again.
export function useSync() {
  return useCommandMutation(
    "ordersSync",
    ({ days, full }: { days: number; full: boolean; firstRun?: boolean }) => {
      setSyncProgress(null);
      const channel = new Channel<SyncProgress>();
      channel.onmessage = setSyncProgress;
      return unwrap(commands.ordersSync(days, full, channel));
    },
    { mutationKey: SYNC_KEY, evenOnError: true },
  );
}

/// The last sync of this session, whoever started it: its status, report or error, and
/// whether it was the first run's.
export function useLastSync():
  | {
      status: "idle" | "pending" | "success" | "error";
      data: SyncReport | undefined;
      error: unknown;
      firstRun: boolean;
    }
  | undefined {
  const all = useMutationState({
    filters: { mutationKey: SYNC_KEY },
    select: (m) => ({
      status: m.state.status,
      data: m.state.data as SyncReport | undefined,
      error: m.state.error as unknown,
      firstRun: !!(m.state.variables as { firstRun?: boolean } | undefined)?.firstRun,
    }),
  });
  return all.at(-1);
}

export function cancelSync() {
  return unwrap(commands.ordersSyncCancel());
}

/// The simulation actions the built-in sandbox takes on this order now (the core's
/// rule: by the order's state and, where known, its kind).
export function useSimulationActions(tradeNo: string) {
  return useQuery({
    queryKey: orderKeys.actions(tradeNo),
    queryFn: () => unwrap(commands.sandboxActions(tradeNo)),
  });
}

export function useSimulate(tradeNo: string) {
  return useCommandMutation(
    "sandboxSimulate",
    ({ action, amount }: { action: SimulateAction; amount: string | null }) =>
      unwrap(commands.sandboxSimulate(tradeNo, action, amount)),
  );
}

export function useExport(onProgress: (p: ExportProgress) => void) {
  return useMutation({
    mutationFn: ({
      filter,
      path,
      overwrite,
    }: {
      filter: OrderFilter;
      path: string;
      overwrite: boolean;
    }) => {
      const channel = new Channel<ExportProgress>();
      channel.onmessage = onProgress;
      return unwrap(commands.ordersExport(filter, path, overwrite, machineZone(), channel));
    },
  });
}

/// The file name an export of `format` suggests, asked for each time the export opens.
export function useSuggestedExportPath(format: "csv" | "xlsx", opened: boolean) {
  return useQuery({
    queryKey: orderKeys.exportPath(format, opened),
    enabled: opened,
    queryFn: () => unwrap(commands.defaultExportPath("orders", format)),
    staleTime: 0,
  });
}

/// The customer an order this desk made was for, as its request named them.
export function useOrderCustomer(tradeNo: string) {
  return useQuery({
    queryKey: orderKeys.customer(tradeNo),
    queryFn: () => unwrap(commands.orderCustomer(tradeNo)),
  });
}

/// An order's refunds and chargebacks, looked up at the gateway as its page opens. What
/// the lookup cached belongs on the order's timeline too: its page is read again (only
/// the page: this lookup is not asked again by it).
export function useOrderReversals(tradeNo: string) {
  const qc = useQueryClient();
  const q = useQuery({
    queryKey: [...orderKeys.detail(tradeNo), "reversals"] as const,
    queryFn: () => unwrap(commands.orderReversals(tradeNo)),
  });
  const found = q.dataUpdatedAt;
  useEffect(() => {
    if (found > 0) {
      void qc.invalidateQueries({ queryKey: orderKeys.detail(tradeNo), exact: true });
    }
  }, [found, qc, tradeNo]);
  return q;
}

/// The first `limit` cached orders a filter finds, as one list (not paged).
export function useOrdersFirst(
  key: readonly unknown[],
  filter: OrderFilter,
  limit: number,
  enabled: boolean,
) {
  return useQuery({
    queryKey: [...orderKeys.all, ...key] as const,
    enabled,
    queryFn: () => unwrap(commands.ordersPage(filter, 0, limit)),
  });
}
