import { Group, SegmentedControl, TextInput } from "@mantine/core";
import { useTranslation } from "react-i18next";
import type { PayoutForm, PayoutKind } from "../../lib/types";
import { blankPurpose } from "../money/PurposeFields";

/// A payout being typed: everything but its order number, which is fixed apart.
export type PayoutDraft = Omit<PayoutForm, "merOrderNo">;

export const blankPayout = (kind: PayoutKind): PayoutDraft => ({
  kind,
  amount: "",
  currency: kind === "CLABE" ? "MXN" : "USD",
  clabe: "",
  cardNo: "",
  beneficiary: "",
  firstName: "",
  lastName: "",
  countryCode: "",
  email: "",
  mobile: "",
  ipAddress: "",
  notifyUrl: "",
  addressLine: "",
  addressLine2: "",
  city: "",
  state: "",
  postCode: "",
  beneficiaryType: "individual",
  purpose: blankPurpose(),
});

/// What a kind's fields edit, and the rule the backend said a field broke (by the
/// field's wire names).
export interface FieldsProps {
  form: PayoutDraft;
  set: <K extends keyof PayoutDraft>(k: K, v: PayoutDraft[K]) => void;
  err: (...fields: string[]) => string | undefined;
}

/// The account of a CLABE payout.
export function ClabeFields({ form, set, err }: FieldsProps) {
  const { t } = useTranslation();
  return (
    <TextInput
      label={t("payouts.clabe")}
      required
      description={t("payouts.clabeHint")}
      value={form.clabe}
      onChange={(e) => set("clabe", e.currentTarget.value)}
      error={err("clabe")}
      data-testid="payout-clabe"
    />
  );
}

/// The card of a card payout and its holder.
export function CardFields({ form, set, err }: FieldsProps) {
  const { t } = useTranslation();
  return (
    <>
      <TextInput
        label={t("payouts.cardNo")}
        required
        autoComplete="off"
        value={form.cardNo}
        onChange={(e) => set("cardNo", e.currentTarget.value)}
        error={err("cardNo")}
        data-testid="payout-card-no"
      />
      <Group grow align="flex-start">
        <TextInput
          label={t("payouts.firstName")}
          required
          value={form.firstName}
          onChange={(e) => set("firstName", e.currentTarget.value)}
          error={err("firstName")}
          data-testid="payout-first-name"
        />
        <TextInput
          label={t("payouts.lastName")}
          required
          value={form.lastName}
          onChange={(e) => set("lastName", e.currentTarget.value)}
          error={err("lastName")}
          data-testid="payout-last-name"
        />
      </Group>
      <Group grow align="flex-start">
        <TextInput
          label={t("payouts.country")}
          maxLength={2}
          value={form.countryCode}
          onChange={(e) => set("countryCode", e.currentTarget.value.toUpperCase())}
          error={err("countryCode")}
        />
        <TextInput
          label={t("payouts.email")}
          value={form.email}
          onChange={(e) => set("email", e.currentTarget.value)}
          error={err("email")}
        />
      </Group>
      <SegmentedControl
        aria-label={t("payouts.beneficiaryType")}
        value={form.beneficiaryType || "individual"}
        onChange={(v) => set("beneficiaryType", v)}
        data={[
          { value: "individual", label: t("payouts.individual") },
          { value: "company", label: t("payouts.company") },
        ]}
        data-testid="payout-beneficiary-type"
      />
      <TextInput
        label={t("payouts.addressLine")}
        value={form.addressLine}
        onChange={(e) => set("addressLine", e.currentTarget.value)}
        error={err("addressLine")}
      />
      <TextInput
        label={t("payouts.addressLine2")}
        value={form.addressLine2}
        onChange={(e) => set("addressLine2", e.currentTarget.value)}
        error={err("addressLine2")}
      />
      <Group grow align="flex-start">
        <TextInput
          label={t("payouts.city")}
          value={form.city}
          onChange={(e) => set("city", e.currentTarget.value)}
          error={err("city")}
        />
        <TextInput
          label={t("payouts.region")}
          value={form.state}
          onChange={(e) => set("state", e.currentTarget.value)}
          error={err("state")}
        />
        <TextInput
          label={t("payouts.postCode")}
          value={form.postCode}
          onChange={(e) => set("postCode", e.currentTarget.value)}
          error={err("postCode")}
        />
      </Group>
    </>
  );
}
