import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect } from "react";
import { commands } from "../../bindings";
import { unwrap } from "../../lib/ipc";
import { settingsKeys } from "./keys";

/// What the desk cannot read back from the keyring or the gateway about a live set-up,
/// kept by the backend with the profile (so a new web view, another window and every
/// desk of the profile show it): the fingerprint of the public key the user said they
/// gave the gateway (a new key unticks the step), and whether the last connection check
/// of the profile passed.
export interface SetupState {
  publicKeyGiven?: string | null;
  checkPassed?: boolean | null;
}

/// Where an earlier PayDesk kept the marks, in this web view only: moved to the profile
/// once, then removed.
const legacyKey = (profile: string) => `paydesk.setup.${profile}`;

const marksKey = (profile: string) => [...settingsKeys.all, "setupMarks", profile] as const;

export function useSetupState(
  profile: string,
): [SetupState, (update: (s: SetupState) => SetupState) => void] {
  const qc = useQueryClient();
  const key = marksKey(profile);
  const marks = useQuery({
    queryKey: key,
    enabled: !!profile,
    queryFn: () => unwrap(commands.setupMarks(profile, null)),
  });
  const save = useMutation({
    mutationFn: (m: SetupState) =>
      unwrap(
        commands.setupMarks(profile, {
          publicKeyGiven: m.publicKeyGiven ?? null,
          checkPassed: m.checkPassed ?? null,
        }),
      ),
    onSuccess: (saved) => qc.setQueryData(marksKey(profile), saved),
    // Not kept: show what the profile holds.
    onError: () => qc.invalidateQueries({ queryKey: marksKey(profile) }),
  });
  const { mutate } = save;
  const update = useCallback(
    (f: (s: SetupState) => SetupState) => {
      if (!profile) return;
      const now = qc.getQueryData<SetupState>(marksKey(profile)) ?? {};
      const next = f(now);
      if (
        (next.publicKeyGiven ?? null) === (now.publicKeyGiven ?? null) &&
        (next.checkPassed ?? null) === (now.checkPassed ?? null)
      )
        return;
      qc.setQueryData(marksKey(profile), next);
      mutate(next);
    },
    [profile, qc, mutate],
  );
  // Marks an earlier PayDesk kept in this web view's storage move to the profile once.
  const data = marks.data;
  useEffect(() => {
    if (!profile || !data) return;
    const storage = globalThis.localStorage;
    const old = storage?.getItem(legacyKey(profile));
    if (!old) return;
    storage.removeItem(legacyKey(profile));
    if (data.publicKeyGiven || data.checkPassed !== null) return;
    try {
      const parsed = JSON.parse(old) as SetupState;
      update(() => ({
        publicKeyGiven: parsed.publicKeyGiven ?? null,
        checkPassed: parsed.checkPassed ?? null,
      }));
    } catch {
      // Unreadable: nothing to move.
    }
  }, [profile, data, update]);
  return [data ?? {}, update];
}
