import type { TFunction } from "i18next";

/// The label of each field of the gateway's order list a sync may refuse an order for,
/// by its wire name (the core names the field it checked: crates/core/src/answers.rs).
const FIELD_LABELS: Record<string, string> = {
  tradeNo: "detail.field.tradeNo",
  merOrderNo: "detail.field.merOrderNo",
  sourceCurrency: "detail.field.currency",
  sourceAmount: "detail.field.sourceAmount",
  settlementCurrency: "detail.field.settlementCurrency",
  refundCurrency: "orders.field.refundCurrency",
  handlingFee: "detail.field.handlingFee",
  transactionFixedFee: "detail.field.transactionFixedFee",
  exceptionHandlingFee: "orders.field.exceptionHandlingFee",
  refundAmount: "detail.field.refundAmount",
  receiveAmount: "detail.field.receiveAmount",
  settleAmount: "detail.field.settleAmount",
  rollingReserve: "detail.field.rollingReserve",
  message: "detail.field.message",
  refusalPayReason: "detail.field.refusalPayReason",
};

/// "item 2 (T9) sourceCurrency "usd" is not ..." as the core words an order a sync did
/// not cache.
const REFUSAL = /^item (\d+) \((.*?)\) (\w+) (.*)$/s;

/// Why a sync did not cache an order, with the field's label instead of its wire name
/// ('Order T9: Currency "usd" is not an upper-case ISO 4217 code'). A reason in another
/// shape is shown as it came.
export function refusalText(t: TFunction, why: string): string {
  const m = REFUSAL.exec(why);
  if (!m) return why;
  const [, item = "", tradeNo = "", wire = "", rule = ""] = m;
  const key = FIELD_LABELS[wire];
  const field = key ? t(key) : wire;
  return tradeNo
    ? t("orders.refusedOrder", { tradeNo, field, rule })
    : t("orders.refusedItem", { item, field, rule });
}
