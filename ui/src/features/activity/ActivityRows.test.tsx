// The Activity screen draws only the rows in view of the up to 500 it reads (issue 34: all
// of them took most of a second), and shows them before the chain's check answers, which
// it never claims before the answer.
import { cleanup, fireEvent, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import { ActivityPage } from "./ActivityPage";

const N = 500;
const rows = Array.from({ length: N }, (_, i) => ({
  id: N - i,
  at: Date.now() - i * 1_000,
  profile: "acme",
  operator: "ana",
  operation: "v2.payout",
  identifiers: `merOrderNo=PO-${N - i}`,
  result: "ok",
  latencyMs: 12,
  prevHash: "",
  hash: "",
  dbUser: null,
}));

describe("the activity table", () => {
  afterEach(() => {
    cleanup();
    vi.restoreAllMocks();
  });

  it("draws a window of the rows, the rows before the chain's check, and scrolls to the last", async () => {
    // jsdom lays nothing out: the scroll area 400 px high, each row drawn 40 px high.
    vi.spyOn(Element.prototype, "clientHeight", "get").mockReturnValue(400);
    vi.spyOn(HTMLElement.prototype, "offsetHeight", "get").mockReturnValue(40);
    invoke.mockReset();
    invoke.mockImplementation((cmd: string) => {
      if (cmd === "audit_list") return Promise.resolve(rows);
      // The check of the chain has not answered yet.
      if (cmd === "audit_verify") return new Promise(() => {});
      if (cmd === "view_last" || cmd === "team_status" || cmd === "default_export_path")
        return Promise.resolve(null);
      return Promise.resolve([]);
    });
    renderUi(<ActivityPage />);
    const first = await screen.findAllByTestId("audit-row");
    // The newest row first; far fewer than the 500 rows read are in the document.
    expect(first[0]?.querySelector("td")?.textContent).toBe(String(N));
    expect(first.length).toBeGreaterThan(5);
    expect(first.length).toBeLessThan(60);
    // No verdict on the chain while its check runs.
    expect(screen.queryByTestId("audit-chain")).toBeNull();
    // Scrolled to the bottom, the oldest row is drawn and the newest no longer.
    const viewport = screen
      .getByTestId("audit-table")
      .closest(".mantine-ScrollArea-viewport") as HTMLElement;
    viewport.scrollTop = 100_000;
    fireEvent.scroll(viewport);
    await waitFor(() => {
      const ids = screen.getAllByTestId("audit-row").map((r) => r.querySelector("td")?.textContent);
      expect(ids).toContain("1");
      expect(ids).not.toContain(String(N));
    });
  });
});
