import { Alert, Badge, Button, Card, Group, Stack, Table, Text, Title } from "@mantine/core";
import { IconAlertTriangle } from "@tabler/icons-react";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { useNavigate, useSearchParams } from "react-router";
import { ErrorAlert } from "../../components/ErrorAlert";
import { locale } from "../../i18n";
import { formatDateTime } from "../../lib/format";
import { entrySummary } from "../../lib/summary";
import type { Attention, Dashboard, Entry, HeldBulkRow } from "../../lib/types";
import { EntryDrawer, isPayin } from "../money/EntryDrawer";
import { newest, useEntryNow, useLookUpNow } from "../money/queries";
import { JournalBadge } from "../money/ReceiptView";
import { rowReason } from "../payouts/reason";
import { runPeriod } from "../reports/Schedules";
import {
  type ScheduleAlert,
  useRunScheduleNow,
  useScheduleRunsSeen,
} from "../reports/schedulesQueries";

/// One item and the action the core says resolves it.
function Item({ item, onOpen }: { item: Attention; onOpen: (e: Entry) => void }) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const lookUp = useLookUpNow();
  const entry = newest(useEntryNow(item.entry) ?? item.entry, lookUp.data);
  const no = entry.merOrderNo;
  const action =
    item.action === "send_again" ? (
      item.accountField || isPayin(entry) ? (
        <Button
          size="xs"
          color="red"
          onClick={() => onOpen(entry)}
          data-testid="attention-send-again"
        >
          {t("attention.actionSendAgain", { merOrderNo: no })}
        </Button>
      ) : (
        <Text size="xs">{t("attention.fromForm", { merOrderNo: no })}</Text>
      )
    ) : item.action === "look_up" ? (
      <Button
        size="xs"
        variant="default"
        loading={lookUp.isPending}
        onClick={() => {
          if (!lookUp.isPending) lookUp.mutate(entry.id);
        }}
        data-testid="attention-look-up"
      >
        {t("attention.actionLookUp")}
      </Button>
    ) : (
      <Button
        size="xs"
        variant="default"
        onClick={() => onOpen(entry)}
        data-testid="attention-resolve"
      >
        {t("attention.actionResolve")}
      </Button>
    );
  return (
    <Table.Tr data-testid="attention-item" data-action={item.action} data-mer-order-no={no}>
      <Table.Td>
        <JournalBadge status={entry.status} />
      </Table.Td>
      <Table.Td>
        <Stack gap={2}>
          <Text size="sm" fw={500}>
            {no} · {entrySummary(entry, t, loc)}
          </Text>
          <Text size="xs" c="dimmed">
            {t(
              `attention.${item.action === "send_again" ? "sendAgain" : item.action === "look_up" ? "lookUp" : "resolve"}`,
            )}{" "}
            {t("attention.since", { time: formatDateTime(entry.createdAt, loc) })}
          </Text>
          {lookUp.error ? <ErrorAlert error={lookUp.error} /> : null}
        </Stack>
      </Table.Td>
      <Table.Td>
        <Group gap="xs" wrap="nowrap" justify="flex-end">
          {action}
          <Button
            size="xs"
            variant="subtle"
            onClick={() => onOpen(entry)}
            data-testid="attention-open"
          >
            {t("attention.open")}
          </Button>
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}

/// A bulk row a run held (the duplicate guard): not in the journal, it waits in its bulk
/// run, which the action opens (checked again, the held rows shown with their reasons).
function HeldItem({ row }: { row: HeldBulkRow }) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const navigate = useNavigate();
  const name = row.file.split(/[\\/]/).pop() ?? row.file;
  return (
    <Table.Tr
      data-testid="attention-held-bulk"
      data-file={row.file}
      data-line={row.line}
      data-mer-order-no={row.merOrderNo}
    >
      <Table.Td>
        <Stack gap={2}>
          <Group gap="xs">
            <Badge color="orange" variant="light">
              {t("attention.heldBadge")}
            </Badge>
            <Text size="sm" fw={500}>
              {t("attention.heldRow", { file: name, line: row.line })}
              {row.merOrderNo ? ` (${row.merOrderNo})` : ""}
            </Text>
          </Group>
          {/* Why it was held, in the user's words (a list kept by an earlier PayDesk
              has only the result file's English, which the run shows). */}
          {row.why && (
            <Text size="xs" data-testid="attention-held-why">
              {rowReason(t, row.why)}
            </Text>
          )}
          <Text size="xs" c="dimmed">
            {t("attention.heldSince", { time: formatDateTime(row.heldAt, loc) })}
          </Text>
        </Stack>
      </Table.Td>
      <Table.Td style={{ textAlign: "right" }}>
        <Button
          size="xs"
          variant="light"
          onClick={() => navigate(`/payouts?bulk=${encodeURIComponent(row.file)}`)}
          data-testid="attention-open-bulk"
        >
          {t("attention.openBulk")}
        </Button>
      </Table.Td>
    </Table.Tr>
  );
}

