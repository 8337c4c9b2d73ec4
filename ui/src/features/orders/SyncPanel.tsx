import {
  Alert,
  Box,
  Button,
  Checkbox,
  Group,
  List,
  NumberInput,
  Progress,
  ScrollArea,
  Stack,
  Text,
  Tooltip,
} from "@mantine/core";
import { IconCloudDownload, IconPlayerStop } from "@tabler/icons-react";
import { memo, useState } from "react";
import { useTranslation } from "react-i18next";
import { ErrorAlert, toastOk } from "../../components/ErrorAlert";
import { locale } from "../../i18n";
import { coreError } from "../../lib/ipc";
import { useGatewayClosed } from "../team/GatewayNotice";
import { CacheAsOf } from "./CacheAsOf";
import { cancelSync, useLastSync, useSync, useSyncProgress } from "./queries";
import { refusalText } from "./refusal";
import { syncDoneText, syncLine } from "./syncText";

/// Sync from the gateway into the cache, with a progress bar and cancel.
export const SyncPanel = memo(function SyncPanel() {
  const { t, i18n } = useTranslation();
  const closed = useGatewayClosed();
  const loc = locale(i18n.language);
  const [days, setDays] = useState<number>(90);
  const [full, setFull] = useState(false);
  const sync = useSync();
  const last = useLastSync();
  const progress = useSyncProgress();
  const pending = last?.status === "pending";
  const error = last?.status === "error" ? last.error : null;
  const cancelled = !!error && coreError(error).code === "cancelled";
  const report = last?.status === "success" ? (last.data ?? null) : null;
  const shown = report?.progress ?? progress;
  const line = shown ? syncLine(t, shown, loc, report) : null;

  return (
    <Stack gap={4} align="flex-end">
      <Group align="center" gap="sm" wrap="nowrap">
        {pending || report ? (
          // As high as the buttons beside it (30px), so the title row, and the table's
          // 20 rows under it, keep their height with two lines of text.
          <Stack
            gap={1}
            w={260}
            h={30}
            justify="center"
            title={line?.detail}
            data-testid="sync-progress"
            data-done={last?.status === "success"}
          >
            <Progress
              size={3}
              value={line?.percent ?? 0}
              animated={pending}
              aria-label={t("orders.syncing")}
            />
            <Text size="xs" c="dimmed" lh={1.08} truncate="end" data-testid="sync-read">
              {line ? line.read : t("orders.syncing")}
            </Text>
            {line ? (
              <Text size="xs" c="dimmed" lh={1.08} truncate="end" data-testid="sync-pace">
                {line.pace}
              </Text>
            ) : null}
          </Stack>
        ) : (
          // Before a sync of this session: as of when the cache was last read, in the same
          // slot (a line of its own would take a row of the table).
          <Stack w={260} h={30} justify="center">
            <CacheAsOf testId="orders-as-of" sync={false} compact />
          </Stack>
        )}
        <Group gap={6} wrap="nowrap">
          <Text component="label" htmlFor="sync-days" size="sm">
            {t("orders.syncDays")}
          </Text>
          <NumberInput
            id="sync-days"
            size="xs"
            value={days}
            min={1}
            max={3650}
            clampBehavior="strict"
            allowDecimal={false}
            onChange={(v) => setDays(typeof v === "number" ? v : 90)}
            w={72}
            disabled={pending}
          />
        </Group>
        <Tooltip label={t("orders.syncFullHint")} multiline w={280}>
          <Box>
            <Checkbox
              size="xs"
              label={t("orders.syncFull")}
              checked={full}
              onChange={(e) => setFull(e.currentTarget.checked)}
              disabled={pending}
              data-testid="sync-full"
            />
          </Box>
        </Tooltip>
        {pending ? (
          <Button
            size="xs"
            color="red"
            variant="light"
            leftSection={<IconPlayerStop size={14} />}
            onClick={() => void cancelSync()}
            data-testid="sync-cancel"
          >
            {t("orders.cancelSync")}
          </Button>
        ) : (
          <Button
            size="xs"
            leftSection={<IconCloudDownload size={14} />}
            data-testid="sync-button"
            disabled={!!closed}
            title={closed}
            onClick={() => {
              sync.mutate(
                { days, full },
                {
                  onSuccess: (r) => toastOk(syncDoneText(t, r, loc)),
                },
              );
            }}
          >
            {t("orders.sync")}
          </Button>
        )}
      </Group>
      {report && report.refusedCount > 0 ? (
        <Alert
          color="orange"
          p="xs"
          maw={640}
          data-testid="sync-refused"
          title={t("orders.syncRefused", { count: report.refusedCount })}
        >
          <ScrollArea.Autosize mah={96}>
            <List size="xs">
              {report.refused.map((why) => (
                <List.Item key={why}>{refusalText(t, why)}</List.Item>
              ))}
            </List>
          </ScrollArea.Autosize>
          {report.refusedCount > report.refused.length ? (
            <Text size="xs" c="dimmed">
              {t("orders.syncRefusedMore", {
                count: report.refusedCount - report.refused.length,
              })}
            </Text>
          ) : null}
        </Alert>
      ) : null}
      {report && report.incompleteCount > 0 ? (
        <Alert
          color="orange"
          p="xs"
          maw={640}
          data-testid="sync-incomplete"
          title={t("orders.syncIncomplete", { count: report.incompleteCount })}
        >
          <ScrollArea.Autosize mah={96}>
            <List size="xs">
              {report.incomplete.map((why) => (
                <List.Item key={why}>{why}</List.Item>
              ))}
            </List>
          </ScrollArea.Autosize>
          {report.incompleteCount > report.incomplete.length ? (
            <Text size="xs" c="dimmed">
              {t("orders.syncRefusedMore", {
                count: report.incompleteCount - report.incomplete.length,
              })}
            </Text>
          ) : null}
        </Alert>
      ) : null}
      {cancelled ? (
        <Text size="sm" c="dimmed">
          {t("orders.syncCancelled")}
        </Text>
      ) : (
        <ErrorAlert error={error} />
      )}
    </Stack>
  );
});
