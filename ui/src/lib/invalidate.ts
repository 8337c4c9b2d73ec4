// Cache refreshes from the one table of commands (`src-tauri/src/registry.rs`, written
// out as `invalidates.ts`): a command's answer makes stale what the command declares,
// so no hook lists another feature's query keys.
import {
  type MutationFunction,
  type QueryClient,
  type UseMutationOptions,
  useMutation,
  useQueryClient,
} from "@tanstack/react-query";
import { useCallback } from "react";
import { type CommandName, invalidates } from "./invalidates";

/// The query keys `command` declares stale; `null` for every query.
export function staleKeys(command: CommandName): string[][] | null {
  const caches: readonly string[] = invalidates[command];
  if (caches.includes("*")) return null;
  return caches.map((c) => c.split("."));
}

/// Marks stale what `command` declares (every query for `*`) and refetches what is shown.
export async function invalidateAfter(qc: QueryClient, command: CommandName): Promise<void> {
  const keys = staleKeys(command);
  if (keys === null) return qc.invalidateQueries();
  await Promise.all(keys.map((queryKey) => qc.invalidateQueries({ queryKey })));
}

/// `invalidateAfter` for a hook that learns of a command's answer some other way (a
/// query whose result changed, e.g. a reconciled outcome or a new notification).
export function useInvalidateAfter() {
  const qc = useQueryClient();
  return useCallback((command: CommandName) => invalidateAfter(qc, command), [qc]);
}

export type CommandMutationOptions<T, V> = Omit<
  UseMutationOptions<T, Error, V>,
  "mutationFn" | "onSuccess" | "onSettled"
> & {
  /// Runs first (e.g. to put the answer in the cache), then the declared refresh.
  onSuccess?: (data: T, variables: V) => unknown;
  /// Refresh after a failure too: a call that may have moved money and was refused,
  /// or whose outcome is unknown, still wrote its journal entry.
  evenOnError?: boolean;
  /// Runs last, whatever the answer.
  onSettled?: (data: T | undefined, error: Error | null) => void;
};

/// A mutation of `command`: once it succeeds (or, with `evenOnError`, once it is
/// answered at all) what the command declares stale is read again. On success the
/// mutation settles after the refresh, so `mutateAsync` callers see fresh data.
export function useCommandMutation<T, V = void>(
  command: CommandName,
  mutationFn: MutationFunction<T, V>,
  { onSuccess, evenOnError, onSettled, ...options }: CommandMutationOptions<T, V> = {},
) {
  const qc = useQueryClient();
  return useMutation<T, Error, V>({
    ...options,
    mutationFn,
    onSuccess: async (data, variables) => {
      await onSuccess?.(data, variables);
      if (!evenOnError) await invalidateAfter(qc, command);
    },
    onSettled: (data, error) => {
      // Not waited for: a receipt shows at once while the lists read again.
      if (evenOnError) void invalidateAfter(qc, command);
      onSettled?.(data, error);
    },
  });
}
