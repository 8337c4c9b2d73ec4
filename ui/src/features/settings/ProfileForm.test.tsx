import { fireEvent, screen, waitFor } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import { ProfileForm } from "./ProfileForm";

/// The backend: every field passes the typing-time check, and the save fails with
/// `error` (as the core's own check of the whole profile would).
function saveFails(error: unknown) {
  invoke.mockImplementation(async (cmd: string) => {
    if (cmd === "profile_fields") return { problems: [], baseUrl: null };
    throw error;
  });
}

describe("the profile form", () => {
  beforeEach(() => {
    invoke.mockReset();
  });

  it("sends the profile and shows the backend's validation error on its field", async () => {
    saveFails({
      code: "validation",
      field: "baseUrl",
      rule: "must be https unless the host is loopback",
    });
    renderUi(<ProfileForm editing={null} opened onClose={() => {}} />);
    fireEvent.change(await screen.findByTestId("profile-name"), { target: { value: "acme" } });
    fireEvent.change(screen.getByTestId("profile-base-url"), {
      target: { value: "http://gateway.example.com" },
    });
    fireEvent.click(screen.getByTestId("profile-save"));
    const error = await screen.findByText("must be https unless the host is loopback");
    const input = screen.getByTestId("profile-base-url");
    expect(input.getAttribute("aria-invalid")).toBe("true");
    expect(input.getAttribute("aria-describedby")).toContain(error.id);
    await waitFor(() =>
      expect(invoke.mock.calls.filter(([c]) => c === "profile_save")).toHaveLength(1),
    );
    const [cmd, args] = invoke.mock.calls.find(([c]) => c === "profile_save") ?? [];
    expect(cmd).toBe("profile_save");
    expect(args).toMatchObject({
      profile: {
        name: "acme",
        baseUrl: "http://gateway.example.com",
        safety: {
          duplicateWindowHours: 24,
          notFoundGraceSecs: 300,
          notFoundLookups: 3,
        },
      },
      previous: null,
    });
  });

  it("shows a safety setting's error on its field", async () => {
    saveFails({
      code: "validation",
      field: "safety.duplicateWindowHours",
      rule: "must be between 1 and 2160",
    });
    renderUi(<ProfileForm editing={null} opened onClose={() => {}} />);
    fireEvent.change(await screen.findByTestId("profile-name"), { target: { value: "acme" } });
    fireEvent.change(screen.getByTestId("profile-duplicate-window"), { target: { value: "48" } });
    fireEvent.click(screen.getByTestId("profile-save"));
    await screen.findByText("must be between 1 and 2160");
    expect(screen.getByTestId("profile-duplicate-window").getAttribute("aria-invalid")).toBe(
      "true",
    );
    const [, args] = invoke.mock.calls.find(([c]) => c === "profile_save") ?? [];
    expect(args.profile.safety.duplicateWindowHours).toBe(48);
  });

  it("clears a field's error once that field is changed, not when another one is", async () => {
    saveFails({
      code: "validation",
      field: "baseUrl",
      rule: "must be https unless the host is loopback",
    });
    renderUi(<ProfileForm editing={null} opened onClose={() => {}} />);
    fireEvent.change(await screen.findByTestId("profile-name"), { target: { value: "acme" } });
    const url = screen.getByTestId("profile-base-url");
    fireEvent.change(url, { target: { value: "http://gateway.example.com" } });
    fireEvent.click(screen.getByTestId("profile-save"));
    await screen.findByText("must be https unless the host is loopback");
    fireEvent.change(screen.getByTestId("profile-name"), { target: { value: "acme2" } });
    expect(url.getAttribute("aria-invalid")).toBe("true");
    fireEvent.change(url, { target: { value: "https://gateway.example.com" } });
    expect(screen.queryByText("must be https unless the host is loopback")).toBeNull();
    expect(url.getAttribute("aria-invalid")).not.toBe("true");
    expect(screen.queryByTestId("error-alert")).toBeNull();
  });
});

