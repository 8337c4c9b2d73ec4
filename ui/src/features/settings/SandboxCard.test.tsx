import { fireEvent, screen, waitFor } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import { SandboxCard } from "./SandboxCard";

// Issue 32: `paydesk sandbox --seed-orders` for the app's built-in sandbox. The count
// typed is sent; the answer (how many were added) is said; a refusal lands on its field.
describe("Settings: the built-in sandbox", () => {
  beforeEach(() => {
    invoke.mockReset();
    invoke.mockImplementation(async (cmd: string, args: Record<string, unknown>) => {
      if (cmd === "sandbox_seed") {
        if (Number(args.count) > 100_000)
          throw { code: "validation", field: "count", rule: "must be 1 to 100000 orders" };
        return args.count;
      }
      throw new Error(`unexpected command ${cmd}`);
    });
  });

  it("adds the demo orders asked for and says how many", async () => {
    renderUi(<SandboxCard />);
    fireEvent.change(screen.getByTestId("sandbox-seed-count"), { target: { value: "250" } });
    fireEvent.click(screen.getByTestId("sandbox-seed"));
    expect((await screen.findByTestId("sandbox-seeded")).textContent).toContain("250 demo orders");
    expect(invoke.mock.calls.filter(([c]) => c === "sandbox_seed").map(([, a]) => a)).toEqual([
      { count: 250 },
    ]);
    fireEvent.change(screen.getByTestId("sandbox-seed-count"), { target: { value: "200000" } });
    fireEvent.click(screen.getByTestId("sandbox-seed"));
    await waitFor(() => expect(document.body.textContent).toContain("must be 1 to 100000 orders"));
  });
});
