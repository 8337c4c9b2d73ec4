// The Activity screen opens with the view it used last (issue 36): its search applied to
// the log's query, its columns in its order, its sort, its dates as the desk resolved them.
import { cleanup, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import { ActivityPage } from "./ActivityPage";

const DAY = 86_400_000;
/// The view's "today", as the desk resolved it in the business's zone.
const TODAY = { from: 1_795_000_000_000, to: 1_795_000_000_000 + DAY };

const row = (id: number, at: number, result: string) => ({
  id,
  at,
  profile: "acme",
  operator: "ana",
  operation: "v2.payout",
  identifiers: `merOrderNo=PO-${id}`,
  result,
  latencyMs: 12,
  prevHash: "",
  hash: "",
  dbUser: null,
});

const LAST = {
  id: 7,
  screen: "activity",
  name: "Failed today",
  spec: {
    orderFilter: null,
    fields: { operation: "", text: "PO-" },
    dates: { kind: "relative", range: "today" },
    columns: [
      { id: "result", width: 200 },
      { id: "id", width: null },
    ],
    sort: { key: "id", descending: false },
  },
  shared: false,
  owner: null,
  mine: true,
  ...TODAY,
};

describe("the activity screen's views", () => {
  afterEach(() => {
    cleanup();
    vi.restoreAllMocks();
  });

  it("opens with the last view: its search, columns, dates and sort", async () => {
    // The table's rows are a virtual window over its scroll area: give it a height (jsdom
    // lays nothing out).
    vi.spyOn(Element.prototype, "clientHeight", "get").mockReturnValue(400);
    invoke.mockReset();
    invoke.mockImplementation((cmd: string) => {
      if (cmd === "view_last") return Promise.resolve(LAST);
      if (cmd === "views_list") return Promise.resolve([LAST]);
      if (cmd === "audit_list")
        return Promise.resolve([
          row(3, TODAY.from + 3_000, "ok"),
          row(2, TODAY.from - 1, "E42"),
          row(1, TODAY.from + 1_000, "E42"),
        ]);
      if (cmd === "audit_verify")
        return Promise.resolve({
          rows: 3,
          ok: true,
          brokenAt: null,
          problem: null,
          keyedFrom: null,
          anchoredRows: null,
          alert: null,
        });
      if (cmd === "team_status" || cmd === "default_export_path") return Promise.resolve(null);
      return Promise.resolve([]);
    });
    renderUi(<ActivityPage />);
    await waitFor(() =>
      expect(screen.getByTestId("views-activity").getAttribute("data-selected")).toBe(
        "Failed today",
      ),
    );
    const table = await screen.findByTestId("audit-table");
    await waitFor(() =>
      expect([...table.querySelectorAll("th")].map((th) => th.textContent)).toEqual([
        "Result",
        "#",
      ]),
    );
    // Yesterday's row (one millisecond before today) is outside the view's dates.
    const ids = within(table)
      .getAllByTestId("audit-row")
      .map((r) => r.querySelectorAll("td")[1]?.textContent);
    expect(ids).toEqual(["1", "3"]);
    expect((table.querySelector("th") as HTMLElement).style.width).toBe("200px");
    expect((screen.getByTestId("audit-search") as HTMLInputElement).value).toBe("PO-");
    // The view's search reaches the log's query (after the field's debounce).
    await waitFor(() =>
      expect(
        invoke.mock.calls.some(([c, a]) => c === "audit_list" && JSON.stringify(a).includes("PO-")),
      ).toBe(true),
    );
  });
});
