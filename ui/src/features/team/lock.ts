// Whether the team desk is locked, shared by the lock screen and the query cache (which
// sees a command refused with `locked`, e.g. a screen's polling after the idle time).
import { useSyncExternalStore } from "react";
import { coreError } from "../../lib/ipc";

let locked = false;
const listeners = new Set<() => void>();

export function setLocked(value: boolean) {
  if (locked === value) return;
  locked = value;
  for (const l of listeners) l();
}

export function useLocked(): boolean {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => locked,
  );
}

/// For the query and mutation caches: a command refused because the desk is locked
/// shows the lock screen.
export function lockOnError(e: unknown) {
  if (coreError(e).code === "locked") setLocked(true);
}
