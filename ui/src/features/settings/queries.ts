import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { commands } from "../../bindings";
import { useCommandMutation } from "../../lib/invalidate";
import { unwrap } from "../../lib/ipc";
import type { Conventions, Profile } from "../../lib/types";
import { appKeys } from "../app/keys";
import { settingsKeys } from "./keys";

export function useProfiles() {
  return useQuery({ queryKey: settingsKeys.profiles, queryFn: () => unwrap(commands.profiles()) });
}

export function useKeys(profile: string | null) {
  return useQuery({
    queryKey: settingsKeys.keys(profile ?? ""),
    enabled: !!profile,
    queryFn: () => unwrap(commands.keys(profile ?? "")),
  });
}

export function useSaveProfile() {
  return useCommandMutation(
    "profileSave",
    ({ profile, previous }: { profile: Profile; previous: string | null }) =>
      unwrap(commands.profileSave(profile, previous)),
  );
}

export function useSwitchProfile() {
  const qc = useQueryClient();
  return useCommandMutation(
    "profileSwitch",
    (name: string) => unwrap(commands.profileSwitch(name)),
    {
      onSuccess: (status) => {
        // Another profile's data goes before what the command declares stale is read
        // again. The app's status is kept, not removed: the banner observes it, and a
        // removed query would leave it naming the previous profile until the next
        // screen. It takes the switch's answer at once.
        qc.removeQueries({
          predicate: (q) =>
            q.queryKey[0] !== settingsKeys.all[0] && q.queryKey[0] !== appKeys.all[0],
        });
        qc.setQueryData(appKeys.status, status);
      },
    },
  );
}

export function useDeleteProfile() {
  return useCommandMutation("profileDelete", (name: string) =>
    unwrap(commands.profileDelete(name)),
  );
}

export function useImportKey() {
  return useCommandMutation("keyImport", ({ profile, text }: { profile: string; text: string }) =>
    unwrap(commands.keyImport(profile, text)),
  );
}

export function useGenerateKey() {
  return useCommandMutation("keyGenerate", ({ profile, bits }: { profile: string; bits: number }) =>
    unwrap(commands.keyGenerate(profile, bits)),
  );
}

export function useDeleteKey() {
  return useCommandMutation("keyDelete", (profile: string) => unwrap(commands.keyDelete(profile)));
}

export function useSetGatewayKey() {
  return useCommandMutation(
    "gatewayKeySet",
    ({ profile, text }: { profile: string; text: string }) =>
      unwrap(commands.gatewayKeySet(profile, text)),
  );
}

export function useSetToken() {
  return useCommandMutation("tokenSet", ({ profile, token }: { profile: string; token: string }) =>
    unwrap(commands.tokenSet(profile, token)),
  );
}

export function useConventions(profile: string | null) {
  return useQuery({
    queryKey: settingsKeys.conventions(profile ?? ""),
    enabled: !!profile,
    queryFn: () => unwrap(commands.conventions(profile ?? "")),
  });
}

/// Saving conventions opens the profile's desk again with them: everything it shows may
/// read differently (states, kinds), so every query is refetched.
export function useSaveConventions() {
  return useCommandMutation(
    "conventionsSave",
    ({ profile, conventions }: { profile: string; conventions: Conventions }) =>
      unwrap(commands.conventionsSave(profile, conventions)),
  );
}

/// Reads a conventions file's text; nothing is saved.
export function useParseConventions() {
  return useMutation({ mutationFn: (text: string) => unwrap(commands.conventionsParse(text)) });
}

/// The sandbox's reading, saved as the profile's conventions.
export function useResetConventions() {
  return useCommandMutation("conventionsSave", async (profile: string) => {
    const preset = await unwrap(commands.conventionsPreset());
    await unwrap(commands.conventionsSave(profile, preset));
    return preset;
  });
}

export function useExportConventions() {
  return useMutation({
    mutationFn: ({
      profile,
      path,
      overwrite,
    }: {
      profile: string;
      path: string;
      overwrite: boolean;
    }) => unwrap(commands.conventionsExport(profile, path, overwrite)),
  });
}

/// Where a conventions file is offered to go: the folder the other exports default to
/// (the user's downloads), under a name of the profile's. (No default path command
/// knows JSON; the folder is the same.)
export function useConventionsExportPath(profile: string) {
  return useQuery({
    queryKey: ["settings", "conventionsExportPath", profile],
    queryFn: async () => {
      const sample = await unwrap(commands.defaultExportPath("activity", "csv"));
      const cut = Math.max(sample.lastIndexOf("/"), sample.lastIndexOf("\\"));
      return `${sample.slice(0, cut + 1)}paydesk-conventions-${profile}.json`;
    },
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/// A connection check of `profile` (no money moves); run on demand.
export function useCheckConnection() {
  return useMutation({
    mutationFn: (profile: string) => unwrap(commands.profileCheck(profile, null)),
  });
}

/// A profile's fields checked by the core's rules as they are typed (`previous` is the
/// name of the profile being edited); the last answer stays while the next is read.
export function useProfileFields(profile: Profile, previous: string | null, enabled: boolean) {
  return useQuery({
    queryKey: ["profile-fields", profile],
    queryFn: () => profileFields(profile, previous),
    enabled,
    placeholderData: keepPreviousData,
  });
}

/// The same check, asked once (before a save).
export function profileFields(profile: Profile, previous: string | null) {
  return unwrap(commands.profileFields(profile, previous));
}

/// Reads a key's text and says what it is; nothing is kept.
export function useCheckKey() {
  return useMutation({ mutationFn: (text: string) => unwrap(commands.keyCheck(text)) });
}
