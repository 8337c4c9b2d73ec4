import { fireEvent, screen, waitFor } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { beforeEach, describe, expect, it } from "vitest";
import type { TeamMember, TeamStatus } from "../../lib/types";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import { TeamPage } from "./TeamPage";

const admin: TeamStatus = {
  user: "adm",
  roles: ["admin"],
  merNo: 10001,
  idleLockMinutes: 15,
  holdsKey: false,
  host: "db.example",
  port: 5432,
  database: "team",
};

const members: TeamMember[] = [
  { name: "adm", roles: ["admin"], addedBy: "owner", addedAt: 1_795_000_000_000 },
  { name: "mia", roles: ["maker", "approver"], addedBy: "adm", addedAt: 1_795_000_000_000 },
];

const SEAL = "ab12".repeat(16);

function mock(team: TeamStatus) {
  invoke.mockImplementation((cmd: string, args: Record<string, unknown>) => {
    if (cmd === "team_status") return Promise.resolve(team);
    if (cmd === "team_members") return Promise.resolve(members);
    if (cmd === "team_rules") return Promise.resolve({ rules: [], defaultApprovals: 1 });
    if (cmd === "team_requests") return Promise.resolve([]);
    if (cmd === "team_worker_status")
      return Promise.resolve({
        running: false,
        stopping: false,
        profile: null,
        startedAt: null,
        requests: 0,
        accepted: 0,
        rejected: 0,
        failed: 0,
        unknown: 0,
        recent: [],
        lastError: null,
        ended: null,
        settings: { pollSecs: 5, syncEveryMins: 5, syncDays: 30 },
      });
    if (cmd === "team_worker_start") {
      const settings = args.settings as { pollSecs: number } | null;
      return settings && settings.pollSecs > 3600
        ? Promise.reject({
            code: "validation",
            field: "pollSecs",
            rule: "must be between 1 and 3600 seconds",
          })
        : Promise.reject({ code: "validation", field: "team", rule: "not started in this test" });
    }
    if (cmd === "team_seal_key") return Promise.resolve({ database: SEAL, trusted: null });
    if (cmd === "team_trust_seal_key")
      return String(args.fingerprint)
        .replace("SHA256:", "")
        .replaceAll(":", "")
        .startsWith(SEAL.slice(0, 16))
        ? Promise.resolve(SEAL)
        : Promise.reject({
            code: "validation",
            field: "fingerprint",
            rule: `the team's database holds key ${SEAL}, not the one you were given`,
          });
    if (cmd === "team_member_add")
      return Promise.reject({
        code: "validation",
        field: "team",
        rule: `member ${String(args.name)}: a role of the cluster that is not a member`,
      });
    return Promise.reject({ code: "internal", message: `unexpected ${cmd}` });
  });
}

const page = () =>
  renderUi(
    <MemoryRouter>
      <TeamPage />
    </MemoryRouter>,
  );

