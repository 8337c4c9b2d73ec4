import { fireEvent, screen, waitFor } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import { SigningTools } from "./SigningTools";

// Issue 32: `paydesk verify` and `paydesk sign` in Settings. The window sends what the
// person typed (an empty key: the profile's gateway key; empty exclusions: the rule's),
// shows the answer with its canonical string, and a refusal on its field.
describe("Settings: signing tools", () => {
  beforeEach(() => {
    invoke.mockReset();
    invoke.mockImplementation(async (cmd: string, args: Record<string, unknown>) => {
      if (cmd === "tools_verify") {
        if (args.signature === "%%")
          throw { code: "validation", field: "signature", rule: "is not valid base64" };
        return {
          valid: args.signature === "c2ln",
          canonical: "amount=10.00&merNo=10001",
          keyFingerprint: "SHA256:ab:cd",
        };
      }
      if (cmd === "tools_sign")
        return { canonical: "amount=10.00&merNo=10001", sign: "U0lHTkVE", profile: "sandbox" };
      throw new Error(`unexpected command ${cmd}`);
    });
  });

  const type = (id: string, value: string) =>
    fireEvent.change(screen.getByTestId(id), { target: { value } });

  it("checks a signature with the profile's gateway key and shows what was signed", async () => {
    renderUi(<SigningTools />);
    type("tools-body", '{"merNo":"10001","amount":"10.00"}');
    type("tools-signature", "c2ln");
    fireEvent.click(screen.getByTestId("tools-verify"));
    const badge = await screen.findByTestId("tools-valid");
    expect(badge.getAttribute("data-valid")).toBe("true");
    expect(badge.textContent).toBe("Valid");
    expect(screen.getByTestId("tools-canonical").textContent).toBe("amount=10.00&merNo=10001");
    expect(invoke.mock.calls.find(([c]) => c === "tools_verify")?.[1]).toEqual({
      body: '{"merNo":"10001","amount":"10.00"}',
      signature: "c2ln",
      publicKey: null,
      exclude: null,
      keepEmpty: false,
    });

    // Another signature: not valid, said so; one that is not base64: on its field.
    type("tools-signature", "b3RoZXI=");
    type("tools-exclude", "sign,extra");
    fireEvent.click(screen.getByTestId("tools-verify"));
    await waitFor(() =>
      expect(screen.getByTestId("tools-valid").getAttribute("data-valid")).toBe("false"),
    );
    expect(invoke.mock.calls.at(-1)?.[1]).toMatchObject({ exclude: ["sign", "extra"] });
    type("tools-signature", "%%");
    fireEvent.click(screen.getByTestId("tools-verify"));
    expect(await screen.findAllByText("is not valid base64")).not.toHaveLength(0);
  });

  it("signs with the profile's key: only the signature comes back", async () => {
    renderUi(<SigningTools />);
    expect((screen.getByTestId("tools-sign") as HTMLButtonElement).disabled).toBe(true);
    type("tools-body", '{"merNo":"10001"}');
    fireEvent.click(screen.getByTestId("tools-keep-empty"));
    fireEvent.click(screen.getByTestId("tools-sign"));
    expect((await screen.findByTestId("tools-sign-result")).textContent).toBe("U0lHTkVE");
    expect(screen.getByTestId("tools-signed").textContent).toContain("sandbox");
    expect(invoke.mock.calls.find(([c]) => c === "tools_sign")?.[1]).toEqual({
      body: '{"merNo":"10001"}',
      exclude: null,
      keepEmpty: true,
    });
  });
});
