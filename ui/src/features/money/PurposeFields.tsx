// Why money moved (issue 35, item 3): the purpose and optional reference a payout,
// payin, card move or bulk run is given (required where the profile says so), shown
// again on the confirmation and on the order's page. The desk checks them (printable
// text, bounded) and keeps them with the journal entry; the gateway is never sent them
// (but a card top-up without a remark of its own sends the purpose as its remark).
import { Stack, Table, Text, TextInput } from "@mantine/core";
import type { TFunction } from "i18next";
import { useTranslation } from "react-i18next";
import type { TimelineEvent } from "../../bindings";
import type { Purpose } from "../../lib/types";
import { useAppStatus } from "../app/queries";

export const blankPurpose = (): Purpose => ({ text: "", reference: "" });

/// Whether the active profile asks for a purpose on every movement.
export function usePurposeRequired(): boolean {
  const profile = useAppStatus().data?.profile as
    | { safety?: { purposeRequired?: unknown } }
    | undefined;
  return profile?.safety?.purposeRequired === true;
}

/// The purpose and reference inputs; `err(field)` is the rule the desk said a field
/// broke (`purpose`, `purposeRef`).
export function PurposeFields({
  value,
  onChange,
  err,
  testId = "purpose",
  run = false,
}: {
  value: Purpose;
  onChange: (p: Purpose) => void;
  err?: (field: string) => string | undefined;
  testId?: string;
  /// A bulk run's purpose: for the rows whose file gives none.
  run?: boolean;
}) {
  const { t } = useTranslation();
  const required = usePurposeRequired();
  return (
    <Stack gap="sm">
      <TextInput
        label={t(run ? "purpose.runLabel" : "purpose.label")}
        description={t(run ? "purpose.runHint" : "purpose.hint")}
        required={required && !run}
        maxLength={140}
        value={value.text}
        onChange={(e) => onChange({ ...value, text: e.currentTarget.value })}
        error={err?.("purpose")}
        data-testid={`${testId}-text`}
      />
      <TextInput
        label={t("purpose.reference")}
        description={t("purpose.referenceHint")}
        maxLength={64}
        value={value.reference}
        onChange={(e) => onChange({ ...value, reference: e.currentTarget.value })}
        error={err?.("purposeRef")}
        data-testid={`${testId}-reference`}
      />
    </Stack>
  );
}

/// `purpose · ref REF` in words; "no purpose recorded" when none was.
export function purposeWords(
  t: TFunction,
  p: { text?: string; reference?: string } | null | undefined,
): string {
  const text = p?.text?.trim() ?? "";
  const reference = p?.reference?.trim() ?? "";
  if (text === "" && reference === "") return t("purpose.none");
  if (reference === "") return text;
  if (text === "") return t("purpose.refOnly", { reference });
  return t("purpose.withRef", { text, reference });
}

/// The confirmation's row: what the money is for, as it will be kept.
export function PurposeRow({ purpose }: { purpose: Purpose | undefined }) {
  const { t } = useTranslation();
  if (!purpose || (purpose.text.trim() === "" && purpose.reference.trim() === "")) return null;
  return (
    <Table.Tr>
      <Table.Th>{t("purpose.label")}</Table.Th>
      <Table.Td data-testid="confirm-purpose">{purposeWords(t, purpose)}</Table.Td>
    </Table.Tr>
  );
}

/// An order's purpose on its page: the purpose of the journal's request that made it
/// (its latest with one), or "no purpose recorded" (an order this desk did not make, or
/// one made without a purpose): never an invented value.
export function OrderPurpose({ events }: { events: TimelineEvent[] }) {
  const { t } = useTranslation();
  const requests = events.filter((e) => e.type === "request");
  const given = [...requests].reverse().find((e) => e.type === "request" && e.purpose)?.purpose;
  return (
    <Stack gap={2} mb="sm" data-testid="order-purpose">
      <Text size="sm">
        <Text span fw={500}>
          {t("purpose.label")}:{" "}
        </Text>
        <Text span c={given ? undefined : "dimmed"} data-testid="order-purpose-text">
          {purposeWords(t, given)}
        </Text>
      </Text>
      {!given && (
        <Text size="xs" c="dimmed">
          {t(requests.length === 0 ? "purpose.notMadeHere" : "purpose.noneGiven")}
        </Text>
      )}
    </Stack>
  );
}