/// A scheduled report that failed, or was missed at its time (the desk was closed): run
/// it again, or mark it seen; the schedules are on the Reports screen.
function ScheduleItem({ alert }: { alert: ScheduleAlert }) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const navigate = useNavigate();
  const run = useRunScheduleNow();
  const seen = useScheduleRunsSeen();
  const r = alert.run;
  const title = alert.failed
    ? t("schedules.alertFailed", { name: r.name })
    : t("schedules.alertMissed", { name: r.name });
  const detail = alert.failed
    ? t("schedules.alertFailedDetail", {
        period: runPeriod(r),
        at: formatDateTime(r.startedAt, loc),
        error: r.error ?? "",
      })
    : r.outcome === "missed"
      ? t("schedules.alertMissedNotRun", { due: formatDateTime(r.dueAt, loc) })
      : t("schedules.alertMissedCaught", {
          due: formatDateTime(r.dueAt, loc),
          at: formatDateTime(r.startedAt, loc),
          file: r.file ?? r.error ?? "",
        });
  return (
    <Table.Tr
      data-testid="attention-schedule"
      data-failed={alert.failed}
      data-missed={alert.missed}
      data-schedule={r.schedule}
    >
      <Table.Td>
        <Stack gap={2}>
          <Group gap="xs">
            <Badge color={alert.failed ? "red" : "orange"} variant="light">
              {alert.failed ? t("schedules.outcomeFailed") : t("schedules.outcomeMissed")}
            </Badge>
            <Text size="sm" fw={500}>
              {title}
            </Text>
          </Group>
          <Text size="xs" c="dimmed" style={{ wordBreak: "break-word" }}>
            {detail}
          </Text>
          {run.error ? <ErrorAlert error={run.error} /> : null}
        </Stack>
      </Table.Td>
      <Table.Td>
        <Group gap="xs" wrap="nowrap" justify="flex-end">
          {alert.failed || r.outcome === "missed" ? (
            <Button
              size="xs"
              variant="light"
              loading={run.isPending}
              onClick={() => {
                if (!run.isPending)
                  run.mutate(r.schedule, { onSuccess: () => seen.mutate([r.id]) });
              }}
              data-testid="attention-schedule-run"
            >
              {run.isPending ? t("schedules.running") : t("schedules.runAgain")}
            </Button>
          ) : null}
          <Button
            size="xs"
            variant="default"
            loading={seen.isPending}
            onClick={() => seen.mutate([r.id])}
            data-testid="attention-schedule-seen"
          >
            {t("schedules.seen")}
          </Button>
          <Button
            size="xs"
            variant="subtle"
            onClick={() => navigate("/reports#schedules")}
            data-testid="attention-schedule-open"
          >
            {t("schedules.openSchedules")}
          </Button>
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}

/// What waits for a person, first on the Dashboard: every journal entry the core says
/// needs one, with the action that resolves it; a failed sync; review submissions.
export function AttentionCard({ data }: { data: Dashboard }) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const [open, setOpen] = useState<Entry | null>(null);
  const items = data.needsAttention;
  // An alert opened here (`?entry=<journal id>`, issue 35) opens its entry.
  const [params, setParams] = useSearchParams();
  const asked = params.get("entry");
  useEffect(() => {
    const found = items.find((i) => String(i.entry.id) === asked);
    if (!found) return;
    setOpen(found.entry);
    setParams(
      (p) => {
        p.delete("entry");
        return p;
      },
      { replace: true },
    );
  }, [asked, items, setParams]);
  const held = data.heldBulk;
  const schedules = data.scheduleAlerts ?? [];
  const count = items.length + held.length + schedules.length;
  const nothing = count === 0 && data.pendingReviews === 0 && !data.syncError;
  return (
    <Card
      withBorder
      data-testid="dashboard-attention"
      data-count={count}
      style={nothing ? undefined : { borderColor: "var(--mantine-color-orange-6)" }}
    >
      <Group gap="xs" mb="xs">
        {nothing ? null : <IconAlertTriangle size={18} color="var(--mantine-color-orange-6)" />}
        <Title order={3} size="h5">
          {t("attention.title")}
        </Title>
        {count > 0 ? (
          <Badge color="orange" variant="light">
            {t("attention.count", { count })}
          </Badge>
        ) : null}
      </Group>
      {nothing ? <Text c="dimmed">{t("attention.allClear")}</Text> : null}
      {data.syncError ? (
        <Alert color="red" variant="light" title={t("dashboard.syncError")} mb="sm">
          {formatDateTime(data.syncError[0], loc)}: {data.syncError[1]}
        </Alert>
      ) : null}
      {data.pendingReviews > 0 ? (
        <Text mb="sm">
          {t("dashboard.pendingReviews")}: {data.pendingReviews}
        </Text>
      ) : null}
      {count > 0 ? (
        <>
          <Text size="xs" c="dimmed" mb="xs">
            {t("attention.intro")}
          </Text>
          <Table verticalSpacing="xs">
            <Table.Tbody>
              {items.map((item) => (
                <Item key={item.entry.id} item={item} onOpen={setOpen} />
              ))}
              {held.map((row) => (
                <HeldItem key={`${row.file}:${row.line}`} row={row} />
              ))}
              {schedules.map((a) => (
                <ScheduleItem key={`schedule-${a.run.id}`} alert={a} />
              ))}
            </Table.Tbody>
          </Table>
        </>
      ) : null}
      <EntryDrawer entry={open} onClose={() => setOpen(null)} />
    </Card>
  );
}
