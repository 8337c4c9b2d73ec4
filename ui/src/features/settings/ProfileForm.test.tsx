import { fireEvent, screen, waitFor } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import { ProfileForm } from "./ProfileForm";

describe("the profile form", () => {
  beforeEach(() => {
    invoke.mockReset();
  });

  it("sends the profile and shows the backend's validation error on its field", async () => {
    invoke.mockRejectedValue({
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
    await waitFor(() => expect(invoke).toHaveBeenCalledTimes(1));
    const [cmd, args] = invoke.mock.calls[0] ?? [];
    expect(cmd).toBe("profile_save");
    expect(args).toMatchObject({
      profile: {
        name: "acme",
        baseUrl: "http://gateway.example.com",
        safety: {
          duplicateWindowHours: 24,
          notFoundGraceSecs: 300,
          notFoundLookups: 3,
          duplicateCodes: ["E1011"],
        },
      },
      previous: null,
    });
  });

  it("shows a safety setting's error on its field", async () => {
    invoke.mockRejectedValue({
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
    const [, args] = invoke.mock.calls[0] ?? [];
    expect(args.profile.safety.duplicateWindowHours).toBe(48);
  });

  it("clears a field's error once that field is changed, not when another one is", async () => {
    invoke.mockRejectedValue({
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

describe("the profile form's notification and proxy settings", () => {
  beforeEach(() => {
    invoke.mockReset();
  });

  it("sends notifyAtDesk and the proxy, and shows a proxy error on its field", async () => {
    invoke.mockRejectedValue({
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
    const [, args] = invoke.mock.calls[0] ?? [];
    expect(args.profile).toMatchObject({
      notifyAtDesk: true,
      proxy: "http://ana:pw@proxy.corp:3128",
    });
  });
});
