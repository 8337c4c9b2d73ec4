import {
  Alert,
  Anchor,
  Badge,
  Button,
  Card,
  Checkbox,
  FileButton,
  Group,
  List,
  Progress,
  Stack,
  Table,
  Text,
  Textarea,
  Title,
} from "@mantine/core";
import { IconFileImport, IconFileSpreadsheet, IconSearch } from "@tabler/icons-react";
import { useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";
import type { LookupProgress } from "../../bindings";
import { CopyCommand } from "../../components/CopyCommand";
import { ErrorAlert } from "../../components/ErrorAlert";
import { locale } from "../../i18n";
import { lookupCommand } from "../../lib/cliCommand";
import { formatCount, formatDateTime, formatMoney } from "../../lib/format";
import { useProfileName } from "../app/queries";
import { StateBadge } from "../app/StateBadge";
import { saveAs } from "../files/queries";
import { cancelLookup, suggestedLookupPath, useLookup, useLookupExport } from "./queries";
import type { Found, LookupReport, LookupRow } from "./types";

const FOUND: readonly Found[] = [
  "cache",
  "gateway",
  "notFound",
  "notListedYet",
  "notAsked",
  "unreadable",
];
const FOUND_COLOR: Record<Found, string> = {
  cache: "teal",
  gateway: "blue",
  notFound: "red",
  notListedYet: "grape",
  notAsked: "yellow",
  unreadable: "orange",
};

// What the screen showed last, kept while the user opens an order and comes back.
let last: { text: string; report: LookupReport | null; askGateway: boolean; refresh: boolean } = {
  text: "",
  report: null,
  askGateway: true,
  refresh: false,
};

function Summary({ report }: { report: LookupReport }) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const count = (f: Found) => report.rows.filter((r) => r.found === f).length;
  return (
    <Group gap="xs" data-testid="lookup-summary" data-total={report.rows.length}>
      <Text fw={600}>{t("lookup.total", { count: report.rows.length })}</Text>
      {FOUND.map((f) => (
        <Badge
          key={f}
          variant="light"
          color={FOUND_COLOR[f]}
          data-testid={`lookup-count-${f}`}
          data-count={count(f)}
        >
          {t(`lookup.found.${f}`)}: {formatCount(count(f), loc)}
        </Badge>
      ))}
      {report.duplicates > 0 ? (
        <Text size="sm" c="dimmed" data-testid="lookup-duplicates">
          {t("lookup.duplicates", { count: report.duplicates })}
        </Text>
      ) : null}
    </Group>
  );
}

function GatewayNote({ report }: { report: LookupReport }) {
  const { t } = useTranslation();
  const g = report.gateway;
  const color = g === "asked" || g === "notNeeded" ? "blue" : g === "failed" ? "red" : "yellow";
  return (
    <Alert color={color} variant="light" data-testid="lookup-gateway" data-gateway={g}>
      {g === "asked"
        ? t("lookup.gateway.asked", { count: report.requests, batch: report.batchSize })
        : t(`lookup.gateway.${g}`)}
      {report.gatewayError ? ` ${report.gatewayError}` : ""}
      {report.cacheUpdated > 0
        ? ` ${t("lookup.cacheUpdated", { count: report.cacheUpdated })}`
        : ""}
    </Alert>
  );
}

function Rejected({ report }: { report: LookupReport }) {
  const { t } = useTranslation();
  if (report.rejected.length === 0) return null;
  return (
    <Alert
      color="orange"
      variant="light"
      title={t("lookup.rejected", { n: report.rejected.length })}
      data-testid="lookup-rejected"
      data-count={report.rejected.length}
    >
      <List size="sm">
        {report.rejected.slice(0, 50).map((r) => (
          <List.Item key={r.line}>
            {t("lookup.rejectedLine", {
              line: r.line,
              text: r.text,
              rule: t(`lookup.reason.${r.reason}`),
            })}
          </List.Item>
        ))}
      </List>
    </Alert>
  );
}

