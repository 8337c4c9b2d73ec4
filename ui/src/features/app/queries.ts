import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { commands } from "../../bindings";
import { unwrap } from "../../lib/ipc";
import { dashboardKeys } from "../dashboard/keys";
import { eventKeys } from "../events/keys";
import { orderKeys } from "../orders/keys";
import { reversalKeys } from "../refunds/keys";
import { appKeys } from "./keys";

export function useAppStatus() {
  return useQuery({ queryKey: appKeys.status, queryFn: () => unwrap(commands.appStatus()) });
}

/// The profile's state dictionary, as raw value → meaning per field.
export function useStateMeanings() {
  return useQuery({
    queryKey: appKeys.meanings,
    queryFn: () => unwrap(commands.stateMeanings()),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/// How often the newest notification is looked at (a local read, no request).
const NOTIFICATION_WATCH_MS = 2000;

/// Watches the newest notification the desk kept: the desk reads a verified one's order
/// again before keeping it, so when another one comes in, everything it may have changed
/// (the order's state and timeline, the lists and figures from the cache) is read again.
export function useNotificationWatch() {
  const qc = useQueryClient();
  const q = useQuery({
    queryKey: appKeys.notification,
    queryFn: () => unwrap(commands.notificationLatest()),
    refetchInterval: NOTIFICATION_WATCH_MS,
  });
  const id = q.data === undefined ? undefined : (q.data?.id ?? 0);
  const seen = useRef<number | undefined>(undefined);
  useEffect(() => {
    if (id === undefined) return;
    if (seen.current !== undefined && seen.current !== id) {
      for (const key of [orderKeys.all, dashboardKeys.all, reversalKeys.all, eventKeys.all]) {
        void qc.invalidateQueries({ queryKey: key });
      }
    }
    seen.current = id;
  }, [id, qc]);
}
