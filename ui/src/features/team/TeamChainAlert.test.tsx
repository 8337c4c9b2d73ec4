import { act, cleanup, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { TeamStatus } from "../../lib/types";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import { CHAIN_WATCH_MS } from "./queries";
import { TeamChainAlert } from "./TeamChainAlert";

const viewer: TeamStatus = {
  user: "vic",
  roles: ["viewer"],
  merNo: 10001,
  idleLockMinutes: 15,
  holdsKey: false,
  host: "db.example",
  port: 5432,
  database: "team",
  chainProblem: null,
};

beforeEach(() => {
  vi.useFakeTimers({ shouldAdvanceTime: true });
  invoke.mockReset();
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

function statusCalls() {
  return invoke.mock.calls.filter(([c]) => c === "team_status").length;
}

// Issue 30 (F7): an idle team desk checks the team's audit chain on its own; the alert a
// member's open screen shows asks the desk again, so a cut history found while nobody
// touches the window appears without a click.
describe("the team's audit chain alert", () => {
  it("appears on an idle screen once the desk's own check finds a cut", async () => {
    const why = "the team's audit chain was cut: this desk verified 12 rows, it ends at row 10";
    let status: TeamStatus = viewer;
    invoke.mockImplementation((cmd: string) =>
      Promise.resolve(cmd === "team_status" ? status : null),
    );
    renderUi(<TeamChainAlert />);
    await vi.waitFor(() => expect(statusCalls()).toBe(1));
    expect(screen.queryByTestId("team-chain-problem")).toBeNull();
    // The desk's timer found the cut; nobody clicks anything.
    status = { ...viewer, chainProblem: why };
    await act(() => vi.advanceTimersByTimeAsync(CHAIN_WATCH_MS + 100));
    const alert = await screen.findByTestId("team-chain-problem");
    expect(alert.textContent).toContain(why);
    expect(alert.getAttribute("role")).toBe("alert");
    // Once shown it stays, and the desk is not asked again for it.
    const asked = statusCalls();
    await act(() => vi.advanceTimersByTimeAsync(3 * CHAIN_WATCH_MS));
    expect(statusCalls()).toBe(asked);
    expect(screen.getByTestId("team-chain-problem").textContent).toContain(why);
  });

  it("asks a single desk once: it has no team chain", async () => {
    invoke.mockResolvedValue(null);
    renderUi(<TeamChainAlert />);
    await vi.waitFor(() => expect(statusCalls()).toBe(1));
    await act(() => vi.advanceTimersByTimeAsync(3 * CHAIN_WATCH_MS));
    expect(statusCalls()).toBe(1);
    expect(screen.queryByTestId("team-chain-problem")).toBeNull();
  });
});
