import {
  Alert,
  Badge,
  Button,
  Code,
  CopyButton,
  Group,
  Loader,
  Stack,
  Table,
  Text,
  TextInput,
} from "@mantine/core";
import { IconCheck, IconCopy } from "@tabler/icons-react";
import { type ReactNode, useState } from "react";
import { useTranslation } from "react-i18next";
import { ErrorAlert } from "../../components/ErrorAlert";
import { locale } from "../../i18n";
import { useFieldErrors } from "../../lib/fieldErrors";
import { formatDateTime } from "../../lib/format";
import { entrySummary } from "../../lib/summary";
import type { Entry, JournalStatus, Receipt } from "../../lib/types";
import { cannotBeAsked, canResolve, newest, useReconcile, useResolve } from "./queries";

const COLORS: Record<JournalStatus, string> = {
  pending: "gray",
  sending: "yellow",
  accepted: "teal",
  rejected: "red",
  unknown: "orange",
};

export function JournalBadge({ status }: { status: JournalStatus }) {
  const { t } = useTranslation();
  return (
    <Badge color={COLORS[status]} variant="light" data-testid="journal-status" data-status={status}>
      {t(`journal.${status}`)}
    </Badge>
  );
}

/// A value with a copy button (order numbers, payment links, bank details).
export function CopyValue({
  label,
  value,
  testId,
}: {
  label: string;
  value: string;
  testId?: string;
}) {
  const { t } = useTranslation();
  return (
    <Group gap="xs" wrap="nowrap">
      <Text size="sm" c="dimmed" miw={110}>
        {label}
      </Text>
      <Code data-testid={testId} style={{ wordBreak: "break-all" }}>
        {value}
      </Code>
      <CopyButton value={value}>
        {({ copied, copy }) => (
          <Badge
            component="button"
            type="button"
            variant="default"
            onClick={copy}
            aria-label={`${t("common.copy")} ${label}`}
            leftSection={copied ? <IconCheck size={12} /> : <IconCopy size={12} />}
            style={{ cursor: "pointer" }}
          >
            {copied ? t("common.copied") : t("common.copy")}
          </Badge>
        )}
      </CopyButton>
    </Group>
  );
}

/// What to do next with an entry, for people.
function nextStep(e: Entry): string {
  if (e.status === "unknown" || e.status === "sending") {
    return cannotBeAsked(e) || canResolve(e) ? "resolve" : "wait";
  }
  return e.status;
}

/// The form that settles by hand an unknown outcome the gateway cannot be asked about
/// (a card withdrawal, a review submission): what the operator checked, and the verdict.
function ResolveForm({ entry, onRetry }: { entry: Entry; onRetry?: () => void }) {
  const { t } = useTranslation();
  const [reason, setReason] = useState("");
  const resolve = useResolve();
  const run = (done: boolean) => {
    if (resolve.isPending) return;
    resolve.mutate(
      { id: entry.id, done, reason },
      {
        onSuccess: (e) => {
          // Made safe to send again: send it, with the same reference.
          if (!done && e.status === "pending") onRetry?.();
        },
      },
    );
  };
  const failure = useFieldErrors(resolve.error);
  const reasonError = failure.err("reason");
  return (
    <Stack gap="xs" data-testid="resolve-form">
      <Text size="sm">{t("receipt.resolveIntro")}</Text>
      <TextInput
        label={t("receipt.resolveReason")}
        description={t("receipt.resolveReasonHint")}
        required
        value={reason}
        onChange={(e) => {
          failure.edited("reason");
          setReason(e.currentTarget.value);
        }}
        error={reasonError}
        data-testid="resolve-reason"
      />
      <Group gap="xs">
        <Button
          size="xs"
          color="teal"
          loading={resolve.isPending && resolve.variables?.done === true}
          disabled={resolve.isPending}
          onClick={() => run(true)}
          data-testid="resolve-done"
        >
          {t("receipt.resolveDone")}
        </Button>
        <Button
          size="xs"
          variant="default"
          loading={resolve.isPending && resolve.variables?.done === false}
          disabled={resolve.isPending}
          onClick={() => run(false)}
          data-testid="resolve-retry"
        >
          {t("receipt.resolveRetry")}
        </Button>
      </Group>
      {resolve.error && !reasonError && <ErrorAlert error={resolve.error} />}
    </Stack>
  );
}

