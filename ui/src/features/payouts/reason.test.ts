import { describe, expect, it } from "vitest";
import type { RowReason } from "../../bindings";
import i18n from "../../i18n";
import { heldFirm, rowReason } from "./reason";

const same = (status: string): RowReason => ({
  kind: "sameRecent",
  earlier: "PO-1",
  status,
  minutes: 3,
  confirmedAs: null,
});

describe("a bulk row repeating another payout (review r6 R6-5)", () => {
  it("is held whatever is confirmed while the earlier one's outcome is unknown", async () => {
    await i18n.changeLanguage("en");
    const t = i18n.t.bind(i18n);
    for (const status of ["unknown", "sending"]) {
      expect(heldFirm(same(status))).toBe(true);
      const text = rowReason(t, same(status));
      expect(text).toContain("PO-1");
      expect(text).toContain("held until it is looked up or resolved");
      expect(text).not.toContain("Sent only when you confirm");
    }
    // Known paid: a deliberate second one is the person's to confirm.
    expect(heldFirm(same("accepted"))).toBe(false);
    expect(rowReason(t, same("accepted"))).toContain("Sent only when you confirm");
  });
});
