import { fireEvent, screen, waitFor } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import type { TeamStatus } from "../../lib/types";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import { MemberLimitsCard } from "./MemberLimitsCard";

const team = (roles: TeamStatus["roles"]): TeamStatus => ({
  user: "adm",
  roles,
  merNo: 10001,
  idleLockMinutes: 15,
  holdsKey: false,
  host: "db.example",
  port: 5432,
  database: "team",
});

const kept = [
  {
    member: "mia",
    currency: "MXN",
    perPayout: "1000",
    perDay: null,
    dayZone: "America/Mexico_City",
    setBy: "adm",
  },
];

describe("members' payout limits", () => {
  beforeEach(() => {
    invoke.mockReset();
    invoke.mockImplementation((cmd: string, args: Record<string, unknown>) => {
      if (cmd === "team_limits") return Promise.resolve(kept);
      if (cmd === "team_limit_set") {
        const l = args.limit as { perPayout: string | null };
        return l.perPayout === "-1"
          ? Promise.reject({
              code: "validation",
              field: "limits.0.perPayout",
              rule: 'must be an amount above zero, got "-1"',
            })
          : Promise.resolve(null);
      }
      return Promise.reject({ code: "internal", message: `unexpected ${cmd}` });
    });
  });

  it("lists each member's limits and lets an admin set one, the amount's rule on its field", async () => {
    renderUi(<MemberLimitsCard team={team(["admin"])} />);
    const table = await screen.findByTestId("member-limits-table");
    expect(table.textContent).toContain("mia");
    expect(table.textContent).toContain("MXN: 1000 per payout, none per day");
    fireEvent.change(screen.getByLabelText("Member"), { target: { value: "mia" } });
    fireEvent.change(screen.getByLabelText("Per payout"), { target: { value: "-1" } });
    fireEvent.click(screen.getByRole("button", { name: "Save limits" }));
    await waitFor(() =>
      expect(screen.getByLabelText("Per payout").getAttribute("aria-invalid")).toBe("true"),
    );
    expect(screen.getAllByText(/must be an amount above zero/).length).toBeGreaterThan(0);
    const sent = invoke.mock.calls.find(([c]) => c === "team_limit_set")?.[1] as {
      limit: Record<string, unknown>;
    };
    expect(sent.limit).toMatchObject({ member: "mia", currency: "MXN", perPayout: "-1" });
  });

  it("shows a member who is not an admin the limits and no form", async () => {
    renderUi(<MemberLimitsCard team={team(["maker"])} />);
    await screen.findByTestId("member-limits-table");
    expect(screen.queryByRole("button", { name: "Save limits" })).toBeNull();
    expect(invoke.mock.calls.some(([c]) => c === "team_limit_set")).toBe(false);
  });
});
