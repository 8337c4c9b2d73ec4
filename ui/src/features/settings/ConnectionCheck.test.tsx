import { fireEvent, screen, waitFor } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { ConnectionCheck } from "../../lib/types";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import { ConnectionCheckModal } from "./ConnectionCheck";

const RESULT: ConnectionCheck = {
  profile: "acme",
  baseUrl: "https://gw.example/",
  ok: false,
  items: [
    {
      what: "balance",
      outcome: "works",
      detail: "a signed balance query of USD was accepted (code 00000)",
      setting: null,
    },
    {
      what: "pageSize",
      outcome: "fails",
      detail: "the order list is refused with pages of 500 orders and answers with pages of 10",
      setting: "conventions.maxPageSize",
    },
    {
      what: "signature",
      outcome: "note",
      detail: "no gateway public key is stored, so signed answers are not verified",
      setting: "gatewayKey",
    },
  ],
};

describe("the connection check", () => {
  beforeEach(() => {
    invoke.mockReset();
  });

  it("runs as it opens, with progress, then shows each finding with its outcome and setting", async () => {
    let answer: (r: ConnectionCheck) => void = () => {};
    invoke.mockImplementation(
      (cmd: string) =>
        new Promise((resolve, reject) => {
          if (cmd === "profile_check") answer = resolve;
          else reject(new Error(cmd));
        }),
    );
    const onSetting = vi.fn();
    renderUi(<ConnectionCheckModal profile="acme" onClose={() => {}} onSetting={onSetting} />);
    expect(await screen.findByTestId("check-running")).toBeTruthy();
    expect(invoke).toHaveBeenCalledWith("profile_check", { profile: "acme", currency: null });
    answer(RESULT);

    await waitFor(() => expect(screen.getAllByTestId("check-item")).toHaveLength(3));
    expect(screen.queryByTestId("check-running")).toBeNull();
    const items = screen.getAllByTestId("check-item");
    expect(items.map((i) => [i.dataset.what, i.dataset.outcome])).toEqual([
      ["balance", "works"],
      ["pageSize", "fails"],
      ["signature", "note"],
    ]);
    expect(items[0]?.textContent).toContain("Works");
    expect(items[1]?.textContent).toContain("Fails");
    expect(items[1]?.textContent).toContain("answers with pages of 10");
    expect(items[2]?.textContent).toContain("Note");
    expect(screen.getByTestId("check-summary").dataset.ok).toBe("false");
    // A finding's setting is named by its label and opens where it is changed.
    const settings = screen.getAllByTestId("check-setting");
    expect(settings.map((s) => s.textContent)).toEqual([
      "Change: Largest page (orders) (maxPageSize)",
      "Change: gateway public key",
    ]);
    fireEvent.click(settings[0] as HTMLElement);
    expect(onSetting).toHaveBeenCalledWith("acme", "conventions.maxPageSize");
  });
});
