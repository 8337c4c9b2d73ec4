import { Alert, Button, Card, Checkbox, Group, Loader, Stack, Text } from "@mantine/core";
import { IconAlertTriangle } from "@tabler/icons-react";
import { useCallback, useState } from "react";
import { useTranslation } from "react-i18next";
import { ErrorAlert } from "../../components/ErrorAlert";
import { locale } from "../../i18n";
import { formatAge } from "../../lib/format";
import { coreError } from "../../lib/ipc";
import { entrySummary } from "../../lib/summary";
import type { CoreError, Receipt } from "../../lib/types";
import { useJournalEntry } from "./queries";
import { ReceiptView } from "./ReceiptView";

/// The backend's refusal of a new number for an intent already in the journal.
export type Duplicate = Extract<CoreError, { code: "duplicate" }>;

/// The duplicate refusal behind anything thrown, if it is one.
export function duplicateOf(e: unknown): Duplicate | null {
  if (!e) return null;
  const c = coreError(e);
  return c.code === "duplicate" ? c : null;
}

/// The duplicate refusal a create call last met, kept while the confirmed second one is
/// being sent (the mutation's own error is cleared as soon as it runs again): pass
/// `settle` as the mutation's `onSettled`, `clear` when the form starts over.
export function useDuplicate() {
  const [duplicate, setDuplicate] = useState<Duplicate | null>(null);
  const settle = useCallback((_data: unknown, error: unknown) => {
    setDuplicate(duplicateOf(error));
  }, []);
  const clear = useCallback(() => setDuplicate(null), []);
  return { duplicate, settle, clear };
}

function Earlier({ id }: { id: number }) {
  const entry = useJournalEntry(id);
  if (entry.error) return <ErrorAlert error={entry.error} />;
  if (!entry.data) return <Loader size="sm" />;
  const receipt: Receipt = {
    entry: entry.data,
    replayed: false,
    tradeNo: entry.data.tradeNo,
    payUrl: null,
    bank: null,
    fee: null,
    message: null,
  };
  return (
    <Card withBorder padding="sm" data-testid="duplicate-earlier">
      <ReceiptView receipt={receipt} />
    </Card>
  );
}

function Guard({
  duplicate: d,
  sending,
  onConfirm,
  onSendEarlier,
}: {
  duplicate: Duplicate;
  sending: boolean;
  onConfirm: () => void;
  onSendEarlier?: (merOrderNo: string) => void;
}) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const [showEarlier, setShowEarlier] = useState(false);
  const [confirmed, setConfirmed] = useState(false);
  const status = t(`journal.${d.earlier_status}`, { defaultValue: d.earlier_status });
  // The earlier entry in the user's words, read from its request; the desk's own line
  // (English) only if the entry cannot be read.
  const earlier = useJournalEntry(d.earlier_id);
  const summary = earlier.data
    ? entrySummary(earlier.data, t, loc)
    : earlier.error
      ? d.summary
      : "…";
  return (
    <Alert
      color="orange"
      variant="light"
      icon={<IconAlertTriangle size={18} />}
      title={t("duplicate.title")}
      data-testid="duplicate-guard"
      data-earlier={d.earlier_mer_order_no}
      data-earlier-status={d.earlier_status}
    >
      <Stack gap="sm">
        <Text size="sm">
          {t("duplicate.body", {
            summary,
            merOrderNo: d.earlier_mer_order_no,
            status,
            age: formatAge(d.age_secs, loc),
          })}
        </Text>
        <Text size="sm" fw={500}>
          {t("duplicate.nothingSent")}
        </Text>
        <Text size="sm">
          {t(
            d.earlier_status === "accepted"
              ? "duplicate.adviceAccepted"
              : onSendEarlier
                ? "entry.adviceSendEarlier"
                : "duplicate.adviceOpen",
            { merOrderNo: d.earlier_mer_order_no },
          )}
        </Text>
        {d.earlier_status !== "accepted" && onSendEarlier ? (
          <Button
            w="fit-content"
            loading={sending}
            onClick={() => {
              if (!sending) onSendEarlier(d.earlier_mer_order_no);
            }}
            data-testid="duplicate-send-earlier"
          >
            {t("entry.sendEarlier", { merOrderNo: d.earlier_mer_order_no })}
          </Button>
        ) : null}
        <Button
          variant="default"
          w="fit-content"
          aria-expanded={showEarlier}
          onClick={() => setShowEarlier((s) => !s)}
          data-testid="duplicate-show-earlier"
        >
          {t(showEarlier ? "duplicate.hideEarlier" : "duplicate.showEarlier", {
            merOrderNo: d.earlier_mer_order_no,
          })}
        </Button>
        {showEarlier && <Earlier id={d.earlier_id} />}
        <Checkbox
          label={t("duplicate.confirmCheck")}
          description={t("duplicate.confirmHint")}
          checked={confirmed}
          onChange={(e) => setConfirmed(e.currentTarget.checked)}
          data-testid="duplicate-confirm-check"
        />
        <Group>
          <Button
            color="red"
            disabled={!confirmed}
            loading={sending}
            onClick={() => {
              if (confirmed && !sending) onConfirm();
            }}
            data-testid="duplicate-confirm-send"
          >
            {t("duplicate.confirmSend")}
          </Button>
        </Group>
      </Stack>
    </Alert>
  );
}

/// Shown when a create call was refused because the same intent (operation, account,
/// amount, currency, beneficiary) is already in the journal under another number:
/// nothing was sent. It names the earlier one (and shows it, looked up live), and sends
/// a new one only after a second, explicit confirmation: `onConfirm` resends the same
/// form with `allowDuplicate` set. Nothing here confirms by itself.
export function DuplicateGuard({
  duplicate,
  sending,
  onConfirm,
  onSendEarlier,
}: {
  duplicate: Duplicate | null;
  sending: boolean;
  onConfirm: () => void;
  /// Sends this very request under the earlier entry's number (offered first while the
  /// earlier one is not accepted: the journal never sends one number twice).
  onSendEarlier?: (merOrderNo: string) => void;
}) {
  if (!duplicate) return null;
  // A new refusal starts unconfirmed.
  return (
    <Guard
      key={`${duplicate.earlier_id}-${duplicate.age_secs}`}
      duplicate={duplicate}
      sending={sending}
      onConfirm={onConfirm}
      onSendEarlier={onSendEarlier}
    />
  );
}
