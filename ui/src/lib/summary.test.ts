import { describe, expect, it } from "vitest";
import i18n from "../i18n";
import { entrySummary } from "./summary";
import type { Entry } from "./types";

const entry = (operation: Entry["operation"], request: unknown, summary = "as the backend says") =>
  ({
    id: 1,
    profile: "sandbox",
    operation,
    merOrderNo: "PO-1",
    request,
    summary,
    status: "accepted",
    tradeNo: null,
    code: null,
    message: null,
    attempts: 1,
    createdAt: 0,
    updatedAt: 0,
    nextCheckAt: null,
    fingerprint: "f",
    sentAt: 0,
    lookups: 0,
    canBeLookedUp: true,
    resolution: null,
  }) as Entry;

const en = i18n.getFixedT("en");
const zh = i18n.getFixedT("zh");

describe("a journal entry's one line", () => {
  it("writes its money as every screen does: code, space, grouped amount, minor units", () => {
    const clabe = entry("v2.payout", {
      sourceAmount: "1500",
      currencyCode: "MXN",
      clabe: "002010******7771",
    });
    expect(entrySummary(clabe, en, "en-US")).toBe("CLABE payout MXN 1,500.00 to 002010******7771");
    expect(entrySummary(clabe, zh, "zh-CN")).toBe(
      "CLABE 付款 MXN 1,500.00，收款账户 002010******7771",
    );
    const topUp = entry("v2.card.topUp", {
      amount: "88.5",
      currency: "CNY",
      applyOrderNo: "APP-7",
    });
    expect(entrySummary(topUp, en, "en-US")).toBe("Card top-up CNY 88.50 to APP-7");
    const card = entry("v1.payout", {
      sourceAmount: "90071992547409931.01",
      currencyCode: "USD",
      cardNo: "411111******1111",
      benFirstName: "Ana",
      benLastName: "Ruiz",
    });
    expect(entrySummary(card, en, "en-US")).toBe(
      "Card payout USD 90,071,992,547,409,931.01 to Ana Ruiz 411111******1111",
    );
    const payin = entry("v2.payment", { sourceAmount: "10", currencyCode: "JPY" });
    expect(entrySummary(payin, en, "en-US")).toBe("Payin WeChat Pay (V2) JPY 10");
  });

  it("counts a review's items in the right number", () => {
    const review = (n: number) =>
      entry("v1.submit.transferOrder", {
        tradeNo: "T1",
        infoList: Array.from({ length: n }, () => ({ infoType: "1", infoContent: "x" })),
        fileList: [{ fileType: "21", fileName: "id.png", fileContent: "<8 base64 characters>" }],
      });
    expect(entrySummary(review(1), en, "en-US")).toBe(
      "Review of T1: 1 information item; files: id.png",
    );
    expect(entrySummary(review(2), en, "en-US")).toBe(
      "Review of T1: 2 information items; files: id.png",
    );
  });

  it("is the backend's own line when the request lacks what it needs", () => {
    // A V1 payin's method travels in a header, not in the body the journal keeps.
    const v1 = entry("v1.payment", { sourceAmount: "10.00", currencyCode: "BRL" }, "payin PIX");
    expect(entrySummary(v1, en, "en-US")).toBe("payin PIX");
    expect(entrySummary(entry("v2.payout", {}, "old"), en, "en-US")).toBe("old");
  });
});
