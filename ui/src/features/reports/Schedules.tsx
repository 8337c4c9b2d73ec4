import {
  Badge,
  Button,
  Card,
  Checkbox,
  Group,
  SegmentedControl,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { IconCalendarTime, IconPlayerPlay, IconPlus } from "@tabler/icons-react";
import type { TFunction } from "i18next";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { useInRouterContext, useLocation } from "react-router";
import { ErrorAlert, toastOk } from "../../components/ErrorAlert";
import { locale } from "../../i18n";
import { formatDateTime } from "../../lib/format";
import { fieldError } from "../../lib/ipc";
import {
  type ScheduleRun,
  type ScheduleSpec,
  type ScheduleView,
  usePauseSchedule,
  useRemoveSchedule,
  useRunScheduleNow,
  useSaveSchedule,
  useSchedules,
} from "./schedulesQueries";

const WEEKDAYS = ["1", "2", "3", "4", "5", "6", "7"] as const;

/// A schedule's cadence in words ("Weekly on Monday at 07:00").
export function cadenceWords(spec: ScheduleSpec, t: TFunction): string {
  const c = spec.cadence;
  if (c.every === "week")
    return t("schedules.weekly", {
      weekday: t(`schedules.weekdays.${String(c.weekday ?? 1) as (typeof WEEKDAYS)[number]}`),
      time: c.time,
    });
  if (c.every === "month") return t("schedules.monthly", { day: c.day, time: c.time });
  return t("schedules.daily", { time: c.time });
}

/// The days a run covers, as one day or "first – last".
export function runPeriod(r: ScheduleRun): string {
  return r.firstDay === r.lastDay ? r.firstDay : `${r.firstDay} – ${r.lastDay}`;
}

/// How a run ended: a badge, then its file or its error.
export function RunResult({ run }: { run: ScheduleRun }) {
  const { t } = useTranslation();
  const color =
    run.outcome === "ok"
      ? "green"
      : run.outcome === "failed"
        ? "red"
        : run.outcome === "missed"
          ? "orange"
          : "blue";
  const word = {
    ok: t("schedules.outcomeOk"),
    failed: t("schedules.outcomeFailed"),
    missed: t("schedules.outcomeMissed"),
    running: t("schedules.outcomeRunning"),
  }[run.outcome];
  const how =
    run.trigger === "catchUp"
      ? t("schedules.caughtUp")
      : run.trigger === "manual"
        ? t("schedules.manual")
        : "";
  return (
    <Stack gap={2} data-testid="schedule-run-result" data-outcome={run.outcome}>
      <Group gap={6}>
        <Badge color={color} variant="light">
          {word}
        </Badge>
        <Text size="xs">{runPeriod(run)}</Text>
        {how ? (
          <Text size="xs" c="dimmed">
            ({how})
          </Text>
        ) : null}
      </Group>
      {run.outcome === "ok" && run.file ? (
        <Text size="xs" style={{ wordBreak: "break-all" }} data-testid="schedule-run-file">
          {t("schedules.ranOk", { count: run.rows ?? 0, file: run.file })}
        </Text>
      ) : null}
      {run.error ? (
        <Text size="xs" c="red" style={{ wordBreak: "break-word" }}>
          {run.error}
        </Text>
      ) : null}
    </Stack>
  );
}

function blank(): ScheduleSpec {
  return {
    name: "",
    report: "statement",
    format: "xlsx",
    cadence: { every: "day", weekday: 1, day: 1, time: "07:00" },
    folder: "",
    currency: "",
    refresh: true,
  };
}

/// Adding or changing a schedule: every field the core checks, its error under it.
function ScheduleForm({
  id,
  initial,
  zone,
  onDone,
}: {
  id: number | null;
  initial: ScheduleSpec;
  zone: string;
  onDone: () => void;
}) {
  const { t } = useTranslation();
  const [spec, setSpec] = useState<ScheduleSpec>(initial);
  const save = useSaveSchedule();
  // Opened below the list: brought into view with the name to type.
  const nameRef = useRef<HTMLInputElement>(null);
  useEffect(() => {
    nameRef.current?.scrollIntoView({ block: "center" });
    nameRef.current?.focus();
  }, []);
  const set = (patch: Partial<ScheduleSpec>) => setSpec((s) => ({ ...s, ...patch }));
  const cadence = (patch: Partial<ScheduleSpec["cadence"]>) =>
    setSpec((s) => ({ ...s, cadence: { ...s.cadence, ...patch } }));
  const err = (f: string) => fieldError(save.error, f);
  const known = ["name", "format", "time", "weekday", "day", "folder", "currency"].some((f) =>
    err(f),
  );
  return (
    <Card withBorder mb="sm" data-testid="schedule-form">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate(
            { id, spec },
            {
              onSuccess: () => {
                toastOk(t("schedules.saved"));
                onDone();
              },
            },
          );
        }}
      >
        <Stack gap="sm">
          <Title order={4} size="h6">
            {id === null ? t("schedules.addTitle") : t("schedules.editTitle")}
          </Title>
          <TextInput
            label={t("schedules.name")}
            description={t("schedules.nameHint")}
            value={spec.name}
            onChange={(e) => set({ name: e.currentTarget.value })}
            error={err("name")}
            ref={nameRef}
            data-testid="schedule-name"
          />
          <Group align="flex-end" gap="lg">
            <Stack gap={4}>
              <Text size="sm" fw={500}>
                {t("schedules.report")}
              </Text>
              <SegmentedControl
                value={spec.report}
                onChange={(v) => {
                  const report = v as ScheduleSpec["report"];
                  set({
                    report,
                    format: report === "orders" && spec.format === "pdf" ? "xlsx" : spec.format,
                  });
                }}
                data={[
                  { value: "statement", label: t("schedules.reportStatement") },
                  { value: "orders", label: t("schedules.reportOrders") },
                ]}
                data-testid="schedule-report"
              />
            </Stack>
            <Stack gap={4}>
              <Text size="sm" fw={500}>
                {t("schedules.format")}
              </Text>
              <SegmentedControl
                value={spec.format}
                onChange={(v) => set({ format: v as ScheduleSpec["format"] })}
                data={[
                  { value: "xlsx", label: "XLSX" },
                  { value: "csv", label: "CSV" },
                  { value: "pdf", label: "PDF", disabled: spec.report === "orders" },
                ]}
                data-testid="schedule-format"
              />
              {err("format") ? (
                <Text size="xs" c="red">
                  {err("format")}
                </Text>
              ) : null}
            </Stack>
          </Group>
          <Group align="flex-start" gap="lg">
            <Stack gap={4}>
              <Text size="sm" fw={500}>
                {t("schedules.every")}
              </Text>
              <SegmentedControl
                value={spec.cadence.every}
                onChange={(v) => cadence({ every: v as ScheduleSpec["cadence"]["every"] })}
                data={[
                  { value: "day", label: t("schedules.everyDay") },
                  { value: "week", label: t("schedules.everyWeek") },
                  { value: "month", label: t("schedules.everyMonth") },
                ]}
                data-testid="schedule-every"
              />
            </Stack>
            {spec.cadence.every === "week" ? (
              <Select
                label={t("schedules.weekday")}
                value={String(spec.cadence.weekday ?? 1)}
                onChange={(v) => cadence({ weekday: Number(v ?? "1") })}
                data={WEEKDAYS.map((d) => ({ value: d, label: t(`schedules.weekdays.${d}`) }))}
                allowDeselect={false}
                error={err("weekday")}
                w={160}
                data-testid="schedule-weekday"
              />
            ) : null}
            {spec.cadence.every === "month" ? (
              <Select
                label={t("schedules.day")}
                description={t("schedules.dayHint")}
                value={String(spec.cadence.day ?? 1)}
                onChange={(v) => cadence({ day: Number(v ?? "1") })}
                data={Array.from({ length: 31 }, (_, i) => String(i + 1))}
                allowDeselect={false}
                error={err("day")}
                maw={320}
                data-testid="schedule-day"
              />
            ) : null}
            <TextInput
              label={t("schedules.time", { zone })}
              description={t("schedules.timeHint")}
              value={spec.cadence.time}
              onChange={(e) => cadence({ time: e.currentTarget.value })}
              error={err("time")}
              placeholder="07:00"
              maw={320}
              data-testid="schedule-time"
            />
          </Group>
          <TextInput
            label={t("schedules.folder")}
            description={t("schedules.folderHint")}
            value={spec.folder}
            onChange={(e) => set({ folder: e.currentTarget.value })}
            error={err("folder")}
            placeholder="/srv/finance/statements"
            data-testid="schedule-folder"
          />
          <TextInput
            label={t("schedules.currency")}
            description={t("schedules.currencyHint")}
            value={spec.currency ?? ""}
            onChange={(e) => set({ currency: e.currentTarget.value.toUpperCase() })}
            error={err("currency")}
            maw={200}
            data-testid="schedule-currency"
          />
          <Checkbox
            label={t("schedules.refresh")}
            description={t("schedules.refreshHint")}
            checked={spec.refresh ?? true}
            onChange={(e) => set({ refresh: e.currentTarget.checked })}
            data-testid="schedule-refresh"
          />
          {known ? null : <ErrorAlert error={save.error} />}
          <Group>
            <Button type="submit" loading={save.isPending} data-testid="schedule-save">
              {t("schedules.save")}
            </Button>
            <Button variant="default" onClick={onDone} data-testid="schedule-cancel">
              {t("schedules.cancel")}
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}

