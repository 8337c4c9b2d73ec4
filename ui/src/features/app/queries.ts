import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { commands } from "../../bindings";
import { useInvalidateAfter } from "../../lib/invalidate";
import { unwrap } from "../../lib/ipc";
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
/// again before keeping it, so when another one comes in, what `notificationLatest`
/// declares it may have changed (the order's state and timeline, the lists and figures
/// from the cache) is read again.
export function useNotificationWatch() {
  const invalidate = useInvalidateAfter();
  const q = useQuery({
    queryKey: appKeys.notification,
    queryFn: () => unwrap(commands.notificationLatest()),
    refetchInterval: NOTIFICATION_WATCH_MS,
  });
  const id = q.data === undefined ? undefined : (q.data?.id ?? 0);
  const seen = useRef<number | undefined>(undefined);
  useEffect(() => {
    if (id === undefined) return;
    if (seen.current !== undefined && seen.current !== id) void invalidate("notificationLatest");
    seen.current = id;
  }, [id, invalidate]);
}

/// The active profile's name (what a copied `paydesk` command names with `--profile`),
/// once the desk's status is known.
export function useProfileName(): string | undefined {
  const profile = useAppStatus().data?.profile as { name?: unknown } | undefined;
  return typeof profile?.name === "string" ? profile.name : undefined;
}
