import { useMutation, useQuery } from "@tanstack/react-query";
import type { TFunction } from "i18next";
import { commands } from "../../bindings";
import { useCommandMutation } from "../../lib/invalidate";
import type { CommandName } from "../../lib/invalidates";
import { unwrap } from "../../lib/ipc";
import type {
  CardForm,
  PayinForm,
  PayoutForm,
  PgConfig,
  Purpose,
  RequestState,
  TeamRole,
  TeamStatus,
} from "../../lib/types";
import { teamKeys } from "./keys";

/// Other members' approvals and the signer's execution reach this desk by polling the
/// team's database: a waiting list a few seconds old at most.
export const LIVE_MS = 4_000;

/// The member on a team desk (`null` on a single desk).
export function useTeamStatus() {
  return useQuery({
    queryKey: teamKeys.status,
    queryFn: () => unwrap(commands.teamStatus()),
    staleTime: 30_000,
  });
}

/// How often a screen showing the team's audit chain alert asks the desk again: the desk
/// checks the chain on its own every minute (PAYDESK_TEAM_CHAIN_CHECK_SECONDS), so an
/// idle member's screen shows a cut history at most this long after the desk found it.
export const CHAIN_WATCH_MS = 10_000;

/// The member on a team desk, asked again every [`CHAIN_WATCH_MS`] until the desk
/// reports a problem with the team's audit chain (what the chain alert reads, on the
/// Dashboard as on the Team and Activity screens). A single desk (`null`) is not asked
/// again: it has no team chain, and its idle memory release waits for no command.
export function useTeamChainWatch() {
  return useQuery({
    queryKey: teamKeys.status,
    queryFn: () => unwrap(commands.teamStatus()),
    staleTime: 30_000,
    refetchInterval: (q) => (q.state.data && !q.state.data.chainProblem ? CHAIN_WATCH_MS : false),
  });
}

/// The seal key as the team's database holds it and as this desk trusts it.
export function useSealKey(enabled = true) {
  return useQuery({
    queryKey: teamKeys.sealKey,
    queryFn: () => unwrap(commands.teamSealKey()),
    enabled,
  });
}

/// Trusts the database's seal key, if its fingerprint is the one the member was given.
export function useTrustSealKey() {
  return useCommandMutation(
    "teamTrustSealKey",
    (fingerprint: string) => unwrap(commands.teamTrustSealKey(fingerprint)),
    { evenOnError: true },
  );
}

export function useRequests(states: readonly RequestState[], enabled = true) {
  return useQuery({
    queryKey: teamKeys.requests(states),
    queryFn: () => unwrap(commands.teamRequests([...states], 500)),
    refetchInterval: LIVE_MS,
    enabled,
  });
}

export function useRequest(id: number | null) {
  return useQuery({
    queryKey: teamKeys.request(id ?? 0),
    queryFn: () => unwrap(commands.teamRequest(id ?? 0)),
    enabled: id !== null,
    refetchInterval: LIVE_MS,
  });
}

/// A request or decision, refused or not: what its command declares is read again.
function useTeamMutation<V, T>(command: CommandName, fn: (v: V) => Promise<T>) {
  return useCommandMutation(command, fn, { evenOnError: true });
}

export function useApprove() {
  return useTeamMutation("teamApprove", (id: number) => unwrap(commands.teamApprove(id)));
}

export function useReject() {
  return useTeamMutation("teamReject", (v: { id: number; reason: string }) =>
    unwrap(commands.teamReject(v.id, v.reason)),
  );
}

export function useRequestPayout() {
  return useTeamMutation("teamRequestPayout", (form: PayoutForm) =>
    unwrap(commands.teamRequestPayout(form)),
  );
}

export function useRequestPayin() {
  return useTeamMutation("teamRequestPayin", (form: PayinForm) =>
    unwrap(commands.teamRequestPayin(form)),
  );
}

export function useRequestCard() {
  return useTeamMutation("teamRequestCard", (form: CardForm) =>
    unwrap(commands.teamRequestCard(form)),
  );
}

/// `purpose`: the batch's (issue 35), for the rows whose file gives none.
export function useRequestBulk() {
  return useTeamMutation("teamRequestBulk", (v: { path: string; purpose: Purpose | null }) =>
    unwrap(commands.teamRequestBulk(v.path, v.purpose)),
  );
}

export function useTeamTest() {
  return useMutation({
    mutationFn: (v: { profile: string; config: PgConfig; password: string }) =>
      unwrap(commands.teamTest(v.profile, v.config, v.password)),
  });
}

/// `paydesk team init` from the window: the owner creates or upgrades the team's schema.
export function useTeamInit() {
  return useMutation({
    mutationFn: (v: { profile: string; config: PgConfig; password: string }) =>
      unwrap(commands.teamInit(v.profile, v.config, v.password)),
  });
}

export function useTeamPasswordSet() {
  return useCommandMutation("teamPasswordSet", (v: { profile: string; password: string }) =>
    unwrap(commands.teamPasswordSet(v.profile, v.password)),
  );
}

/// What this desk may do, as the team's database says: whether it talks to the gateway
/// (a single desk, or a team desk holding the merchant key) and the member's roles.
/// `reason` says why an action is closed, for the screens to show next to it.
export interface Access {
  /// `null` on a single desk; undefined while it is read.
  team: TeamStatus | null | undefined;
  gateway: boolean;
  /// Money moves only as a request on a team desk, a signer's too (four eyes bind the
  /// key holder); a single desk sends itself.
  moneyAsRequest: boolean;
  has: (role: TeamRole) => boolean;
  reason: (t: TFunction) => string | undefined;
}

export function access(team: TeamStatus | null | undefined): Access {
  const gateway = team === null || team === undefined || team.holdsKey;
  return {
    team,
    gateway,
    moneyAsRequest: team !== null && team !== undefined,
    has: (role) => team === null || team === undefined || team.roles.includes(role),
    reason: (t) =>
      gateway
        ? undefined
        : t("team.noKey", {
            roles: team?.roles.map((r) => t(`team.role.${r}`)).join(", "),
          }),
  };
}

export function useAccess(): Access {
  return access(useTeamStatus().data);
}
