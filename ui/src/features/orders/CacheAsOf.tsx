import { Button, Group, Text } from "@mantine/core";
import { IconCloudDownload } from "@tabler/icons-react";
import { useTranslation } from "react-i18next";
import { toastError, toastOk } from "../../components/ErrorAlert";
import { locale } from "../../i18n";
import { formatDateTime } from "../../lib/format";
import { useDashboard } from "../dashboard/queries";
import { useLastSync, useSync } from "./queries";

/// The days a *Sync now* reads again: the Orders screen's default.
const SYNC_DAYS = 90;

/// Under figures read from the cache: as of when (the last sync), and *Sync now* (left out
/// with `sync={false}` where the screen has its own sync controls, as Orders has).
export function CacheAsOf({
  testId = "cache-as-of",
  sync: withSync = true,
  compact = false,
}: {
  testId?: string;
  sync?: boolean;
  /// Small type, two lines at most: in a toolbar's slot (the Orders screen's sync panel).
  compact?: boolean;
}) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const dashboard = useDashboard();
  const sync = useSync();
  // Any sync, whoever started it (the first run's, the Orders screen's).
  const last = useLastSync();
  const running = sync.isPending || last?.status === "pending";
  const lastSync = dashboard.data?.lastSync ?? null;
  return (
    <Group gap="xs" data-testid={testId} data-last-sync={lastSync ?? ""}>
      <Text
        size={compact ? "xs" : "sm"}
        c="dimmed"
        lh={compact ? 1.1 : undefined}
        lineClamp={compact ? 2 : undefined}
      >
        {lastSync === null
          ? t("cacheAsOf.never")
          : t("cacheAsOf.asOf", { time: formatDateTime(lastSync, loc) })}
      </Text>
      {withSync ? (
        <Button
          size="compact-sm"
          variant="light"
          leftSection={<IconCloudDownload size={14} />}
          loading={running}
          onClick={() =>
            sync.mutate(
              { days: SYNC_DAYS, full: false },
              {
                onSuccess: () => toastOk(t("cacheAsOf.synced")),
                onError: (e) => toastError(t, e),
              },
            )
          }
          data-testid={`${testId}-sync`}
        >
          {t("cacheAsOf.syncNow")}
        </Button>
      ) : null}
    </Group>
  );
}
