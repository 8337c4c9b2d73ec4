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
import { useEffect, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { ErrorAlert, toastOk } from "../../components/ErrorAlert";
import { locale } from "../../i18n";
import { formatCount, formatDateTime } from "../../lib/format";
import { fieldOf } from "../../lib/ipc";
import { OPERATIONS, operationLabel } from "../../lib/operations";
import { ChooseButton, ReplaceQuestion, useSaveTarget } from "../files/SaveTarget";
import { TeamChainAlert } from "../team/TeamChainAlert";
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

export function ActivityPage() {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const [operation, setOperation] = useState("");
  const [text, setText] = useState("");
  const [op] = useDebouncedValue(operation.trim(), 250);
  const [txt] = useDebouncedValue(text.trim(), 250);
  const q = useMemo(() => ({ operation: op || null, text: txt || null }), [op, txt]);
  const list = useAuditList(q);
  // A team's log names the database user of each row: its own column.
  const teamLog = (list.data ?? []).some((e) => e.dbUser);
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

  return (
    <Stack data-testid="screen-activity">
      <Title order={2}>{t("activity.title")}</Title>
      <TeamChainAlert />
      <Card withBorder padding="sm">
        <Chain />
      </Card>
      <ArchivedLogs />
      <Group align="flex-end">
        <Select
          label={t("activity.operation")}
          placeholder={t("common.all")}
          clearable
          searchable
          data={OPERATIONS.map((op) => ({ value: op, label: operationLabel(t, op) }))}
          value={operation || null}
          onChange={(v) => setOperation(v ?? "")}
          w={260}
          data-testid="audit-operation"
        />
        <TextInput
          label={t("activity.search")}
          leftSection={<IconSearch size={16} />}
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
          w={280}
          data-testid="audit-search"
        />
      </Group>
      <ErrorAlert error={list.error} />
      {list.data ? (
        <Card withBorder padding={0}>
          <ScrollArea h="calc(100vh - 420px)" type="auto">
            <Table stickyHeader striped data-testid="audit-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>#</Table.Th>
                  <Table.Th>{t("activity.at")}</Table.Th>
                  <Table.Th>{t("activity.operator")}</Table.Th>
                  {teamLog ? <Table.Th>{t("activity.dbUser")}</Table.Th> : null}
                  <Table.Th>{t("activity.operation")}</Table.Th>
                  <Table.Th>{t("activity.identifiers")}</Table.Th>
                  <Table.Th>{t("activity.result")}</Table.Th>
                  <Table.Th ta="right">{t("activity.latency")}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.data.map((e) => (
                  <Table.Tr key={e.id} data-testid="audit-row">
                    <Table.Td>{e.id}</Table.Td>
                    <Table.Td>{formatDateTime(e.at, loc)}</Table.Td>
                    <Table.Td>{e.operator}</Table.Td>
                    {teamLog ? (
                      <Table.Td data-testid="audit-db-user">{e.dbUser ?? ""}</Table.Td>
                    ) : null}
                    <Table.Td title={e.operation}>{operationLabel(t, e.operation)}</Table.Td>
                    <Table.Td style={{ wordBreak: "break-all" }}>{e.identifiers}</Table.Td>
                    <Table.Td>
                      <Badge
                        variant="light"
                        color={e.result === "ok" || e.result.startsWith("ok ") ? "teal" : "red"}
                      >
                        {e.result}
                      </Badge>
                    </Table.Td>
                    <Table.Td ta="right">{formatCount(e.latencyMs, loc)} ms</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
            {list.data.length === 0 ? (
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
