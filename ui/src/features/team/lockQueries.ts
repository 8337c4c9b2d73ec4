// The desk's idle lock settings: a single desk's idle time and its desk password.
import { useQuery } from "@tanstack/react-query";
import { commands } from "../../bindings";
import { useCommandMutation } from "../../lib/invalidate";
import type { CommandName } from "../../lib/invalidates";
import { unwrap } from "../../lib/ipc";
import { setLocked } from "./lock";

export const lockKeys = {
  all: ["lock"] as const,
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

function useLockMutation<V, T>(command: CommandName, fn: (v: V) => Promise<T>) {
  return useCommandMutation(command, fn);
}

export function useIdleMinutesSet() {
  return useLockMutation("deskLockMinutesSet", (minutes: number) =>
    unwrap(commands.deskLockMinutesSet(minutes)),
  );
}

export function useDeskPasswordChange() {
  return useLockMutation("deskPasswordSet", (v: { current: string; password: string }) =>
    unwrap(commands.deskPasswordSet(v.current, v.password)),
  );
}

/// Whether the desk is locked and its idle time, as the backend keeps them (its raw
/// result: a locked desk is a state here, not an error).
export function useSessionState() {
  return useQuery({
    queryKey: lockKeys.state,
    queryFn: () => commands.sessionState(),
    refetchInterval: 10_000,
  });
}

/// Unlocks with the password; what the lock hid is then read again (`sessionUnlock`
/// declares it).
export function useUnlock(onUnlocked: () => void) {
  return useCommandMutation("sessionUnlock", (p: string) => unwrap(commands.sessionUnlock(p)), {
    onSuccess: onUnlocked,
  });
}

/// The window's own clock ran out: the backend locks the desk now.
export function lockNow() {
  void commands.sessionLock();
}

/// Tells the backend the person is here; a desk it locked meanwhile shows the lock.
export function touchSession() {
  void commands.sessionTouch().then((r) => {
    if (r.status === "error" && r.error.code === "locked") setLocked(true);
  });
}

/// A single live desk's first desk password (none to give as the current one).
export function useChooseDeskPassword(onChosen: () => void) {
  return useCommandMutation(
    "deskPasswordSet",
    (p: string) => unwrap(commands.deskPasswordSet("", p)),
    { onSuccess: onChosen },
  );
}