describe("the team screen", () => {
  beforeEach(() => {
    invoke.mockReset();
  });

  it("lists the members with their roles and shows the database's refusal in its words", async () => {
    mock(admin);
    page();
    const roles = await screen.findByTestId("member-roles-mia");
    expect(roles.getAttribute("data-roles")).toBe("maker,approver");
    fireEvent.change(screen.getByTestId("member-add-name"), { target: { value: "postgres" } });
    fireEvent.change(screen.getByTestId("member-add-password"), {
      target: { value: "a-long-password" },
    });
    fireEvent.click(screen.getByTestId("member-add"));
    const error = await screen.findByTestId("member-add-error");
    expect(error.textContent).toContain(
      "member postgres: a role of the cluster that is not a member",
    );
    expect(
      invoke.mock.calls.some(
        ([c, a]) => c === "team_member_add" && a.name === "postgres" && a.role === "viewer",
      ),
    ).toBe(true);
  });

  // Issue 30: a desk that found the team's audit chain cut or rewritten says so in red,
  // with the desk's own words for what it found; a chain that holds shows nothing.
  it("shows the team's audit chain problem as a red alert", async () => {
    const why = "the team's audit chain was cut: this desk verified 12 rows, it ends at row 10";
    mock({ ...admin, chainProblem: why });
    page();
    const alert = await screen.findByTestId("team-chain-problem");
    expect(alert.textContent).toContain(why);
    expect(alert.textContent).toContain("cut or rewritten");
    expect(alert.getAttribute("role")).toBe("alert");
  });

  it("shows no chain alert when the chain holds", async () => {
    mock({ ...admin, chainProblem: null });
    page();
    await screen.findByTestId("member-roles-mia");
    expect(screen.queryByTestId("team-chain-problem")).toBeNull();
  });

  // Issue 30: a maker's desk seals nothing before its member trusts the seal key; the
  // Team screen shows the database's key and trusts it only with the fingerprint given.
  it("trusts the seal key only with the fingerprint the member was given", async () => {
    mock({ ...admin, user: "mia", roles: ["maker"] });
    page();
    expect((await screen.findByTestId("seal-key-fingerprint")).textContent).toBe(SEAL);
    expect(screen.getByTestId("seal-key-state").textContent).toContain("Not trusted");
    fireEvent.change(screen.getByTestId("seal-key-given"), {
      target: { value: "ffffffffffffffff" },
    });
    fireEvent.click(screen.getByTestId("seal-key-trust"));
    await waitFor(() => expect(document.body.textContent).toContain("not the one you were given"));
    fireEvent.change(screen.getByTestId("seal-key-given"), {
      target: { value: `SHA256:${SEAL.slice(0, 16).match(/../g)?.join(":")}` },
    });
    fireEvent.click(screen.getByTestId("seal-key-trust"));
    await waitFor(() =>
      expect(
        invoke.mock.calls
          .filter(([c]) => c === "team_trust_seal_key")
          .map(([, a]) => a.fingerprint),
      ).toEqual(["ffffffffffffffff", "SHA256:ab:12:ab:12:ab:12:ab:12"]),
    );
  });

  // Issue 32: the worker's settings of `paydesk team worker` (--poll-secs,
  // --sync-every-mins, --sync-days), shown with the defaults the app reports, sent as
  // the person set them, and a refused one shown on its field.
  it("starts the signer's worker with the settings the person set", async () => {
    mock({ ...admin, user: "sam", roles: ["signer"], holdsKey: true });
    page();
    const poll = (await screen.findByTestId("worker-pollSecs")) as HTMLInputElement;
    expect(poll.value).toBe("5");
    expect((screen.getByTestId("worker-syncEveryMins") as HTMLInputElement).value).toBe("5");
    expect((screen.getByTestId("worker-syncDays") as HTMLInputElement).value).toBe("30");
    fireEvent.change(screen.getByTestId("worker-syncEveryMins"), { target: { value: "0" } });
    fireEvent.change(screen.getByTestId("worker-syncDays"), { target: { value: "7" } });
    fireEvent.change(poll, { target: { value: "4000" } });
    fireEvent.click(screen.getByTestId("worker-start"));
    await waitFor(() =>
      expect(
        invoke.mock.calls.filter(([c]) => c === "team_worker_start").map(([, a]) => a.settings),
      ).toEqual([{ pollSecs: 4000, syncEveryMins: 0, syncDays: 7 }]),
    );
    await waitFor(() => expect(document.body.textContent).toContain("between 1 and 3600 seconds"));
  });

  it("closes the changes to a member who is not an admin, saying why, and asks nothing", async () => {
    mock({ ...admin, user: "mia", roles: ["maker"] });
    page();
    const remove = await screen.findByTestId("member-action-remove-adm");
    expect((remove as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByTestId("team-not-admin").textContent).toContain("maker");
    expect(screen.queryByTestId("member-add")).toBeNull();
    expect(screen.queryByTestId("rule-set")).toBeNull();
    expect(screen.getByTestId("worker-closed").textContent).toContain("Only a signer");
    await waitFor(() => expect(screen.queryByTestId("rules-empty")).not.toBeNull());
    expect(invoke.mock.calls.some(([c]) => String(c).startsWith("team_member_"))).toBe(false);
  });
});
