import { fireEvent, screen, waitFor } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { beforeEach, describe, expect, it } from "vitest";
import type { RequestView, TeamStatus } from "../../lib/types";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import { ApprovalsPage, beneficiaryOf } from "./ApprovalsPage";
import { access } from "./queries";

const approver: TeamStatus = {
  user: "ana",
  roles: ["approver"],
  merNo: 10001,
  idleLockMinutes: 15,
  holdsKey: false,
  host: "db.example",
  port: 5432,
  database: "team",
};

function request(id: number, maker: string, extra: Partial<RequestView> = {}): RequestView {
  return {
    request: {
      id,
      operation: "payout",
      currency: "MXN",
      total: "150000.00",
      rowCount: 1,
      summary: "150000.00 MXN to CLABE 0021********1234 Ana López",
      source: null,
      maker,
      approvalsNeeded: 2,
      decisions: [],
      state: "waiting",
      createdAt: 1_795_000_000_000,
      decidedAt: null,
      claimedBy: null,
      finishedAt: null,
      outcome: null,
    },
    rule: {
      id: 1,
      operation: "payout",
      currency: "MXN",
      above: "100000",
      approvals: 2,
      createdBy: "root",
    },
    approvals: 0,
    mine: maker === "ana",
    decidedByMe: false,
    ...extra,
  };
}

function mock(team: TeamStatus | null, requests: RequestView[]) {
  invoke.mockImplementation((cmd: string, args: Record<string, unknown>) => {
    if (cmd === "team_status") return Promise.resolve(team);
    if (cmd === "team_requests") return Promise.resolve(requests);
    if (cmd === "team_approve") return Promise.resolve(requests[0]);
    if (cmd === "team_reject") {
      const reason = String(args.reason ?? "");
      return reason.length < 3
        ? Promise.reject({
            code: "validation",
            field: "reason",
            rule: "a rejection says why, in 3 characters at least",
          })
        : Promise.resolve(requests[0]);
    }
    return Promise.reject({ code: "internal", message: `unexpected ${cmd}` });
  });
}

const page = () =>
  renderUi(
    <MemoryRouter>
      <ApprovalsPage />
    </MemoryRouter>,
  );

describe("the approvals screen", () => {
  beforeEach(() => {
    invoke.mockReset();
  });

  it("shows the maker, the masked beneficiary and the rule that applies, and approves", async () => {
    mock(approver, [request(7, "mia")]);
    page();
    const rule = await screen.findByTestId("rule-7");
    expect(rule.textContent).toBe("Payouts in MXN above MXN 100,000.00: 2 approvers");
    expect(screen.getByTestId("summary-7").textContent).toContain("0021********1234");
    expect(screen.getByTestId("approvals-7").textContent).toBe("0 of 2");
    fireEvent.click(screen.getByTestId("approve-7"));
    await waitFor(() =>
      expect(invoke.mock.calls.some(([c, a]) => c === "team_approve" && a.id === 7)).toBe(true),
    );
  });

  it("closes the decision on one's own request, saying why (four eyes)", async () => {
    mock(approver, [request(8, "ana")]);
    page();
    const approve = await screen.findByTestId("approve-8");
    expect((approve as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByTestId("closed-8").textContent).toContain("four eyes");
  });

  it("closes the decision to a member who is not an approver", async () => {
    mock({ ...approver, roles: ["maker"] }, [request(9, "mia")]);
    page();
    const approve = await screen.findByTestId("approve-9");
    expect((approve as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByTestId("closed-9").textContent).toContain("maker");
  });

  it("asks a reason to reject, and shows the rule it broke under the field", async () => {
    mock(approver, [request(10, "mia")]);
    page();
    fireEvent.click(await screen.findByTestId("reject-10"));
    const reason = await screen.findByTestId("reject-reason");
    fireEvent.change(reason, { target: { value: "no" } });
    fireEvent.click(screen.getByTestId("reject-confirm"));
    await screen.findByText("a rejection says why, in 3 characters at least");
    fireEvent.change(reason, { target: { value: "wrong account" } });
    fireEvent.click(screen.getByTestId("reject-confirm"));
    await waitFor(() =>
      expect(
        invoke.mock.calls.some(([c, a]) => c === "team_reject" && a.reason === "wrong account"),
      ).toBe(true),
    );
  });

  it("on a single desk, says approvals belong to a team profile", async () => {
    mock(null, []);
    page();
    await screen.findByTestId("approvals-single-desk");
  });
});

describe("the beneficiary column", () => {
  it("shows a payout's beneficiary without the amount, and a file's summary as it is", () => {
    expect(beneficiaryOf("12500.50 MXN to CLABE 002010********7771 (BANAMEX)")).toBe(
      "CLABE 002010********7771 (BANAMEX)",
    );
    expect(beneficiaryOf("payroll.csv: 40 rows")).toBe("payroll.csv: 40 rows");
  });
});

describe("what a desk may do", () => {
  it("opens the gateway to a single desk and to a team desk holding the key only", () => {
    expect(access(null).gateway).toBe(true);
    expect(access({ ...approver, holdsKey: true }).gateway).toBe(true);
    const maker = access({ ...approver, roles: ["maker"] });
    expect(maker.gateway).toBe(false);
    expect(maker.has("maker")).toBe(true);
    expect(maker.has("approver")).toBe(false);
  });
});
