import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { commands } from "../../bindings";
import { unwrap } from "../../lib/ipc";
import type { Profile } from "../../lib/types";
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
    onSuccess: () => {
      qc.removeQueries({ predicate: (q) => q.queryKey[0] !== settingsKeys.all[0] });
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
