import { Badge, Button, Card, Group, ScrollArea, Switch, Table, Text, Title } from "@mantine/core";
import type { TFunction } from "i18next";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { ErrorAlert } from "../../components/ErrorAlert";
import { locale } from "../../i18n";
import { formatDuration, formatMoney } from "../../lib/format";
import type { ReviewQueueItem, ReviewStatus } from "../../lib/types";
import { useReviewQueue } from "./queries";

const STATUS_COLOR: Record<ReviewStatus, string> = {
  needsDocuments: "orange",
  notSent: "red",
  queued: "yellow",
  unknown: "yellow",
  refused: "red",
  submitted: "blue",
  approved: "teal",
  declined: "red",
};

export function reviewStatusText(t: TFunction, s: ReviewStatus): string {
  return t(`reviewDesk.status.${s}`);
}

/// The bank-transfer orders that need or have review documents: what asks for a person
/// first, oldest first, each with its status and how long it has stood so; a row's
/// button opens the order in the form.
export function ReviewQueue({ onOpen }: { onOpen: (item: ReviewQueueItem) => void }) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const queue = useReviewQueue();
  const [onlyWaiting, setOnlyWaiting] = useState(false);
  const all = queue.data ?? [];
  const needsPerson = (r: ReviewQueueItem) => r.status !== "submitted" && r.status !== "approved";
  const waiting = all.filter(needsPerson).length;
  const rows = onlyWaiting ? all.filter(needsPerson) : all;
  return (
    <Card withBorder data-testid="review-queue" data-count={rows.length}>
      <Group justify="space-between" mb="xs">
        <Title order={4}>{t("reviewDesk.queue")}</Title>
        <Group gap="md">
          <Text size="sm" c="dimmed">
            {t("reviewDesk.waiting", { count: waiting })}
          </Text>
          <Switch
            size="xs"
            label={t("reviewDesk.onlyWaiting")}
            checked={onlyWaiting}
            onChange={(e) => setOnlyWaiting(e.currentTarget.checked)}
            data-testid="review-queue-only-waiting"
          />
        </Group>
      </Group>
      {queue.error && <ErrorAlert error={queue.error} />}
      {queue.isSuccess && rows.length === 0 ? (
        <Text c="dimmed" size="sm" data-testid="review-queue-empty">
          {t(all.length > 0 ? "reviewDesk.noneWaiting" : "reviewDesk.empty")}
        </Text>
      ) : (
        <ScrollArea.Autosize mah={320} type="auto">
          <Table stickyHeader highlightOnHover>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t("review.tradeNo")}</Table.Th>
                <Table.Th>{t("reviewDesk.merOrderNo")}</Table.Th>
                <Table.Th>{t("reviewDesk.amount")}</Table.Th>
                <Table.Th>{t("reviewDesk.statusHead")}</Table.Th>
                <Table.Th>{t("reviewDesk.age")}</Table.Th>
                <Table.Th>{t("reviewDesk.sent")}</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((r) => (
                <Table.Tr
                  key={r.tradeNo}
                  data-testid="review-queue-row"
                  data-trade-no={r.tradeNo}
                  data-mer-order-no={r.merOrderNo}
                  data-status={r.status}
                >
                  <Table.Td>{r.tradeNo}</Table.Td>
                  <Table.Td>{r.merOrderNo || "—"}</Table.Td>
                  <Table.Td style={{ whiteSpace: "nowrap" }}>
                    {r.amount ? formatMoney(r.amount, r.currency, loc) : "—"}
                  </Table.Td>
                  <Table.Td style={{ whiteSpace: "nowrap" }}>
                    <Badge
                      variant="light"
                      color={STATUS_COLOR[r.status]}
                      style={{ minWidth: "max-content" }}
                    >
                      {reviewStatusText(t, r.status)}
                    </Badge>
                  </Table.Td>
                  <Table.Td
                    style={{ whiteSpace: "nowrap" }}
                    title={new Date(r.since).toISOString()}
                  >
                    {formatDuration(r.ageSecs, loc)}
                  </Table.Td>
                  <Table.Td>
                    {r.submissions > 0
                      ? t("reviewDesk.sentCount", { count: r.submissions, files: r.files })
                      : "—"}
                  </Table.Td>
                  <Table.Td>
                    <Button
                      size="xs"
                      variant="default"
                      onClick={() => onOpen(r)}
                      aria-label={t("reviewDesk.openLabel", { tradeNo: r.tradeNo })}
                      data-testid="review-queue-open"
                    >
                      {t("reviewDesk.open")}
                    </Button>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollArea.Autosize>
      )}
    </Card>
  );
}
