import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { FileCheck, FileMatch } from "../../lib/types";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import { ReviewBatch } from "./ReviewBatch";

// The window's drop events: none in a unit test.
vi.mock("@tauri-apps/api/webview", () => ({
  getCurrentWebview: () => ({ onDragDropEvent: () => Promise.resolve(() => {}) }),
}));

const match = (path: string, m: Partial<FileMatch>): FileMatch => ({
  path,
  name: path.split("/").pop() ?? path,
  status: "unmatched",
  tradeNo: null,
  by: null,
  candidates: [],
  ...m,
});

const check = (path: string): FileCheck => ({
  path,
  name: path.split("/").pop() ?? path,
  suffix: ".png",
  size: 70,
  preview: null,
  pages: null,
});

describe("several orders' files", () => {
  beforeEach(() => {
    invoke.mockReset();
    invoke.mockImplementation(async (cmd: string, args: { paths?: string[]; path?: string }) => {
      if (cmd === "order_no_new") return "RV-1";
      if (cmd === "review_file_check") return check(args.path ?? "");
      if (cmd === "review_match") {
        return (args.paths ?? []).map((p) =>
          p.includes("T1_")
            ? match(p, { status: "matched", tradeNo: "T1", by: "tradeNo" })
            : p.includes("both")
              ? match(p, { status: "ambiguous", candidates: ["T1", "T2"] })
              : match(p, {}),
        );
      }
      return null;
    });
  });

  it("groups matched files by order, lists the ambiguous and unmatched, and gives an ambiguous one to the order chosen", async () => {
    renderUi(<ReviewBatch />);
    const path = screen.getByTestId("review-batch-path");
    for (const p of ["/f/T1_id.png", "/f/both T1 T2.png", "/f/holiday.png"]) {
      fireEvent.change(path, { target: { value: p } });
      fireEvent.click(screen.getByTestId("review-batch-add"));
      await waitFor(() => expect(invoke).toHaveBeenCalledWith("review_match", { paths: [p] }));
    }
    const group = await screen.findByTestId("review-group");
    expect(group.getAttribute("data-trade-no")).toBe("T1");
    await waitFor(() =>
      expect(
        within(group)
          .getAllByTestId("review-file")
          .map((f) => f.dataset.name),
      ).toEqual(["T1_id.png"]),
    );
    expect(screen.getByTestId("review-unmatched").textContent).toContain("holiday.png");
    const ambiguous = screen.getByTestId("review-ambiguous-file");
    expect(ambiguous.dataset.name).toBe("both T1 T2.png");

    // Given to T2: it leaves the ambiguous list for an order group of its own.
    const assign = within(ambiguous).getByTestId("review-assign");
    expect(assign.getAttribute("aria-label")).toBe("Order for both T1 T2.png");
    fireEvent.click(assign);
    fireEvent.click(await screen.findByRole("option", { name: "T2", hidden: true }));
    await waitFor(() => expect(screen.queryByTestId("review-ambiguous")).toBeNull());
    const groups = await screen.findAllByTestId("review-group");
    expect(groups.map((g) => g.dataset.tradeNo)).toEqual(["T1", "T2"]);
  });
});
