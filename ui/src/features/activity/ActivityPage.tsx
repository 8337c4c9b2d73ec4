import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  List,
  Loader,
  ScrollArea,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { IconFileExport, IconRefresh, IconSearch } from "@tabler/icons-react";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useMemo, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { ErrorAlert, toastOk } from "../../components/ErrorAlert";
import { locale } from "../../i18n";
import { formatCount, formatDateTime } from "../../lib/format";
import { fieldOf } from "../../lib/ipc";
import { OPERATIONS, operationLabel } from "../../lib/operations";
import { ChooseButton, ReplaceQuestion, useSaveTarget } from "../files/SaveTarget";
import { TeamChainAlert } from "../team/TeamChainAlert";
import { TableViewBar, ViewHead } from "../views/TableViewBar";
import { type TableColumn, useTableView } from "../views/useTableView";
import { ArchivedLogs } from "./ArchivedLogs";
import { useAuditChain, useAuditExport, useAuditList, useDefaultPath } from "./queries";

function Chain() {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const chain = useAuditChain();
  if (chain.isPending) return <Loader size="sm" />;
  if (chain.error) return <ErrorAlert error={chain.error} />;
  const c = chain.data;
  const seal =
    c.keyedFrom === null
      ? t("activity.checked.sealNone")
      : c.keyedFrom === 1
        ? t("activity.checked.sealAll")
        : t("activity.checked.sealFrom", { row: formatCount(c.keyedFrom, loc) });
  const anchor =
    c.anchoredRows === null
      ? t("activity.checked.noAnchor")
      : t("activity.checked.anchor", { count: c.anchoredRows });
  return (
    <Stack gap="xs">
      <Group gap="sm">
        {c.ok ? (
          <Badge color="teal" variant="light" size="lg" data-testid="audit-chain" data-ok="true">
            {t("activity.chainOk", { count: c.rows })}
          </Badge>
        ) : (
          <Alert
            color="red"
            title={t("activity.chainBroken")}
            data-testid="audit-chain"
            data-ok="false"
          >
            {t("activity.brokenAt", { row: c.brokenAt ?? "?", problem: c.problem ?? "" })}
          </Alert>
        )}
        <Button
          variant="default"
          size="xs"
          leftSection={<IconRefresh size={14} />}
          loading={chain.isFetching}
          onClick={() => chain.refetch()}
        >
          {t("activity.verify")}
        </Button>
      </Group>
      <Text size="sm" fw={500}>
        {t("activity.checked.title")}
      </Text>
      <List size="sm" spacing={2} data-testid="audit-checked">
        <List.Item>{t("activity.checked.links", { count: c.rows })}</List.Item>
        <List.Item>{seal}</List.Item>
        <List.Item data-anchored={c.anchoredRows !== null}>{anchor}</List.Item>
        <List.Item>{t("activity.checked.head")}</List.Item>
        <List.Item data-alert={c.alert !== null}>
          {c.alert === null
            ? t("activity.checked.noAlert")
            : t("activity.checked.alert", { why: c.alert })}
        </List.Item>
      </List>
    </Stack>
  );
}

/// The audit table's columns (a saved view keeps which, in which order and how wide).
const COLUMNS: TableColumn[] = [
  { id: "id", label: "views.number", width: 70, sortable: true },
  { id: "at", label: "activity.at", width: 170, sortable: true },
  { id: "operator", label: "activity.operator", width: 120, sortable: true },
  { id: "dbUser", label: "activity.dbUser", width: 120, sortable: true },
  { id: "operation", label: "activity.operation", width: 180, sortable: true },
  { id: "identifiers", label: "activity.identifiers", width: 260 },
  { id: "result", label: "activity.result", width: 140, sortable: true },
  { id: "latency", label: "activity.latency", width: 100, sortable: true },
];
const DEFAULTS = { fields: { operation: "", text: "" }, sort: null };
/// A row's height before it is measured (a badge's row; long identifiers wrap and are
/// measured as drawn).
const ROW_ESTIMATE = 41;