/// What a money operation came to: its journal entry (reconciled live while its outcome
/// is unknown, or resolved by hand when the gateway cannot be asked), the gateway's
/// numbers, the next step, and anything else the caller shows. `onRetry` sends the same
/// request again under the same number (offered when the entry is known not sent).
export function ReceiptView({
  receipt,
  children,
  onRetry,
  retrying = false,
  retryTestId = "receipt-retry-same",
}: {
  receipt: Receipt;
  children?: ReactNode;
  onRetry?: () => void;
  retrying?: boolean;
  retryTestId?: string;
}) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const reconcile = useReconcile(receipt.entry);
  const entry: Entry = newest(receipt.entry, reconcile.data);
  const tradeNo = entry.tradeNo ?? receipt.tradeNo;
  const step = nextStep(entry);
  return (
    <Stack gap="xs" data-testid="receipt" data-status={entry.status} data-focus-home>
      <Group gap="sm">
        <JournalBadge status={entry.status} />
        <Text size="sm" data-testid="receipt-summary">
          {entrySummary(entry, t, loc)}
        </Text>
      </Group>
      {receipt.replayed && (
        <Alert color="blue" variant="light" data-testid="receipt-replayed">
          {t("receipt.replayed")}
        </Alert>
      )}
      {entry.status === "unknown" && cannotBeAsked(entry) && (
        <Alert color="orange" variant="light" data-testid="receipt-unknown">
          {t("receipt.cannotAsk", { message: entry.message ?? "" })}
        </Alert>
      )}
      {(entry.status === "unknown" || entry.status === "sending") && !cannotBeAsked(entry) && (
        <Alert color="orange" variant="light" data-testid="receipt-reconciling">
          <Group gap="xs" wrap="nowrap">
            <Loader size="xs" />
            <Text size="sm">
              {t("receipt.reconciling", {
                attempts: entry.attempts,
                next: formatDateTime(entry.nextCheckAt, loc),
              })}
            </Text>
          </Group>
        </Alert>
      )}
      {entry.status === "rejected" && (
        <Alert color="red" variant="light" data-testid="receipt-rejected">
          {t("receipt.rejected", {
            // The message of an HTTP refusal already starts with its status.
            code: entry.code && !(entry.message ?? "").startsWith(entry.code) ? entry.code : "",
            message: entry.message ?? "",
          })}
        </Alert>
      )}
      {entry.status === "pending" && (
        <Alert color="gray" variant="light" data-testid="receipt-pending">
          {t("receipt.pending", { message: entry.message ?? "" })}
        </Alert>
      )}
      {entry.resolution && (
        <Text size="sm" data-testid="receipt-resolution">
          {t("receipt.resolution", { resolution: entry.resolution })}
        </Text>
      )}
      <Table withRowBorders={false} verticalSpacing={2}>
        <Table.Tbody>
          <Table.Tr>
            <Table.Td>
              <CopyValue
                label={t("receipt.merOrderNo")}
                value={entry.merOrderNo}
                testId="receipt-mer-order-no"
              />
            </Table.Td>
          </Table.Tr>
          {tradeNo && (
            <Table.Tr>
              <Table.Td>
                <CopyValue label={t("receipt.tradeNo")} value={tradeNo} testId="receipt-trade-no" />
              </Table.Td>
            </Table.Tr>
          )}
        </Table.Tbody>
      </Table>
      <Text size="sm" fw={500} data-testid="receipt-next" data-step={step}>
        {t(`receipt.next.${step}`, { merOrderNo: entry.merOrderNo })}
      </Text>
      {entry.status === "pending" && onRetry && (
        <Button
          color="red"
          w="fit-content"
          loading={retrying}
          onClick={() => {
            if (!retrying) onRetry();
          }}
          data-testid={retryTestId}
        >
          {t("receipt.retrySame", { merOrderNo: entry.merOrderNo })}
        </Button>
      )}
      {canResolve(entry) && <ResolveForm key={entry.id} entry={entry} onRetry={onRetry} />}
      <Text size="xs" c="dimmed">
        {t("receipt.journal", { id: entry.id, at: formatDateTime(entry.updatedAt, loc) })}
      </Text>
      {children}
    </Stack>
  );
}
