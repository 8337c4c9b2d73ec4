import { Alert, Badge, Code, CopyButton, Group, Loader, Stack, Table, Text } from "@mantine/core";
import { IconCheck, IconCopy } from "@tabler/icons-react";
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { cannotBeAsked, useReconcile } from "../features/money/queries";
import { locale } from "../i18n";
import { formatDateTime } from "../lib/format";
import type { Entry, JournalStatus, Receipt } from "../lib/types";

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

/// What a money operation came to: its journal entry (reconciled live while its outcome
/// is unknown), the gateway's numbers, and anything else the caller shows.
export function ReceiptView({ receipt, children }: { receipt: Receipt; children?: ReactNode }) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const reconcile = useReconcile(receipt.entry);
  const entry: Entry = reconcile.data ?? receipt.entry;
  const tradeNo = entry.tradeNo ?? receipt.tradeNo;
  return (
    <Stack gap="xs" data-testid="receipt" data-status={entry.status}>
      <Group gap="sm">
        <JournalBadge status={entry.status} />
        <Text size="sm">{entry.summary}</Text>
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
          <Group gap="xs">
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
        <Alert color="gray" variant="light">
          {t("receipt.pending", { message: entry.message ?? "" })}
        </Alert>
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
      <Text size="xs" c="dimmed">
        {t("receipt.journal", { id: entry.id, at: formatDateTime(entry.updatedAt, loc) })}
      </Text>
      {children}
    </Stack>
  );
}