function ResultRow({ row, loc }: { row: LookupRow; loc: string }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const notGiven = (
    <Text span size="sm" c="dimmed">
      {t("lookup.notGiven")}
    </Text>
  );
  const open = row.tradeNo
    ? () => navigate(`/orders?order=${encodeURIComponent(row.tradeNo ?? "")}`)
    : undefined;
  return (
    <Table.Tr data-testid="lookup-row" data-found={row.found} data-number={row.number}>
      <Table.Td>
        {open ? (
          <Anchor
            component="button"
            type="button"
            size="sm"
            onClick={open}
            aria-label={t("lookup.open", { tradeNo: row.tradeNo })}
          >
            {row.number}
          </Anchor>
        ) : (
          <Text size="sm">{row.number}</Text>
        )}
      </Table.Td>
      <Table.Td>
        <Badge variant="light" color={FOUND_COLOR[row.found]}>
          {t(`lookup.found.${row.found}`)}
        </Badge>
        {row.unlisted ? (
          <Text size="xs" c="dimmed">
            {t("lookup.unlisted")}
          </Text>
        ) : null}
        {row.found === "notListedYet" && row.graceUntil != null ? (
          <Text size="xs" c="dimmed" data-testid="lookup-not-listed-yet">
            {t("lookup.notListedYet", { time: formatDateTime(row.graceUntil, loc) })}
          </Text>
        ) : null}
      </Table.Td>
      <Table.Td>{row.tradeNo ?? notGiven}</Table.Td>
      <Table.Td>
        {row.merOrderNo ?? notGiven}
        {row.also.length > 0 ? (
          <Text size="xs" c="dimmed">
            {t("lookup.also", { list: row.also.join(", ") })}
          </Text>
        ) : null}
      </Table.Td>
      <Table.Td>
        {row.state !== null ? <StateBadge field="orderState" raw={row.state} /> : notGiven}
      </Table.Td>
      <Table.Td>
        {row.amount !== null && row.currency !== null
          ? formatMoney(row.amount, row.currency, loc)
          : notGiven}
      </Table.Td>
    </Table.Tr>
  );
}

function Exports({ report }: { report: LookupReport }) {
  const { t } = useTranslation();
  const exp = useLookupExport();
  const [wrote, setWrote] = useState<{ count: number; path: string } | null>(null);
  const run = async (format: "csv" | "xlsx") => {
    setWrote(null);
    const path = await saveAs(format, await suggestedLookupPath(format));
    if (!path) return;
    const count = await exp.mutateAsync({ report, path });
    setWrote({ count, path });
  };
  return (
    <Stack gap={4}>
      <Group gap="xs">
        {(["csv", "xlsx"] as const).map((f) => (
          <Button
            key={f}
            variant="default"
            size="xs"
            leftSection={<IconFileSpreadsheet size={14} />}
            loading={exp.isPending}
            onClick={() => void run(f).catch(() => undefined)}
            data-testid={`lookup-export-${f}`}
          >
            {t(`lookup.export.${f}`)}
          </Button>
        ))}
      </Group>
      <ErrorAlert error={exp.error} />
      {wrote ? (
        <Text size="sm" data-testid="lookup-exported">
          {t("lookup.exported", wrote)}
        </Text>
      ) : null}
    </Stack>
  );
}

