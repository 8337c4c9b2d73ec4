import { screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import i18n from "../i18n";
import { IpcError } from "../lib/ipc";
import type { CoreError } from "../lib/types";
import { renderUi } from "../test/render";
import { coreText, ErrorAlert, FormError } from "./ErrorAlert";

const t = i18n.t.bind(i18n);

describe("error lines", () => {
  afterEach(() => i18n.changeLanguage("en"));

  it("name the field and the rule, or the gateway's code and message", () => {
    expect(coreText(t, { code: "validation", field: "merNo", rule: "must be a number" })).toBe(
      "Merchant number: must be a number",
    );
    expect(coreText(t, { code: "rejected", gateway_code: "E1012", message: "balance" })).toBe(
      "The gateway refused it (E1012). The gateway's message: “balance”",
    );
    expect(coreText(t, { code: "cancelled" })).toBe("Cancelled");
    expect(
      coreText(t, {
        code: "duplicate",
        earlier_id: 3,
        earlier_mer_order_no: "PO-1",
        earlier_status: "accepted",
        age_secs: 90,
        summary: "payout 5.00 USD",
      }),
    ).toBe(
      "Nothing was sent: the same payout 5.00 USD is already in the journal as PO-1 (Accepted).",
    );
  });

  it("exist for every code, in English and Chinese", async () => {
    const all: CoreError[] = [
      { code: "validation", field: "f", rule: "r" },
      { code: "rejected", gateway_code: "E1", message: "m" },
      { code: "outcome_unknown", message: "m" },
      { code: "not_sent", message: "m" },
      { code: "bad_response", message: "m" },
      { code: "signature_invalid", message: "m" },
      { code: "keyring_unavailable", message: "m" },
      { code: "missing_secret", message: "m" },
      { code: "not_found", message: "m" },
      { code: "storage", message: "m" },
      {
        code: "duplicate",
        earlier_id: 1,
        earlier_mer_order_no: "PO1",
        earlier_status: "unknown",
        age_secs: 60,
        summary: "s",
      },
      { code: "cancelled" },
      { code: "internal", message: "m" },
    ];
    for (const lang of ["en", "zh"]) {
      await i18n.changeLanguage(lang);
      for (const e of all) {
        const line = coreText(t, e);
        expect(line, `${lang} ${e.code}`).not.toContain("errors.");
        expect(line.length).toBeGreaterThan(1);
      }
    }
    expect(coreText(t, { code: "keyring_unavailable", message: "locked" })).toBe(
      "系统密钥环不可用：locked",
    );
  });

  it("show as an alert with the code", () => {
    renderUi(<ErrorAlert error={new Error("disk full")} />);
    const alert = screen.getByRole("alert");
    expect(alert.getAttribute("data-code")).toBe("internal");
    expect(alert.textContent).toContain("Internal error: disk full");
  });

  it("names a form's broken rule by the field's label and the rule's words, in Chinese too", async () => {
    await i18n.changeLanguage("zh");
    const error = new IpcError({
      code: "validation",
      field: "clabe",
      rule: "check digit is wrong (expected 1)",
      ruleKey: "clabeCheckDigit",
      ruleParams: { expected: "1" },
    });
    renderUi(<FormError error={error} testId="form-error" />);
    expect(screen.getByTestId("form-error").textContent).toBe("CLABE 账号：校验位不正确（应为 1）");
  });
});