describe("the profile form's team connection", () => {
  beforeEach(() => {
    invoke.mockReset();
  });

  // Issue 30: the client certificate and its key sit beside the team's CA file; a file
  // the backend cannot read is named on its own field, and both paths are sent.
  it("sends the client certificate and key files and shows a file's problem on its field", async () => {
    saveFails({
      code: "validation",
      field: "team.certFile",
      rule: "/home/ann/member.crt: no such file (the client certificate PEM file)",
    });
    renderUi(<ProfileForm editing={null} opened onClose={() => {}} />);
    fireEvent.change(await screen.findByTestId("profile-name"), { target: { value: "acme" } });
    fireEvent.click(screen.getByTestId("profile-team-enabled"));
    fireEvent.change(await screen.findByTestId("profile-team-cert-file"), {
      target: { value: "/home/ann/member.crt" },
    });
    fireEvent.change(screen.getByTestId("profile-team-key-file"), {
      target: { value: "/home/ann/member.key" },
    });
    expect(screen.getByText("Client certificate (PEM file)")).toBeTruthy();
    fireEvent.click(screen.getByTestId("profile-save"));
    const error = await screen.findByText(
      "/home/ann/member.crt: no such file (the client certificate PEM file)",
    );
    const input = screen.getByTestId("profile-team-cert-file");
    expect(input.getAttribute("aria-invalid")).toBe("true");
    expect(input.getAttribute("aria-describedby")).toContain(error.id);
    expect(screen.getByTestId("profile-team-key-file").getAttribute("aria-invalid")).not.toBe(
      "true",
    );
    const [, args] = invoke.mock.calls.find(([c]) => c === "profile_save") ?? [];
    expect(args.profile.team).toMatchObject({
      certFile: "/home/ann/member.crt",
      keyFile: "/home/ann/member.key",
    });
  });
});

describe("the profile form's notification and proxy settings", () => {
  beforeEach(() => {
    invoke.mockReset();
  });

  it("sends notifyAtDesk and the proxy, and shows a proxy error on its field", async () => {
    saveFails({
      code: "validation",
      field: "proxy",
      rule: "must not carry a user name or password (they would be stored outside the keyring)",
    });
    renderUi(<ProfileForm editing={null} opened onClose={() => {}} />);
    fireEvent.change(await screen.findByTestId("profile-name"), { target: { value: "acme" } });
    fireEvent.click(screen.getByTestId("profile-notify-at-desk"));
    expect(screen.getByTestId("profile-notify-url").hasAttribute("disabled")).toBe(true);
    fireEvent.change(screen.getByTestId("profile-proxy"), {
      target: { value: "http://ana:pw@proxy.corp:3128" },
    });
    fireEvent.click(screen.getByTestId("profile-save"));
    await screen.findByText(/must not carry a user name or password/);
    expect(screen.getByTestId("profile-proxy").getAttribute("aria-invalid")).toBe("true");
    const [, args] = invoke.mock.calls.find(([c]) => c === "profile_save") ?? [];
    expect(args.profile).toMatchObject({
      notifyAtDesk: true,
      proxy: "http://ana:pw@proxy.corp:3128",
    });
  });
});

