import {
  Alert,
  Badge,
  Button,
  Card,
  Code,
  Drawer,
  Group,
  Stack,
  Table,
  Text,
  Textarea,
  TextInput,
  Title,
} from "@mantine/core";
import { IconRefresh } from "@tabler/icons-react";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { ErrorAlert } from "../../components/ErrorAlert";
import { locale } from "../../i18n";
import { formatDateTime, formatDateTimeShort, timeZoneLabel } from "../../lib/format";
import { fieldError } from "../../lib/ipc";
import type { NotificationEvent } from "../../lib/types";
import { useAppStatus } from "../app/queries";
import { TableViewBar, ViewHead } from "../views/TableViewBar";
import { type TableColumn, useTableView } from "../views/useTableView";
import { useEvents, useVerifyEvent } from "./queries";

/// The notifications table's columns (a saved view keeps which, in which order and how
/// wide); the last one opens the body.
const COLUMNS: TableColumn[] = [
  {
    id: "receivedAt",
    label: "events.received",
    width: 190,
    sortable: true,
    labelParams: () => ({ zone: timeZoneLabel() }),
  },
  { id: "kind", label: "events.kind", width: 130, sortable: true },
  { id: "tradeNo", label: "events.tradeNo", width: 200, sortable: true },
  { id: "signature", label: "events.signature", width: 130, sortable: true },
  { id: "attempts", label: "events.attempts", width: 130, sortable: true },
  { id: "body", label: "views.body", width: 120 },
];
const DEFAULTS = { fields: { tradeNo: "" }, sort: null };

/// Where this profile's notifications go: the desk's receiver (and so this list), the
/// profile's own URL (the merchant's backend: they do not come here), or nowhere yet.
function NotifyTargetNote() {
  const { t } = useTranslation();
  const status = useAppStatus();
  const target = status.data?.notify;
  if (!target) return null;
  if (target.kind === "desk") {
    return (
      <Alert color="blue" variant="light" data-testid="notify-target" data-kind="desk">
        {t("events.target.desk", { url: target.url ?? t("events.target.notRunning") })}
      </Alert>
    );
  }
  if (target.kind === "profile") {
    return (
      <Alert color="yellow" variant="light" data-testid="notify-target" data-kind="profile">
        {t("events.target.profile", { url: target.url })}
      </Alert>
    );
  }
  return (
    <Alert color="red" variant="light" data-testid="notify-target" data-kind="missing">
      {t("events.target.missing")}
    </Alert>
  );
}

function pretty(body: string) {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function SignatureBadge({ ok }: { ok: boolean }) {
  const { t } = useTranslation();
  return (
    <Badge
      color={ok ? "teal" : "red"}
      variant="light"
      data-testid="event-signature"
      data-ok={String(ok)}
    >
      {t(ok ? "events.valid" : "events.invalid")}
    </Badge>
  );
}

/// A notification's body beside the list, not inside it: opened in a row, a long body
/// pushed the rest of the list off the screen.
function BodyDrawer({ event, onClose }: { event: NotificationEvent | null; onClose: () => void }) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  return (
    <Drawer
      opened={event !== null}
      onClose={onClose}
      position="right"
      size="lg"
      title={
        event
          ? t("events.bodyOf", {
              kind: t(`events.kinds.${event.kind}`, { defaultValue: event.kind }),
              tradeNo: event.tradeNo,
            })
          : null
      }
    >
      {event ? (
        <Stack gap="xs" data-testid="event-body" data-trade-no={event.tradeNo}>
          <Group gap="xs">
            <SignatureBadge ok={event.signatureOk} />
            <Text size="sm" c="dimmed">
              {formatDateTime(event.receivedAt, loc)}
            </Text>
          </Group>
          <Code block>{pretty(event.body)}</Code>
        </Stack>
      ) : null}
    </Drawer>
  );
}

