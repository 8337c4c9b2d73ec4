// Members' payout limits per currency (issue 35), held by the team's database.
import { useQuery } from "@tanstack/react-query";
import { commands, type MemberLimit } from "../../bindings";
import { useCommandMutation } from "../../lib/invalidate";
import { unwrap } from "../../lib/ipc";
import { teamKeys } from "./keys";

export const memberLimitKeys = { all: [...teamKeys.all, "memberLimits"] as const };

export function useMemberLimits() {
  return useQuery({
    queryKey: memberLimitKeys.all,
    queryFn: () => unwrap(commands.teamLimits()),
  });
}

export function useMemberLimitSet() {
  return useCommandMutation(
    "teamLimitSet",
    (limit: MemberLimit) => unwrap(commands.teamLimitSet(limit)),
    { evenOnError: true },
  );
}
