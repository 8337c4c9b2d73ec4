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
import { formatCount } from "../../lib/format";
import { coreError } from "../../lib/ipc";
import type { SyncProgress } from "../../lib/types";
import { cancelSync, useSync } from "./queries";
import { refusalText } from "./refusal";

/// Sync from the gateway into the cache, with a progress bar and cancel.
export const SyncPanel = memo(function SyncPanel() {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const [days, setDays] = useState<number>(90);
  const [full, setFull] = useState(false);
  const [progress, setProgress] = useState<SyncProgress | null>(null);
  const sync = useSync(setProgress);
  const cancelled = sync.error && coreError(sync.error).code === "cancelled";
  const pct =
    progress && progress.windowsTotal > 0
      ? (100 * progress.windowsDone) / progress.windowsTotal
      : 0;

  return (
    <Stack gap={4} align="flex-end">
      <Group align="center" gap="sm" wrap="nowrap">
        {sync.isPending || (progress && sync.isSuccess) ? (
          <Stack gap={2} w={260} data-testid="sync-progress" data-done={sync.isSuccess}>
            <Progress
              size="sm"
              value={sync.isSuccess ? 100 : pct}
              animated={sync.isPending}
              aria-label={t("orders.syncing")}
            />
            <Text
              size="xs"
              c="dimmed"
              lh={1.2}
              title={
                progress
                  ? t("orders.syncRate", { count: Math.round(progress.ordersPerSecond ?? 0) })
                  : undefined
              }
            >
              {progress
                ? t("orders.syncProgress", {
                    days: t("orders.syncDaysRead", {
                      done: formatCount(progress.windowsDone, loc),
                      count: progress.windowsTotal,
                    }),
                    orders: t("orders.rows", { count: progress.orders }),
                  })
                : t("orders.syncing")}
            </Text>
          </Stack>
        ) : null}
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
            disabled={sync.isPending}
          />
        </Group>
        <Tooltip label={t("orders.syncFullHint")} multiline w={280}>
          <Box>
            <Checkbox
              size="xs"
              label={t("orders.syncFull")}
              checked={full}
              onChange={(e) => setFull(e.currentTarget.checked)}
              disabled={sync.isPending}
              data-testid="sync-full"
            />
          </Box>
        </Tooltip>
        {sync.isPending ? (
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
            onClick={() => {
              setProgress(null);
              sync.mutate(
                { days, full },
                {
                  onSuccess: (r) =>
                    toastOk(
                      t("orders.syncDone", {
                        count: r.progress.orders,
                        changed: formatCount(r.changed, loc),
                      }),
                    ),
                },
              );
            }}
          >
            {t("orders.sync")}
          </Button>
        )}
      </Group>
      {sync.data && sync.data.refusedCount > 0 ? (
        <Alert
          color="orange"
          p="xs"
          maw={640}
          data-testid="sync-refused"
          title={t("orders.syncRefused", { count: sync.data.refusedCount })}
        >
          <ScrollArea.Autosize mah={96}>
            <List size="xs">
              {sync.data.refused.map((why) => (
                <List.Item key={why}>{refusalText(t, why)}</List.Item>
              ))}
            </List>
          </ScrollArea.Autosize>
          {sync.data.refusedCount > sync.data.refused.length ? (
            <Text size="xs" c="dimmed">
              {t("orders.syncRefusedMore", {
                count: sync.data.refusedCount - sync.data.refused.length,
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
        <ErrorAlert error={sync.error} />
      )}
    </Stack>
  );
});
