import {
  Button,
  Group,
  Modal,
  Progress,
  SegmentedControl,
  Stack,
  Text,
  TextInput,
} from "@mantine/core";
import { memo, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { CopyCommand } from "../../components/CopyCommand";
import { ErrorAlert, toastOk } from "../../components/ErrorAlert";
import { locale } from "../../i18n";
import { ordersExportCommand } from "../../lib/cliCommand";
import { formatCount, machineZone, timeZoneLabel } from "../../lib/format";
import { fieldOf } from "../../lib/ipc";
import type { ExportProgress, OrderFilter } from "../../lib/types";
import { useProfileName } from "../app/queries";
import { ChooseButton, ReplaceQuestion, useSaveTarget } from "../files/SaveTarget";
import { useExport, useSuggestedExportPath } from "./queries";

interface Props {
  opened: boolean;
  onClose: () => void;
  filter: OrderFilter;
  total: number;
}

/// Exports every row of the current filter to CSV or XLSX, with progress.
export const ExportModal = memo(function ExportModal({ opened, onClose, filter, total }: Props) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const [format, setFormat] = useState<"csv" | "xlsx">("csv");
  const [path, setPath] = useState("");
  const [progress, setProgress] = useState<ExportProgress | null>(null);
  const run = useExport(setProgress);
  const suggested = useSuggestedExportPath(format, opened);
  useEffect(() => {
    if (suggested.data) setPath(suggested.data);
  }, [suggested.data]);
  const pathError = fieldOf(run.error)?.field === "path" ? fieldOf(run.error)?.rule : undefined;
  const profile = useProfileName();
  // The same export as a `paydesk` command line, in this machine's zone as the app's
  // (by name: each order's daylight saving is applied by the desk, not here).
  const command = profile
    ? ordersExportCommand({
        profile,
        filter,
        path,
        zone: machineZone(),
      })
    : null;
  const target = useSaveTarget((to, overwrite) => {
    setProgress(null);
    run.mutate(
      { filter, path: to, overwrite },
      { onSuccess: (n) => toastOk(t("orders.exportDone", { count: n, path: to })) },
    );
  });

  return (
    <Modal opened={opened} onClose={onClose} title={t("orders.exportTitle")} size="lg">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void target.submit(path);
        }}
      >
        <Stack>
          <SegmentedControl
            aria-label={t("orders.exportFormat")}
            value={format}
            onChange={(v) => setFormat(v === "xlsx" ? "xlsx" : "csv")}
            data={[
              { value: "csv", label: "CSV" },
              { value: "xlsx", label: "XLSX" },
            ]}
          />
          <Group align="flex-end" wrap="nowrap">
            <TextInput
              label={t("orders.exportPath")}
              description={t("orders.exportPathHint")}
              value={path}
              onChange={(e) => {
                target.dismiss();
                setPath(e.currentTarget.value);
              }}
              error={pathError}
              style={{ flex: 1 }}
              data-testid="export-path"
            />
            <ChooseButton onClick={() => void target.choose(format, path, setPath)} />
          </Group>
          <ReplaceQuestion
            path={target.asking}
            onReplace={target.replace}
            onKeep={target.dismiss}
          />
          <Text size="sm" c="dimmed">
            {t("orders.timeZone", { tz: timeZoneLabel() })}
          </Text>
          {run.isPending || progress ? (
            <Stack gap={2}>
              <Progress
                value={progress && progress.total > 0 ? (100 * progress.done) / progress.total : 0}
                animated={run.isPending}
                aria-label={t("orders.export")}
              />
              {progress ? (
                <Text size="xs" c="dimmed">
                  {t("orders.exportProgress", {
                    done: formatCount(progress.done, loc),
                    count: progress.total,
                  })}
                </Text>
              ) : null}
            </Stack>
          ) : null}
          {run.isSuccess ? (
            <Text data-testid="export-result" data-rows={run.data}>
              {t("orders.exportDone", { count: run.data, path })}
            </Text>
          ) : null}
          {pathError ? null : <ErrorAlert error={run.error} />}
          <Group justify="space-between">
            <CopyCommand command={command} testId="export-command" />
            <Group>
              <Button variant="default" onClick={onClose}>
                {t("common.close")}
              </Button>
              <Button type="submit" loading={run.isPending} data-testid="export-run">
                {t("orders.exportRun", { count: total })}
              </Button>
            </Group>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
});
