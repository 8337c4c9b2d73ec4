// The team screen's queries: members, rules, and the signer's worker in the window.
import { useQuery } from "@tanstack/react-query";
import { commands } from "../../bindings";
import { useCommandMutation } from "../../lib/invalidate";
import type { CommandName } from "../../lib/invalidates";
import { unwrap } from "../../lib/ipc";
import type { RuleInput, TeamRole, WorkerSettings } from "../../lib/types";
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

/// A change to the team, refused or not: what its command declares is read again.
function useAdminMutation<V, T>(command: CommandName, fn: (v: V) => Promise<T>) {
  return useCommandMutation(command, fn, { evenOnError: true });
}

export function useMemberAdd() {
  return useAdminMutation(
    "teamMemberAdd",
    (v: { name: string; role: TeamRole; password: string }) =>
      unwrap(commands.teamMemberAdd(v.name, v.role, v.password)),
  );
}

export function useMemberRoles() {
  return useAdminMutation("teamMemberRoles", (v: { name: string; roles: TeamRole[] }) =>
    unwrap(commands.teamMemberRoles(v.name, v.roles)),
  );
}

export function useMemberPassword() {
  return useAdminMutation("teamMemberPassword", (v: { name: string; password: string }) =>
    unwrap(commands.teamMemberPassword(v.name, v.password)),
  );
}

export function useMemberRemove() {
  return useAdminMutation("teamMemberRemove", (name: string) =>
    unwrap(commands.teamMemberRemove(name)),
  );
}

export function useRuleSet() {
  return useAdminMutation("teamRuleSet", (rule: RuleInput) => unwrap(commands.teamRuleSet(rule)));
}

export function useRuleRemove() {
  return useAdminMutation("teamRuleRemove", (id: number) => unwrap(commands.teamRuleRemove(id)));
}

export function useDefaultSet() {
  return useAdminMutation("teamDefaultSet", (approvals: number) =>
    unwrap(commands.teamDefaultSet(approvals)),
  );
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
  return useAdminMutation("teamWorkerStart", (settings: WorkerSettings | null) =>
    unwrap(commands.teamWorkerStart(settings)),
  );
}

export function useWorkerStop() {
  return useAdminMutation("teamWorkerStop", () => unwrap(commands.teamWorkerStop()));
}
