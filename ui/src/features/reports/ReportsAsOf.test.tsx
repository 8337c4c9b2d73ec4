import { cleanup, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import { ReportsPage } from "./ReportsPage";

// 2026-03-04 05:06:07 UTC, shown in the test's own local time.
const LAST_SYNC = Date.UTC(2026, 2, 4, 5, 6, 7);
const two = (n: number) => String(n).padStart(2, "0");

beforeEach(() => {
  invoke.mockReset();
  invoke.mockImplementation((cmd: string) => {
    if (cmd === "dashboard") return Promise.resolve({ lastSync: LAST_SYNC });
    if (cmd === "report_settings")
      return Promise.resolve({ businessZone: "UTC", changeHorizonDays: 120 });
    if (cmd === "currencies") return Promise.resolve(["MXN"]);
    // The statement itself is not what this test reads.
    return Promise.reject(new Error(`not in this test: ${cmd}`));
  });
});
afterEach(cleanup);

describe("the Reports screen says as of which sync its figures are", () => {
  it("once, in the app's date format, with Sync now beside reading the days again", async () => {
    renderUi(<ReportsPage />);
    const local = new Date(LAST_SYNC);
    const when = `${local.getFullYear()}-${two(local.getMonth() + 1)}-${two(local.getDate())} ${two(local.getHours())}:${two(local.getMinutes())}:07`;
    const line = await screen.findByTestId("reports-as-of");
    await waitFor(() => expect(line.textContent).toContain(when));
    expect(screen.getAllByTestId("reports-as-of")).toHaveLength(1);
    // No second "as of" anywhere on the screen, in any format.
    const text = screen.getByTestId("screen-reports").textContent ?? "";
    expect(text.match(/as of/gi) ?? []).toHaveLength(1);
    expect(text.split(when)).toHaveLength(2);
    expect(screen.getByTestId("reports-cache-sync").textContent).toBe("Sync now");
    expect(screen.getByTestId("reports-refresh")).toBeTruthy();
  });
});
