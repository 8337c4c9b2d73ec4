import {
  Alert,
  Button,
  Checkbox,
  Group,
  List,
  NumberInput,
  Progress,
  Stack,
  Text,
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
    <Stack gap="xs">
      <Group align="flex-end" gap="sm">
        <NumberInput
          label={t("orders.syncDays")}
          value={days}
          min={1}
          max={3650}
          clampBehavior="strict"
          allowDecimal={false}
          onChange={(v) => setDays(typeof v === "number" ? v : 90)}
          w={130}
          disabled={sync.isPending}
        />
        <Checkbox
          label={t("orders.syncFull")}
          checked={full}
          onChange={(e) => setFull(e.currentTarget.checked)}
          disabled={sync.isPending}
          mb={8}
        />
        {sync.isPending ? (
          <Button
            color="red"
            variant="light"
            leftSection={<IconPlayerStop size={16} />}
            onClick={() => void cancelSync()}
            data-testid="sync-cancel"
          >
            {t("orders.cancelSync")}
          </Button>
        ) : (
          <Button
            leftSection={<IconCloudDownload size={16} />}
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
      {sync.isPending || (progress && sync.isSuccess) ? (
        <Stack gap={2} data-testid="sync-progress" data-done={sync.isSuccess}>
          <Progress
            value={sync.isSuccess ? 100 : pct}
            animated={sync.isPending}
            aria-label={t("orders.syncing")}
          />
          <Text size="xs" c="dimmed">
            {progress
              ? t("orders.syncProgress", {
                  windows: t("orders.syncWindows", {
                    done: formatCount(progress.windowsDone, loc),
                    count: progress.windowsTotal,
                  }),
                  orders: t("orders.rows", { count: progress.orders }),
                  rate: formatCount(Math.round(progress.ordersPerSecond ?? 0), loc),
                })
              : t("orders.syncing")}
          </Text>
        </Stack>
      ) : null}
      {sync.data && sync.data.refusedCount > 0 ? (
        <Alert
          color="orange"
          data-testid="sync-refused"
          title={t("orders.syncRefused", { count: sync.data.refusedCount })}
        >
          <List size="xs">
            {sync.data.refused.map((why) => (
              <List.Item key={why}>{why}</List.Item>
            ))}
          </List>
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
