import { Alert, Button, Card, Stack, Table, Text, Title } from "@mantine/core";
import { IconArchive } from "@tabler/icons-react";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { ErrorAlert } from "../../components/ErrorAlert";
import { locale } from "../../i18n";
import { formatDateTime } from "../../lib/format";
import { operationLabel } from "../../lib/operations";
import { useArchivedRows, useAuditArchives } from "./queries";

/// The most rows of a log set aside shown at once.
const ROWS = 500;

/// The audit logs set aside after their key was lost: kept as written and readable, but
/// marked as not checkable. Nothing shows while there is none.
export function ArchivedLogs() {
  const { t } = useTranslation();
  const archives = useAuditArchives();
  if (archives.error) return <ErrorAlert error={archives.error} />;
  if (!archives.data || archives.data.length === 0) return null;
  return (
    <Card withBorder padding="sm" data-testid="audit-archives">
      <Title order={3} size="h5" mb="xs">
        {t("activity.archives.title")}
      </Title>
      <Stack gap="sm">
        {archives.data.map((a) => (
          <Archive key={a.archive} archive={a} />
        ))}
      </Stack>
    </Card>
  );
}

function Archive({
  archive: a,
}: {
  archive: { archive: number; archivedAt: number; rows: number; sealedRows: number };
}) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const [open, setOpen] = useState(false);
  const rows = useArchivedRows(a.archive, ROWS, open);
  return (
    <Stack gap="xs" data-testid="audit-archive" data-archive={a.archive}>
      <Alert color="gray" variant="light" icon={<IconArchive size={18} />}>
        <Text size="sm">
          {t("activity.archives.summary", {
            archive: a.archive,
            count: a.rows,
            at: formatDateTime(a.archivedAt, loc),
          })}
        </Text>
        <Text size="sm" c="dimmed">
          {t("activity.archives.lostKey", { count: a.sealedRows })}
        </Text>
      </Alert>
      <Button
        variant="default"
        size="xs"
        w="fit-content"
        onClick={() => setOpen((o) => !o)}
        data-testid="audit-archive-toggle"
      >
        {open ? t("activity.archives.hide") : t("activity.archives.show")}
      </Button>
      {rows.error ? <ErrorAlert error={rows.error} /> : null}
      {open && rows.data ? (
        <Table striped data-testid="audit-archive-rows">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>#</Table.Th>
              <Table.Th>{t("activity.at")}</Table.Th>
              <Table.Th>{t("activity.operator")}</Table.Th>
              <Table.Th>{t("activity.operation")}</Table.Th>
              <Table.Th>{t("activity.identifiers")}</Table.Th>
              <Table.Th>{t("activity.result")}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.data.map((e) => (
              <Table.Tr key={e.id} data-testid="audit-archive-row">
                <Table.Td>{e.id}</Table.Td>
                <Table.Td>{formatDateTime(e.at, loc)}</Table.Td>
                <Table.Td>{e.operator}</Table.Td>
                <Table.Td title={e.operation}>{operationLabel(t, e.operation)}</Table.Td>
                <Table.Td style={{ wordBreak: "break-all" }}>{e.identifiers}</Table.Td>
                <Table.Td>{e.result}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      ) : null}
    </Stack>
  );
}