describe("the profile form's settings for reading the order list", () => {
  beforeEach(() => {
    invoke.mockReset();
  });

  it("sends the sync settings, each said in plain words, and shows a rule on its field", async () => {
    saveFails({
      code: "validation",
      field: "sync.inFlight",
      rule: "must be between 1 and 64 requests",
    });
    renderUi(<ProfileForm editing={null} opened onClose={() => {}} />);
    fireEvent.change(await screen.findByTestId("profile-name"), { target: { value: "acme" } });
    expect(screen.getByText("Reading the order list")).toBeTruthy();
    const pageSize = screen.getByLabelText(/Orders per page/);
    expect((pageSize as HTMLInputElement).value).toBe("500");
    expect(screen.getByText(/the most the gateway accepts reads fastest/)).toBeTruthy();
    const rate = screen.getByLabelText(/Gateway's limit \(requests per second\)/);
    expect((rate as HTMLInputElement).value).toBe("0");
    expect(rate.getAttribute("aria-describedby")).toBeTruthy();
    expect(screen.getByText(/0: no limit/)).toBeTruthy();
    fireEvent.change(pageSize, { target: { value: "200" } });
    fireEvent.change(screen.getByTestId("profile-sync-inFlight"), { target: { value: "16" } });
    fireEvent.change(rate, { target: { value: "50" } });
    fireEvent.click(screen.getByTestId("profile-save"));
    const error = await screen.findByText("must be between 1 and 64 requests");
    const inFlight = screen.getByTestId("profile-sync-inFlight");
    expect(inFlight.getAttribute("aria-invalid")).toBe("true");
    expect(inFlight.getAttribute("aria-describedby")).toContain(error.id);
    expect(pageSize.getAttribute("aria-invalid")).not.toBe("true");
    const [cmd, args] = invoke.mock.calls.find(([c]) => c === "profile_save") ?? [];
    expect(cmd).toBe("profile_save");
    expect(args.profile.sync).toEqual({
      pageSize: 200,
      inFlight: 16,
      rateLimit: 50,
      balancesEveryMins: 60,
      payoutsInFlight: 16,
    });
    // Changing the field answers its rule until the next save.
    fireEvent.change(inFlight, { target: { value: "12" } });
    expect(screen.queryByText("must be between 1 and 64 requests")).toBeNull();
  });

  it("sets a bulk run's payouts in flight, said in plain words, and shows its rule", async () => {
    saveFails({
      code: "validation",
      field: "sync.payoutsInFlight",
      rule: "must be between 1 and 10 payouts",
      ruleKey: "payoutsInFlightRange",
      ruleParams: { count: "10" },
    });
    renderUi(<ProfileForm editing={null} opened onClose={() => {}} />);
    fireEvent.change(await screen.findByTestId("profile-name"), { target: { value: "acme" } });
    const bulk = screen.getByLabelText(/Bulk payouts at once/);
    expect((bulk as HTMLInputElement).value).toBe("16");
    expect(screen.getByText(/1 sends one after another/)).toBeTruthy();
    fireEvent.change(bulk, { target: { value: "32" } });
    fireEvent.click(screen.getByTestId("profile-save"));
    await screen.findByText("must be between 1 and 10 payouts");
    expect(bulk.getAttribute("aria-invalid")).toBe("true");
    const [, args] = invoke.mock.calls.find(([c]) => c === "profile_save") ?? [];
    expect(args.profile.sync.payoutsInFlight).toBe(32);
  });
});

describe("the live set-up form", () => {
  beforeEach(() => {
    invoke.mockReset();
  });

  it("shows every field's problem at once on Save, opens Advanced for one of its own, and saves nothing", async () => {
    invoke.mockImplementation(async (cmd: string) => {
      if (cmd === "profile_fields")
        return {
          problems: [
            { field: "merNo", rule: "must be the merchant number the gateway gave you" },
            { field: "notifyUrl", rule: "must use https:// for a real gateway" },
            { field: "sync.pageSize", rule: "must be between 1 and 500 orders" },
          ],
          baseUrl: {
            requestUrl: "https://gw.example/api/v2/v2/payout",
            versionSuffix: "/v2",
          },
        };
      throw new Error(`unexpected ${cmd}`);
    });
    renderUi(<ProfileForm editing={null} opened onClose={() => {}} />);
    expect(screen.getByTestId("profile-advanced-toggle").getAttribute("aria-expanded")).toBe(
      "false",
    );
    fireEvent.change(await screen.findByTestId("profile-base-url"), {
      target: { value: "https://gw.example/api/v2" },
    });
    expect(await screen.findByTestId("profile-version-warning")).toBeTruthy();
    expect(screen.getByTestId("profile-request-url").textContent).toContain(
      "https://gw.example/api/v2/v2/payout",
    );
    fireEvent.click(screen.getByTestId("profile-save"));
    await screen.findByText("must be the merchant number the gateway gave you");
    expect(screen.getByText("must use https:// for a real gateway")).toBeTruthy();
    expect(screen.getByText("must be between 1 and 500 orders")).toBeTruthy();
    expect(screen.getByTestId("profile-problem-count").textContent).toBe("3 fields need attention");
    // Advanced opens once the problems are in (an effect after they render).
    await waitFor(() =>
      expect(screen.getByTestId("profile-advanced-toggle").getAttribute("aria-expanded")).toBe(
        "true",
      ),
    );
    expect(invoke.mock.calls.some(([c]) => c === "profile_save")).toBe(false);
  });
});
