// A journal entry in one line for people, in their language and with money in the
// desk's one format, read from the request the entry keeps (as sent, masked). The
// backend's own `summary` (English, amounts as typed) is shown only when the request
// lacks what the line needs, so nothing the journal holds is hidden.
import type { TFunction } from "i18next";
import { formatMoney } from "./format";
import type { Entry } from "./types";

function text(request: unknown, key: string): string | undefined {
  if (typeof request !== "object" || request === null) return undefined;
  const v = (request as Record<string, unknown>)[key];
  return typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;
}

function list(request: unknown, key: string): unknown[] | undefined {
  if (typeof request !== "object" || request === null) return undefined;
  const v = (request as Record<string, unknown>)[key];
  return Array.isArray(v) ? v : undefined;
}

/// The payin method a request names (`paymentType`), or the one its operation implies.
function payinMethod(e: Entry): string | undefined {
  if (e.operation === "v2.payment") return "WECHAT";
  if (e.operation === "v1.payment.vn_bank") return "VN_BANK";
  return text(e.request, "paymentType");
}

export function entrySummary(e: Entry, t: TFunction, locale: string): string {
  const r = e.request;
  const money = (amountKey: string, currencyKey: string) => {
    const amount = text(r, amountKey);
    const currency = text(r, currencyKey);
    return amount && currency ? formatMoney(amount, currency, locale) : undefined;
  };
  switch (e.operation) {
    case "v2.payment":
    case "v1.payment":
    case "v1.payment.vn_bank": {
      const amount = money("sourceAmount", "currencyCode");
      const method = payinMethod(e);
      if (!amount || !method) break;
      return t("summary.payin", {
        amount,
        method: t(`payins.methods.${method}`, { defaultValue: method }),
      });
    }
    case "v2.payout": {
      const amount = money("sourceAmount", "currencyCode");
      const account = text(r, "clabe");
      if (!amount || !account) break;
      return t("summary.payoutClabe", { amount, account });
    }
    case "v1.payout": {
      const amount = money("sourceAmount", "currencyCode");
      const account = text(r, "cardNo");
      if (!amount || !account) break;
      const name = [text(r, "benFirstName"), text(r, "benLastName")].filter(Boolean).join(" ");
      return t("summary.payoutCard", { amount, account, name });
    }
    case "v2.card.topUp":
    case "v1.card.withdraw": {
      const amount = money("amount", "currency");
      const card = text(r, "applyOrderNo");
      if (!amount || !card) break;
      return t(e.operation === "v2.card.topUp" ? "summary.topUp" : "summary.withdraw", {
        amount,
        card,
      });
    }
    case "v1.submit.transferOrder": {
      const tradeNo = text(r, "tradeNo");
      const info = list(r, "infoList");
      const files = list(r, "fileList");
      if (!tradeNo || !info || !files) break;
      const names = files.map((f) => text(f, "fileName") ?? "").filter(Boolean);
      return t("summary.review", {
        tradeNo,
        count: info.length,
        files: names.length > 0 ? names.join(", ") : "—",
      });
    }
  }
  return e.summary;
}
