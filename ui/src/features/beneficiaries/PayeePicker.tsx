import { Select } from "@mantine/core";
import { useTranslation } from "react-i18next";
import type { Beneficiary, PayoutKind } from "../../lib/types";
import { useBeneficiaries } from "./queries";

/// What a payee is listed as: nickname, name, masked account (searched by all three).
export function payeeLabel(b: Beneficiary): string {
  const name = [b.firstName, b.lastName].filter((s) => s.trim() !== "").join(" ");
  return `${b.nickname} · ${name} · ${b.account}`;
}

/// A payee of the book for this kind of payout, by nickname (none: the account is typed).
/// A searchable select: typing filters by nickname, name or account; arrows and Enter pick.
export function PayeePicker({
  kind,
  value,
  onChange,
  error,
  hidden = false,
}: {
  hidden?: boolean;
  kind: PayoutKind;
  value: string;
  onChange: (nickname: string) => void;
  error?: string;
}) {
  const { t } = useTranslation();
  const book = useBeneficiaries();
  const payees = (book.data ?? []).filter((b) => b.kind === kind && !b.awaitingApproval);
  if (hidden || book.isError || (payees.length === 0 && !value)) return null;
  return (
    <Select
      label={t("beneficiaries.pick")}
      description={t("beneficiaries.pickHint")}
      placeholder={t("beneficiaries.pickNone")}
      searchable
      clearable
      nothingFoundMessage={t("beneficiaries.noMatch")}
      data={payees.map((b) => ({ value: b.nickname, label: payeeLabel(b) }))}
      value={value || null}
      onChange={(v) => onChange(v ?? "")}
      error={error}
      data-testid="payout-payee"
    />
  );
}
