import { fireEvent, screen, waitFor } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { ConnectionCheck, Profile } from "../../lib/types";
import { SANDBOX } from "../../test/conventions";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import { NEW_PROFILE } from "./ProfileForm";
import { SettingsPage } from "./SettingsPage";

// The keys panel's autosizing text areas measure what jsdom does not have; it has tests
// of its own in the window.
vi.mock("./KeysPanel", () => ({ KeysPanel: () => null }));

const BUILTIN: Profile = { ...NEW_PROFILE, name: "sandbox", baseUrl: null, merNo: 10001 };

const CHECK: ConnectionCheck = {
  profile: "acme",
  baseUrl: "https://gw.example/",
  ok: false,
  items: [
    {
      what: "pageSize",
      outcome: "fails",
      detail: "the order list is refused with pages of 500 orders and answers with pages of 10",
      setting: "conventions.maxPageSize",
    },
  ],
};

describe("Settings: a new live profile's connection check", { timeout: 30_000 }, () => {
  let saved: Profile[];
  beforeEach(() => {
    saved = [BUILTIN];
    invoke.mockReset();
    invoke.mockImplementation(async (cmd: string, args: Record<string, unknown>) => {
      switch (cmd) {
        case "profiles":
          return { active: "sandbox", profiles: saved };
        case "keys":
          return { merchant: null, gateway: null, hasToken: false };
        case "app_status":
          return { keyringService: "PayDesk", version: "0.1.0" };
        case "profile_save":
          saved = [...saved, args.profile as Profile];
          return null;
        case "profile_check":
          return CHECK;
        case "profile_fields":
          return { problems: [], baseUrl: null };
        case "conventions":
          return SANDBOX;
        default:
          throw new Error(`unexpected command ${cmd}`);
      }
    });
  });

  it("is offered once the profile is saved, and a finding opens the member it names", async () => {
    renderUi(<SettingsPage />);
    fireEvent.click(await screen.findByTestId("profile-add"));
    fireEvent.change(await screen.findByTestId("profile-name"), { target: { value: "acme" } });
    fireEvent.change(screen.getByTestId("profile-base-url"), {
      target: { value: "https://gw.example" },
    });
    fireEvent.click(screen.getByTestId("profile-save"));
    const offer = await screen.findByTestId("check-offer");
    expect(offer.textContent).toContain("Profile acme is saved");
    fireEvent.click(screen.getByTestId("check-offer-run"));

    await waitFor(() =>
      expect(invoke).toHaveBeenCalledWith("profile_check", { profile: "acme", currency: null }),
    );
    const setting = await screen.findByTestId("check-setting");
    expect(screen.queryByTestId("check-offer")).toBeNull();
    fireEvent.click(setting);
    // The conventions of that profile, the named member focused.
    const panel = await screen.findByTestId("conventions-panel");
    expect(panel.dataset.profile).toBe("acme");
    await waitFor(() => expect(document.activeElement?.id).toBe("conv-maxPageSize"), {
      timeout: 3_000,
    });
  });

  it("is not offered after editing a profile", async () => {
    saved = [BUILTIN, { ...NEW_PROFILE, name: "acme", baseUrl: "https://gw.example" }];
    renderUi(<SettingsPage />);
    const rows = await screen.findAllByTestId("profile-row");
    const acme = rows.find((r) => r.dataset.name === "acme");
    fireEvent.click(
      [...(acme?.querySelectorAll("button") ?? [])].find(
        (b) => b.textContent === "Edit",
      ) as HTMLElement,
    );
    fireEvent.click(await screen.findByTestId("profile-save"));
    await waitFor(() => expect(invoke.mock.calls.some(([c]) => c === "profile_save")).toBe(true));
    await waitFor(() => expect(screen.queryByTestId("profile-form")).toBeNull());
    expect(screen.queryByTestId("check-offer")).toBeNull();
  });
});