/// One schedule's row: when, where, next and last run, and what can be done with it.
function ScheduleRow({ view, onEdit }: { view: ScheduleView; onEdit: () => void }) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const s = view.schedule;
  const run = useRunScheduleNow();
  const pause = usePauseSchedule();
  const remove = useRemoveSchedule();
  const [confirming, setConfirming] = useState(false);
  const what = `${s.spec.report === "orders" ? t("schedules.reportOrders") : t("schedules.reportStatement")} · ${s.spec.format.toUpperCase()}${s.spec.currency ? ` · ${s.spec.currency}` : ""}`;
  return (
    <Table.Tr data-testid="schedule-row" data-name={s.spec.name} data-id={s.id}>
      <Table.Td>
        <Text size="sm" fw={500}>
          {s.spec.name}
        </Text>
        <Text size="xs" c="dimmed">
          {what}
        </Text>
        <Text size="xs" c="dimmed" style={{ wordBreak: "break-all" }}>
          {s.spec.folder}
        </Text>
      </Table.Td>
      <Table.Td>
        <Text size="sm" style={{ whiteSpace: "nowrap" }}>
          {cadenceWords(s.spec, t)}
        </Text>
      </Table.Td>
      <Table.Td>
        {s.paused ? (
          <Badge color="gray" variant="light">
            {t("schedules.paused")}
          </Badge>
        ) : (
          <Text size="sm">{formatDateTime(view.nextRun, loc)}</Text>
        )}
      </Table.Td>
      <Table.Td>
        {view.lastRun ? (
          <RunResult run={view.lastRun} />
        ) : (
          <Text size="xs" c="dimmed">
            {t("schedules.neverRun")}
          </Text>
        )}
        {run.error ? <ErrorAlert error={run.error} /> : null}
      </Table.Td>
      <Table.Td>
        {confirming ? (
          <Stack gap={4} align="flex-end" maw={260} data-testid="schedule-remove-confirm">
            <Text size="xs">{t("schedules.removeConfirm", { name: s.spec.name })}</Text>
            <Group gap={4} wrap="nowrap">
              <Button
                size="xs"
                color="red"
                loading={remove.isPending}
                onClick={() =>
                  remove.mutate(s.id, { onSuccess: () => toastOk(t("schedules.removed")) })
                }
                data-testid="schedule-remove-yes"
              >
                {t("schedules.removeYes")}
              </Button>
              <Button size="xs" variant="default" onClick={() => setConfirming(false)}>
                {t("schedules.removeKeep")}
              </Button>
            </Group>
          </Stack>
        ) : (
          <Group gap={4} justify="flex-end" wrap="nowrap">
            <Button
              size="xs"
              variant="light"
              leftSection={<IconPlayerPlay size={14} />}
              loading={run.isPending}
              onClick={() => {
                if (!run.isPending)
                  run.mutate(s.id, {
                    onSuccess: (r) => {
                      if (r.outcome === "ok" && r.file)
                        toastOk(t("schedules.runDone", { file: r.file }));
                    },
                  });
              }}
              data-testid="schedule-run-now"
            >
              {run.isPending ? t("schedules.running") : t("schedules.runNow")}
            </Button>
            <Button size="xs" variant="default" onClick={onEdit} data-testid="schedule-edit">
              {t("schedules.edit")}
            </Button>
            <Button
              size="xs"
              variant="default"
              loading={pause.isPending}
              onClick={() => pause.mutate({ id: s.id, paused: !s.paused })}
              data-testid="schedule-pause"
            >
              {s.paused ? t("schedules.resume") : t("schedules.pause")}
            </Button>
            <Button
              size="xs"
              variant="subtle"
              color="red"
              onClick={() => setConfirming(true)}
              data-testid="schedule-remove"
            >
              {t("schedules.remove")}
            </Button>
          </Group>
        )}
      </Table.Td>
    </Table.Tr>
  );
}

