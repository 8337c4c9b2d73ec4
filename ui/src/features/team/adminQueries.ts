// The team screen's queries: members, rules, and the signer's worker in the window.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { commands } from "../../bindings";
import { unwrap } from "../../lib/ipc";
import type { RuleInput, TeamRole } from "../../lib/types";
import { teamKeys } from "./keys";

export const adminKeys = {
  members: [...teamKeys.all, "members"] as const,
  rules: [...teamKeys.all, "rules"] as const,
  worker: [...teamKeys.all, "worker"] as const,
};

export function useMembers(enabled: boolean) {
  return useQuery({
    queryKey: adminKeys.members,
    queryFn: () => unwrap(commands.teamMembers()),
    enabled,
  });
}

export function useRules(enabled: boolean) {
  return useQuery({
    queryKey: adminKeys.rules,
    queryFn: () => unwrap(commands.teamRules()),
    enabled,
  });
}

function useAdminMutation<V, T>(fn: (v: V) => Promise<T>) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSettled: () => qc.invalidateQueries({ queryKey: teamKeys.all }),
  });
}

export function useMemberAdd() {
  return useAdminMutation((v: { name: string; role: TeamRole; password: string }) =>
    unwrap(commands.teamMemberAdd(v.name, v.role, v.password)),
  );
}

export function useMemberRoles() {
  return useAdminMutation((v: { name: string; roles: TeamRole[] }) =>
    unwrap(commands.teamMemberRoles(v.name, v.roles)),
  );
}

export function useMemberPassword() {
  return useAdminMutation((v: { name: string; password: string }) =>
    unwrap(commands.teamMemberPassword(v.name, v.password)),
  );
}

export function useMemberRemove() {
  return useAdminMutation((name: string) => unwrap(commands.teamMemberRemove(name)));
}

export function useRuleSet() {
  return useAdminMutation((rule: RuleInput) => unwrap(commands.teamRuleSet(rule)));
}

export function useRuleRemove() {
  return useAdminMutation((id: number) => unwrap(commands.teamRuleRemove(id)));
}

export function useDefaultSet() {
  return useAdminMutation((approvals: number) => unwrap(commands.teamDefaultSet(approvals)));
}

/// The worker's progress: every second while it runs.
export function useWorker(enabled: boolean) {
  return useQuery({
    queryKey: adminKeys.worker,
    queryFn: () => unwrap(commands.teamWorkerStatus()),
    enabled,
    refetchInterval: (q) => (q.state.data?.running ? 1_000 : 5_000),
  });
}

export function useWorkerStart() {
  return useAdminMutation(() => unwrap(commands.teamWorkerStart()));
}

export function useWorkerStop() {
  return useAdminMutation(() => unwrap(commands.teamWorkerStop()));
}
