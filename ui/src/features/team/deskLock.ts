// The desk's idle lock settings: a single desk's idle time and its desk password.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { commands } from "../../bindings";
import { unwrap } from "../../lib/ipc";

export const lockKeys = {
  state: ["lock", "state"] as const,
  settings: ["lock", "settings"] as const,
};

export function useDeskLockSettings() {
  return useQuery({
    queryKey: lockKeys.settings,
    queryFn: () => unwrap(commands.deskLockSettings()),
    staleTime: 5_000,
    refetchInterval: 10_000,
  });
}

function useLockMutation<V, T>(fn: (v: V) => Promise<T>) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: () => qc.invalidateQueries({ queryKey: ["lock"] }),
  });
}

export function useIdleMinutesSet() {
  return useLockMutation((minutes: number) => unwrap(commands.deskLockMinutesSet(minutes)));
}

export function useDeskPasswordChange() {
  return useLockMutation((v: { current: string; password: string }) =>
    unwrap(commands.deskPasswordSet(v.current, v.password)),
  );
}