function Verify() {
  const { t } = useTranslation();
  const [body, setBody] = useState("");
  const verify = useVerifyEvent();
  const r = verify.data;
  return (
    <Card withBorder>
      <Title order={4} mb="xs">
        {t("events.verifyTitle")}
      </Title>
      <Textarea
        label={t("events.body")}
        description={t("events.bodyHint")}
        autosize
        minRows={4}
        maxRows={12}
        value={body}
        onChange={(e) => {
          setBody(e.currentTarget.value);
          verify.reset();
        }}
        error={fieldError(verify.error, "body")}
        styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
        data-testid="verify-body"
      />
      <Button
        mt="sm"
        style={{ alignSelf: "flex-start" }}
        onClick={() => verify.mutate(body)}
        loading={verify.isPending}
        data-testid="verify-button"
      >
        {t("events.verify")}
      </Button>
      {verify.error && !fieldError(verify.error, "body") && <ErrorAlert error={verify.error} />}
      {r && (
        <Alert
          mt="sm"
          color={r.signatureOk ? "teal" : "red"}
          variant="light"
          data-testid="verify-result"
          data-ok={String(r.signatureOk)}
        >
          <Stack gap={4}>
            <Text fw={500}>{t(r.signatureOk ? "events.verifiedOk" : "events.verifiedBad")}</Text>
            <Text size="sm">
              {t("events.kindOrder", {
                kind: r.kind ? t(`events.kinds.${r.kind}`, { defaultValue: r.kind }) : "—",
                tradeNo: r.tradeNo || "—",
              })}
            </Text>
            {r.problem && <Text size="sm">{r.problem}</Text>}
          </Stack>
        </Alert>
      )}
    </Card>
  );
}

export function EventsPage() {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const list = useEvents();
  const [open, setOpen] = useState<number | null>(null);
  const tv = useTableView("events", COLUMNS, DEFAULTS);
  const search = (tv.fields.tradeNo ?? "").trim();
  const events = tv
    .rows(
      list.data ?? [],
      (e) => e.receivedAt,
      (id, e) =>
        id === "receivedAt"
          ? e.receivedAt
          : id === "kind"
            ? e.kind
            : id === "tradeNo"
              ? e.tradeNo
              : id === "signature"
                ? Number(e.signatureOk)
                : id === "attempts"
                  ? e.attempts
                  : null,
    )
    .filter((e) => search === "" || e.tradeNo.includes(search));
  return (
    <Stack data-testid="screen-events">
      <Group justify="space-between">
        <Title order={2}>{t("events.title")}</Title>
        <Button
          variant="default"
          leftSection={<IconRefresh size={16} />}
          loading={list.isFetching}
          onClick={() => list.refetch()}
        >
          {t("common.refresh")}
        </Button>
      </Group>
      <Text size="sm" c="dimmed">
        {t("events.intro")}
      </Text>
      <NotifyTargetNote />
      <Group justify="space-between" align="flex-end">
        <TextInput
          size="xs"
          label={t("events.tradeNo")}
          value={tv.fields.tradeNo ?? ""}
          onChange={(e) => tv.setField("tradeNo", e.currentTarget.value)}
          w={240}
          data-testid="events-search"
        />
        <TableViewBar tv={tv} screen="events" />
      </Group>
      <Card withBorder>
        {list.error && <ErrorAlert error={list.error} />}
        {list.data?.length === 0 ? (
          <Text c="dimmed" size="sm">
            {t("events.none")}
          </Text>
        ) : (
          <Table.ScrollContainer minWidth={700}>
            <Table data-testid="events-table" highlightOnHover>
              <ViewHead tv={tv} />
              <Table.Tbody>
                {events.map((e) => (
                  <Table.Tr key={e.id} data-trade-no={e.tradeNo} data-kind={e.kind}>
                    {tv.shown.map((c) => (
                      <Table.Td key={c.id} style={{ width: c.width }}>
                        {c.id === "receivedAt" ? formatDateTimeShort(e.receivedAt, loc) : null}
                        {c.id === "kind"
                          ? t(`events.kinds.${e.kind}`, { defaultValue: e.kind })
                          : null}
                        {c.id === "tradeNo" ? e.tradeNo : null}
                        {c.id === "signature" ? <SignatureBadge ok={e.signatureOk} /> : null}
                        {c.id === "attempts"
                          ? e.attempts === null
                            ? "—"
                            : t(e.delivered ? "events.delivered" : "events.tries", {
                                count: e.attempts,
                              })
                          : null}
                        {c.id === "body" ? (
                          <Button
                            size="compact-xs"
                            variant="subtle"
                            aria-haspopup="dialog"
                            onClick={() => setOpen(e.id)}
                            data-testid="event-show-body"
                          >
                            {t("events.showBody")}
                          </Button>
                        ) : null}
                      </Table.Td>
                    ))}
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Card>
      <Verify />
      <BodyDrawer
        event={list.data?.find((e) => e.id === open) ?? null}
        onClose={() => setOpen(null)}
      />
    </Stack>
  );
}