/// Opened from the Dashboard's attention list (`#schedules`): the card brought into view.
function IntoView({ target }: { target: React.RefObject<HTMLDivElement | null> }) {
  const { hash } = useLocation();
  useEffect(() => {
    if (hash === "#schedules") target.current?.scrollIntoView({ block: "start" });
  }, [hash, target]);
  return null;
}

/// Reports → Schedules: the profile's scheduled reports, their last results and the
/// newest runs.
export function SchedulesCard() {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const q = useSchedules();
  const [editing, setEditing] = useState<{ id: number | null; spec: ScheduleSpec } | null>(null);
  const zone = q.data?.zone ?? "UTC";
  const list = q.data?.schedules ?? [];
  const runs = (q.data?.runs ?? []).slice(0, 10);
  const card = useRef<HTMLDivElement>(null);
  const inRouter = useInRouterContext();
  return (
    <Card withBorder id="schedules" ref={card} data-testid="schedules">
      <Group justify="space-between" mb="xs">
        <Group gap="xs">
          <IconCalendarTime size={18} />
          <Title order={3} size="h5">
            {t("schedules.title")}
          </Title>
        </Group>
        <Button
          size="xs"
          leftSection={<IconPlus size={14} />}
          onClick={() => setEditing({ id: null, spec: blank() })}
          disabled={editing !== null}
          data-testid="schedule-add"
        >
          {t("schedules.add")}
        </Button>
      </Group>
      <Text size="xs" c="dimmed" mb="sm">
        {t("schedules.intro", { zone })}
      </Text>
      {inRouter && q.isSuccess ? <IntoView target={card} /> : null}
      <ErrorAlert error={q.error} />
      {editing ? (
        <ScheduleForm
          key={editing.id ?? "new"}
          id={editing.id}
          initial={editing.spec}
          zone={zone}
          onDone={() => setEditing(null)}
        />
      ) : null}
      {list.length === 0 && q.isSuccess ? <Text c="dimmed">{t("schedules.none")}</Text> : null}
      {list.length > 0 ? (
        <Table.ScrollContainer minWidth={760}>
          <Table verticalSpacing="xs">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t("schedules.colName")}</Table.Th>
                <Table.Th>{t("schedules.colWhen")}</Table.Th>
                <Table.Th>{t("schedules.colNext")}</Table.Th>
                <Table.Th>{t("schedules.colLast")}</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.map((v) => (
                <ScheduleRow
                  key={v.schedule.id}
                  view={v}
                  onEdit={() => setEditing({ id: v.schedule.id, spec: v.schedule.spec })}
                />
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      ) : null}
      {runs.length > 0 ? (
        <>
          <Title order={4} size="h6" mt="md" mb="xs">
            {t("schedules.recent")}
          </Title>
          <Table verticalSpacing={4} data-testid="schedule-runs">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t("schedules.colName")}</Table.Th>
                <Table.Th>{t("schedules.colStarted")}</Table.Th>
                <Table.Th>{t("schedules.colResult")}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {runs.map((r) => (
                <Table.Tr key={r.id}>
                  <Table.Td>
                    <Text size="sm">{r.name}</Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="xs">{formatDateTime(r.startedAt, loc)}</Text>
                  </Table.Td>
                  <Table.Td>
                    <RunResult run={r} />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </>
      ) : null}
    </Card>
  );
}
