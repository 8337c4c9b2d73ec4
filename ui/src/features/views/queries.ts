import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import { commands } from "../../bindings";
import { useCommandMutation } from "../../lib/invalidate";
import { unwrap } from "../../lib/ipc";
import { viewKeys } from "./keys";
import type { RelativeRange, Screen, ViewSpec } from "./types";

/// The views of a screen the member sees, with their dates as they apply now.
export function useViews(screen: Screen) {
  return useQuery({
    queryKey: viewKeys.list(screen),
    queryFn: () => unwrap(commands.viewsList(screen)),
    staleTime: 0,
  });
}

/// The view the screen used last: read afresh each time the screen opens (its dates
/// are resolved today), never kept from an earlier visit.
export function useLastView(screen: Screen) {
  return useQuery({
    queryKey: viewKeys.last(screen),
    queryFn: () => unwrap(commands.viewLast(screen)),
    staleTime: 0,
    gcTime: 0,
  });
}

/// Resolves a relative range in the business's time zone, now.
export function useResolveRange() {
  const qc = useQueryClient();
  return useCallback(
    (range: RelativeRange) =>
      qc.fetchQuery({
        queryKey: viewKeys.range(range),
        queryFn: () => unwrap(commands.relativeRange(range)),
        staleTime: 0,
      }),
    [qc],
  );
}

export function useSaveView() {
  return useCommandMutation(
    "viewSave",
    (v: { screen: Screen; name: string; spec: ViewSpec; shared: boolean }) =>
      unwrap(commands.viewSave(v.screen, v.name, v.spec, v.shared)),
  );
}

export function useUpdateView() {
  return useCommandMutation("viewUpdate", (v: { id: number; spec: ViewSpec; shared: boolean }) =>
    unwrap(commands.viewUpdate(v.id, v.spec, v.shared)),
  );
}

export function useDeleteView() {
  return useCommandMutation("viewDelete", (id: number) => unwrap(commands.viewDelete(id)));
}

/// Keeps the view a screen shows now, for the next time it opens.
export function useUseView() {
  return useCallback(
    (screen: Screen, id: number | null) => void commands.viewUse(screen, id).catch(() => {}),
    [],
  );
}