export function LookupPage() {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const [text, setTextState] = useState(last.text);
  const [report, setReportState] = useState<LookupReport | null>(last.report);
  const [askGateway, setAskGatewayState] = useState(last.askGateway);
  const [refresh, setRefreshState] = useState(last.refresh);
  const setAskGateway = (v: boolean) => {
    last = { ...last, askGateway: v };
    setAskGatewayState(v);
  };
  const setRefresh = (v: boolean) => {
    last = { ...last, refresh: v };
    setRefreshState(v);
  };
  const result = useRef<HTMLDivElement>(null);
  const [progress, setProgress] = useState<LookupProgress | null>(null);
  const [loaded, setLoaded] = useState<string | null>(null);
  const lookup = useLookup(setProgress);
  const profile = useProfileName();
  const setText = (v: string) => {
    last = { ...last, text: v };
    setTextState(v);
  };
  const run = () => {
    if (lookup.isPending || text.trim() === "") return;
    setProgress(null);
    lookup.mutate(
      { text, options: { askGateway, refresh } },
      {
        onSuccess: (r) => {
          last = { ...last, text, report: r };
          setReportState(r);
          // The table is what the user came for: brought into view under the input.
          requestAnimationFrame(() =>
            result.current?.scrollIntoView({ block: "start", behavior: "smooth" }),
          );
        },
      },
    );
  };
  const load = async (file: File | null) => {
    if (!file) return;
    setText(await file.text());
    setLoaded(file.name);
  };
  return (
    <Stack data-testid="screen-lookup">
      <Title order={2}>{t("lookup.title")}</Title>
      <Text size="sm" c="dimmed">
        {t("lookup.intro")}
      </Text>
      <Card withBorder>
        <Stack gap="sm">
          <Textarea
            label={t("lookup.input")}
            placeholder={t("lookup.placeholder")}
            description={t("lookup.inputHint")}
            autosize
            minRows={5}
            maxRows={6}
            value={text}
            onChange={(e) => setText(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
                e.preventDefault();
                run();
              }
            }}
            data-testid="lookup-input"
            styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
          />
          <Group gap="md" align="center">
            <FileButton onChange={(f) => void load(f)} accept=".txt,.csv,text/plain,text/csv">
              {(props) => (
                <Button
                  {...props}
                  variant="default"
                  leftSection={<IconFileImport size={16} />}
                  data-testid="lookup-load"
                >
                  {t("lookup.load")}
                </Button>
              )}
            </FileButton>
            {loaded ? (
              <Text size="sm" c="dimmed">
                {t("lookup.loaded", { name: loaded })}
              </Text>
            ) : null}
            <Checkbox
              label={t("lookup.askGateway")}
              checked={askGateway}
              onChange={(e) => setAskGateway(e.currentTarget.checked)}
              data-testid="lookup-ask-gateway"
            />
            <Checkbox
              label={t("lookup.refresh")}
              checked={refresh}
              disabled={!askGateway}
              onChange={(e) => setRefresh(e.currentTarget.checked)}
              data-testid="lookup-refresh"
            />
          </Group>
          <Group gap="sm">
            <Button
              leftSection={<IconSearch size={16} />}
              onClick={run}
              loading={lookup.isPending}
              disabled={text.trim() === ""}
              data-testid="lookup-run"
              title={t("lookup.runHint")}
            >
              {t("lookup.run")}
            </Button>
            <CopyCommand
              command={
                profile ? lookupCommand({ profile, file: loaded, askGateway, refresh }) : null
              }
              testId="lookup-command"
            />
            {lookup.isPending ? (
              <Button
                variant="default"
                onClick={() => void cancelLookup()}
                data-testid="lookup-stop"
              >
                {t("lookup.stop")}
              </Button>
            ) : null}
          </Group>
          {lookup.isPending && progress ? (
            <Stack gap={4} data-testid="lookup-progress">
              <Progress
                value={progress.toAsk > 0 ? (100 * progress.asked) / progress.toAsk : 0}
                aria-label={t("lookup.run")}
              />
              <Text size="xs" c="dimmed">
                {t("lookup.progress", {
                  asked: progress.asked,
                  toAsk: progress.toAsk,
                  requests: progress.requests,
                })}
              </Text>
            </Stack>
          ) : null}
          <ErrorAlert error={lookup.error} />
        </Stack>
      </Card>
      {report ? (
        <Card
          withBorder
          data-testid="lookup-result"
          ref={result}
          // Clear of the shell's header when brought into view.
          style={{ scrollMarginTop: "calc(var(--app-shell-header-height, 78px) + 12px)" }}
        >
          <Stack gap="sm">
            <Group justify="space-between" align="flex-start">
              <Summary report={report} />
              <Exports report={report} />
            </Group>
            <GatewayNote report={report} />
            <Rejected report={report} />
            <Table.ScrollContainer minWidth={760} mah={520} type="native">
              <Table stickyHeader highlightOnHover data-testid="lookup-table">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{t("lookup.col.number")}</Table.Th>
                    <Table.Th>{t("lookup.col.found")}</Table.Th>
                    <Table.Th>{t("lookup.col.tradeNo")}</Table.Th>
                    <Table.Th>{t("lookup.col.merOrderNo")}</Table.Th>
                    <Table.Th>{t("lookup.col.state")}</Table.Th>
                    <Table.Th>{t("lookup.col.amount")}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {report.rows.map((r) => (
                    <ResultRow key={r.number} row={r} loc={loc} />
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          </Stack>
        </Card>
      ) : (
        <Text size="sm" c="dimmed">
          {t("lookup.none")}
        </Text>
      )}
    </Stack>
  );
}
