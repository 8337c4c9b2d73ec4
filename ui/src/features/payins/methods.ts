import type { PayinForm, PayinMethod } from "../../lib/types";
import { blankPurpose } from "../money/PurposeFields";

/// A payin being typed: everything but its order number, which is fixed apart.
export type PayinDraft = Omit<PayinForm, "merOrderNo">;

/// What a method's fields edit, and the rule the backend said a field broke (by the
/// field's wire names).
export interface FieldsProps {
  form: PayinDraft;
  set: <K extends keyof PayinDraft>(k: K, v: PayinDraft[K]) => void;
  err: (...fields: string[]) => string | undefined;
}

export const METHODS: PayinMethod[] = [
  "WECHAT",
  "WECHAT_V1",
  "PIX",
  "APPLE_PAY",
  "CASH_APP",
  "GCASH",
  "SEPA",
  "VN_BANK",
];

/// The currency a method usually takes, filled in when the method is chosen.
export const CURRENCY: Record<PayinMethod, string> = {
  WECHAT: "CNY",
  WECHAT_V1: "CNY",
  PIX: "BRL",
  APPLE_PAY: "USD",
  CASH_APP: "USD",
  GCASH: "PHP",
  SEPA: "EUR",
  VN_BANK: "VND",
};

export const WALLETS: PayinMethod[] = ["APPLE_PAY", "CASH_APP", "GCASH"];

export function blankPayin(method: PayinMethod): PayinDraft {
  return {
    method,
    amount: "",
    currency: CURRENCY[method],
    email: "",
    userId: "",
    returnUrl: "",
    ipAddress: "",
    notifyUrl: "",
    name: "",
    socialSecurityNumber: "",
    firstName: "",
    lastName: "",
    // The payer's browser is not the desk's: left empty unless the payer's is known.
    userAgent: "",
    browser: {
      screenHeight: String(window.screen.height),
      screenWidth: String(window.screen.width),
      timeZoneOffset: String(new Date().getTimezoneOffset()),
      userAgent: navigator.userAgent,
      visitorId: "paydesk",
    },
    products: [{ name: "", price: "", quantity: "1", sku: "", url: "" }],
    osType: "ANDROID",
    terminal: "APP",
    paymentMethodStr: "BANK",
    productName: "",
    vnBankId: "970436",
    purpose: blankPurpose(),
  };
}