export function ActivityPage() {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const tv = useTableView("activity", COLUMNS, DEFAULTS);
  const operation = tv.fields.operation ?? "";
  const text = tv.fields.text ?? "";
  const [op] = useDebouncedValue(operation.trim(), 250);
  const [txt] = useDebouncedValue(text.trim(), 250);
  const q = useMemo(() => ({ operation: op || null, text: txt || null }), [op, txt]);
  const list = useAuditList(q);
  // A team's log names the database user of each row: its own column.
  const teamLog = (list.data ?? []).some((e) => e.dbUser);
  const entries = tv.rows(
    list.data ?? [],
    (e) => e.at,
    (id, e) =>
      id === "id"
        ? e.id
        : id === "at"
          ? e.at
          : id === "latency"
            ? e.latencyMs
            : id === "operator"
              ? e.operator
              : id === "dbUser"
                ? (e.dbUser ?? null)
                : id === "operation"
                  ? e.operation
                  : id === "result"
                    ? e.result
                    : null,
  );
  const columns = tv.shown.filter((c) => c.id !== "dbUser" || teamLog);
  const shownView = { ...tv, shown: columns };
  const exp = useAuditExport();
  const target = useSaveTarget((to, overwrite) =>
    exp.mutate(
      { q, path: to, overwrite },
      { onSuccess: (n) => toastOk(t("activity.exported", { count: n, path: to })) },
    ),
  );
  const suggested = useDefaultPath();
  const [path, setPath] = useState("");
  useEffect(() => {
    if (suggested.data) setPath(suggested.data);
  }, [suggested.data]);
  const pathError = fieldOf(exp.error)?.field === "path" ? fieldOf(exp.error)?.rule : undefined;
  // Only the rows in view (and a few around them) are in the document, as in Orders'
  // table: the log reads up to 500 rows and drawing them all took most of a second.
  // Spacer rows above and below keep the scroll bar's length and the sticky header.
  const viewport = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: entries.length,
    getScrollElement: () => viewport.current,
    estimateSize: () => ROW_ESTIMATE,
    overscan: 10,
    initialRect: { width: 0, height: 800 },
  });
  const items = virtualizer.getVirtualItems();
  const before = items[0]?.start ?? 0;
  const after = items.length > 0 ? virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0) : 0;

  return (
    <Stack data-testid="screen-activity">
      <Title order={2}>{t("activity.title")}</Title>
      <TeamChainAlert />
      <Card withBorder padding="sm">
        <Chain />
      </Card>
      <ArchivedLogs />
      <Group align="flex-end" justify="space-between">
        <Group align="flex-end">
          <Select
            label={t("activity.operation")}
            placeholder={t("common.all")}
            clearable
            searchable
            data={OPERATIONS.map((op) => ({ value: op, label: operationLabel(t, op) }))}
            value={operation || null}
            onChange={(v) => tv.setField("operation", v ?? "")}
            w={260}
            data-testid="audit-operation"
          />
          <TextInput
            label={t("activity.search")}
            leftSection={<IconSearch size={16} />}
            value={text}
            onChange={(e) => tv.setField("text", e.currentTarget.value)}
            w={280}
            data-testid="audit-search"
          />
        </Group>
        <TableViewBar tv={tv} screen="activity" />
      </Group>
      <ErrorAlert error={list.error} />
      {list.data ? (
        <Card withBorder padding={0}>
          <ScrollArea
            h="calc(100vh - 420px)"
            type="auto"
            viewportRef={viewport}
            viewportProps={{ tabIndex: 0, "aria-label": t("activity.title") }}
          >
            <Table stickyHeader striped data-testid="audit-table">
              <ViewHead tv={shownView} />
              <Table.Tbody>
                {/* The spacer above (and one more of no height when the first row drawn is
                    odd) keeps each row's stripe as it scrolls. */}
                <tr aria-hidden style={{ height: before }}>
                  <td colSpan={columns.length} style={{ padding: 0, border: 0 }} />
                </tr>
                {(items[0]?.index ?? 0) % 2 === 1 ? <tr aria-hidden /> : null}
                {items.map((v) => {
                  const e = entries[v.index];
                  if (!e) return null;
                  return (
                    <Table.Tr
                      key={e.id}
                      data-testid="audit-row"
                      data-index={v.index}
                      ref={virtualizer.measureElement}
                    >
                      {columns.map((c) => (
                        <Table.Td
                          key={c.id}
                          style={{
                            width: c.width,
                            ...(c.id === "identifiers" ? { wordBreak: "break-all" as const } : {}),
                          }}
                          ta={c.id === "latency" ? "right" : undefined}
                          title={c.id === "operation" ? e.operation : undefined}
                          data-testid={c.id === "dbUser" ? "audit-db-user" : undefined}
                        >
                          {c.id === "id" ? e.id : null}
                          {c.id === "at" ? formatDateTime(e.at, loc) : null}
                          {c.id === "operator" ? e.operator : null}
                          {c.id === "dbUser" ? (e.dbUser ?? "") : null}
                          {c.id === "operation" ? operationLabel(t, e.operation) : null}
                          {c.id === "identifiers" ? e.identifiers : null}
                          {c.id === "result" ? (
                            <Badge
                              variant="light"
                              color={
                                e.result === "ok" || e.result.startsWith("ok ") ? "teal" : "red"
                              }
                            >
                              {e.result}
                            </Badge>
                          ) : null}
                          {c.id === "latency" ? `${formatCount(e.latencyMs, loc)} ms` : null}
                        </Table.Td>
                      ))}
                    </Table.Tr>
                  );
                })}
                {after > 0 ? (
                  <tr aria-hidden style={{ height: after }}>
                    <td colSpan={columns.length} style={{ padding: 0, border: 0 }} />
                  </tr>
                ) : null}
              </Table.Tbody>
            </Table>
            {entries.length === 0 ? (
              <Text c="dimmed" p="md">
                {t("activity.empty")}
              </Text>
            ) : null}
          </ScrollArea>
        </Card>
      ) : (
        <Loader />
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void target.submit(path);
        }}
      >
        <Group align="flex-end">
          <TextInput
            label={t("activity.exportPath")}
            value={path}
            onChange={(e) => {
              target.dismiss();
              setPath(e.currentTarget.value);
            }}
            error={pathError}
            w={460}
            data-testid="audit-export-path"
          />
          <ChooseButton onClick={() => void target.choose("csv", path, setPath)} />
          <Button
            type="submit"
            variant="default"
            leftSection={<IconFileExport size={16} />}
            loading={exp.isPending}
            data-testid="audit-export"
          >
            {t("activity.export")}
          </Button>
        </Group>
        <ReplaceQuestion path={target.asking} onReplace={target.replace} onKeep={target.dismiss} />
        {exp.isSuccess ? (
          <Text size="sm" mt="xs" data-testid="audit-export-result" data-rows={exp.data}>
            {t("activity.exported", { count: exp.data, path })}
          </Text>
        ) : null}
        {pathError ? null : <ErrorAlert error={exp.error} />}
      </form>
    </Stack>
  );
}
