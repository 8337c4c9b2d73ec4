import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { commands } from "../../bindings";
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

/// A change to profiles or keys can change everything a screen shows: refetch all.
function useRefreshAll() {
  const qc = useQueryClient();
  return () => qc.invalidateQueries();
}

export function useSaveProfile() {
  const refresh = useRefreshAll();
  return useMutation({
    mutationFn: ({ profile, previous }: { profile: Profile; previous: string | null }) =>
      unwrap(commands.profileSave(profile, previous)),
    onSuccess: refresh,
  });
}

export function useSwitchProfile() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => unwrap(commands.profileSwitch(name)),
    onSuccess: (status) => {
      // The app's status is kept, not removed: the banner observes it, and a removed
      // query would leave it naming the previous profile until the next screen. It
      // takes the switch's answer at once.
      qc.removeQueries({
        predicate: (q) => q.queryKey[0] !== settingsKeys.all[0] && q.queryKey[0] !== appKeys.all[0],
      });
      qc.setQueryData(appKeys.status, status);
      return qc.invalidateQueries();
    },
  });
}

export function useDeleteProfile() {
  const refresh = useRefreshAll();
  return useMutation({
    mutationFn: (name: string) => unwrap(commands.profileDelete(name)),
    onSuccess: refresh,
  });
}

export function useImportKey() {
  const refresh = useRefreshAll();
  return useMutation({
    mutationFn: ({ profile, text }: { profile: string; text: string }) =>
      unwrap(commands.keyImport(profile, text)),
    onSuccess: refresh,
  });
}

export function useGenerateKey() {
  const refresh = useRefreshAll();
  return useMutation({
    mutationFn: ({ profile, bits }: { profile: string; bits: number }) =>
      unwrap(commands.keyGenerate(profile, bits)),
    onSuccess: refresh,
  });
}

export function useDeleteKey() {
  const refresh = useRefreshAll();
  return useMutation({
    mutationFn: (profile: string) => unwrap(commands.keyDelete(profile)),
    onSuccess: refresh,
  });
}

export function useSetGatewayKey() {
  const refresh = useRefreshAll();
  return useMutation({
    mutationFn: ({ profile, text }: { profile: string; text: string }) =>
      unwrap(commands.gatewayKeySet(profile, text)),
    onSuccess: refresh,
  });
}

export function useSetToken() {
  const refresh = useRefreshAll();
  return useMutation({
    mutationFn: ({ profile, token }: { profile: string; token: string }) =>
      unwrap(commands.tokenSet(profile, token)),
    onSuccess: refresh,
  });
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
  const refresh = useRefreshAll();
  return useMutation({
    mutationFn: ({ profile, conventions }: { profile: string; conventions: Conventions }) =>
      unwrap(commands.conventionsSave(profile, conventions)),
    onSuccess: refresh,
  });
}

/// Reads a conventions file's text; nothing is saved.
export function useParseConventions() {
  return useMutation({ mutationFn: (text: string) => unwrap(commands.conventionsParse(text)) });
}

/// The sandbox's reading, saved as the profile's conventions.
export function useResetConventions() {
  const refresh = useRefreshAll();
  return useMutation({
    mutationFn: async (profile: string) => {
      const preset = await unwrap(commands.conventionsPreset());
      await unwrap(commands.conventionsSave(profile, preset));
      return preset;
    },
    onSuccess: refresh,
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
