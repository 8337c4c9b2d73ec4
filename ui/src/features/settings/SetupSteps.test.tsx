import { cleanup, fireEvent, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import { SetupSteps } from "./SetupSteps";

const FP = "SHA256:0a:1b:2c";

/// What the backend keeps per profile, as the `setup_marks` command does.
let kept: Record<string, { publicKeyGiven: string | null; checkPassed: boolean | null }>;

beforeEach(() => {
  kept = {};
  localStorage.clear();
  invoke.mockReset();
  invoke.mockImplementation((cmd: string, args: Record<string, unknown>) => {
    if (cmd === "keys")
      return Promise.resolve({
        merchant: { fingerprint: FP, bits: 2048, publicPem: "" },
        gateway: null,
        hasToken: false,
      });
    if (cmd === "setup_marks") {
      const profile = args.profile as string;
      if (args.set) kept[profile] = args.set as (typeof kept)[string];
      return Promise.resolve(kept[profile] ?? { publicKeyGiven: null, checkPassed: null });
    }
    return Promise.reject(new Error(`not in this test: ${cmd}`));
  });
});
afterEach(cleanup);

describe("the step 'public key given to the gateway'", () => {
  it("is kept by the backend with the profile, not by the web view", async () => {
    renderUi(<SetupSteps profile="live" onCheck={() => {}} />);
    const step = await screen.findByTestId("setup-step-public-key");
    const box = await screen.findByTestId("setup-public-key-given");
    expect(step.getAttribute("data-done")).toBe("false");
    fireEvent.click(box);
    await waitFor(() => expect(kept.live?.publicKeyGiven).toBe(FP));
    expect(step.getAttribute("data-done")).toBe("true");
    expect(localStorage.getItem("paydesk.setup.live")).toBeNull();
    cleanup();

    // Another window (a new web view, nothing in its storage) shows it ticked.
    localStorage.clear();
    renderUi(<SetupSteps profile="live" onCheck={() => {}} />);
    await waitFor(() =>
      expect(screen.getByTestId("setup-step-public-key").getAttribute("data-done")).toBe("true"),
    );
    expect(screen.getByTestId("setup-steps").getAttribute("data-next")).toBe("gateway-key");
  });

  it("moves a tick an earlier PayDesk kept in the web view to the profile", async () => {
    localStorage.setItem("paydesk.setup.live", JSON.stringify({ publicKeyGiven: FP }));
    renderUi(<SetupSteps profile="live" onCheck={() => {}} />);
    await waitFor(() => expect(kept.live?.publicKeyGiven).toBe(FP));
    expect(localStorage.getItem("paydesk.setup.live")).toBeNull();
    await waitFor(() =>
      expect(screen.getByTestId("setup-step-public-key").getAttribute("data-done")).toBe("true"),
    );
  });
});
