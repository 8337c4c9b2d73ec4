import { cleanup, fireEvent, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import { ArchivedLogs } from "./ArchivedLogs";

const row = (id: number, operation: string) => ({
  id,
  at: 1_795_000_000_000 + id,
  profile: "acme",
  operator: "ana",
  operation,
  identifiers: `merOrderNo=PO-${id}`,
  result: "ok",
  latencyMs: 12,
  prevHash: "",
  hash: "",
  dbUser: null,
});

function answer(archives: unknown[]) {
  invoke.mockReset();
  invoke.mockImplementation((cmd: string, args?: { archive?: number }) => {
    if (cmd === "audit_archives") return Promise.resolve(archives);
    if (cmd === "audit_archived_rows")
      return Promise.resolve(
        args?.archive === 1 ? [row(2, "v2.payout"), row(1, "v2.balance.query")] : [],
      );
    return Promise.resolve(null);
  });
}

describe("audit logs set aside after their key was lost", () => {
  afterEach(cleanup);

  it("are named as not checkable, and their rows can be read", async () => {
    answer([{ archive: 1, archivedAt: 1_795_000_100_000, rows: 2, sealedRows: 2, reason: "lost" }]);
    renderUi(<ArchivedLogs />);
    const archive = await screen.findByTestId("audit-archive");
    expect(archive.textContent).toContain("Archive 1: 2 rows");
    expect(archive.textContent).toContain("can no longer be checked");
    expect(screen.queryByTestId("audit-archive-rows")).toBeNull();
    fireEvent.click(screen.getByTestId("audit-archive-toggle"));
    await waitFor(() => expect(screen.getAllByTestId("audit-archive-row")).toHaveLength(2));
    const ids = screen.getAllByTestId("audit-archive-row").map((r) => r.firstChild?.textContent);
    expect(ids).toEqual(["2", "1"]);
    expect(screen.getByTestId("audit-archive-rows").textContent).toContain("merOrderNo=PO-2");
    expect(invoke).toHaveBeenCalledWith("audit_archived_rows", { archive: 1, limit: 500 });
  });

  it("show nothing while no log was set aside", async () => {
    answer([]);
    const { container } = renderUi(<ArchivedLogs />);
    await waitFor(() => expect(invoke.mock.calls.some(([c]) => c === "audit_archives")).toBe(true));
    await new Promise((r) => setTimeout(r, 50));
    expect(container.querySelector('[data-testid="audit-archives"]')).toBeNull();
  });
});
