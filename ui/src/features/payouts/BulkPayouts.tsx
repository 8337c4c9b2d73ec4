import { Button, Card, Group, Stack, Text, TextInput } from "@mantine/core";
import { IconDownload, IconFolderOpen } from "@tabler/icons-react";
import { type Dispatch, type SetStateAction, useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { ErrorAlert, toastError } from "../../components/ErrorAlert";
import { bulkCommand } from "../../lib/cliCommand";
import { fieldError } from "../../lib/ipc";
import type { BulkProgress } from "../../lib/types";
import { useProfileName } from "../app/queries";
import { blankPurpose, PurposeFields } from "../money/PurposeFields";
import { GatewayNotice } from "../team/GatewayNotice";
import { useAccess, useRequestBulk } from "../team/queries";
import { RequestMade } from "../team/RequestMade";
import { BulkConfirm } from "./BulkConfirm";
import { BulkPreview } from "./BulkPreview";
import { BulkResult } from "./BulkResult";
import { pickBulkFile, useBulkCheck, useBulkSend, useBulkTemplate } from "./queries";

/// A file of payouts: checked (nothing sent), previewed, confirmed, sent, its outcome.
/// The path typed is held by the caller, so it outlives this form when its tab is left.
export function BulkPayouts({
  path: [path, setPath],
  checkNow = false,
}: {
  path: readonly [string, Dispatch<SetStateAction<string>>];
  /// Check the file as the form opens (a run opened from the Dashboard's held rows).
  checkNow?: boolean;
}) {
  const { t } = useTranslation();
  const [progress, setProgress] = useState<BulkProgress | null>(null);
  const [confirming, setConfirming] = useState(false);
  const check = useBulkCheck();
  const template = useBulkTemplate();
  const send = useBulkSend(setProgress);
  const request = useRequestBulk();
  const access = useAccess();
  // A team desk without the merchant key requests approval of the file as one batch.
  const asRequest = access.moneyAsRequest;
  const requestClosed = asRequest && !access.has("maker") ? t("team.notMaker") : undefined;
  const profile = useProfileName();
  const checked = useRef(false);
  // The run's purpose (issue 35), for the rows whose file gives none.
  const [purpose, setPurpose] = useState(blankPurpose);
  const runPurpose = purpose.text.trim() || purpose.reference.trim() ? purpose : null;
  const { mutate: checkFile } = check;
  useEffect(() => {
    if (checkNow && path && !checked.current) {
      checked.current = true;
      checkFile({ path, purpose: null });
    }
  }, [checkNow, path, checkFile]);
  const c = check.data;
  const plan = c?.plan;
  const out = send.data;
  const startOver = () => {
    check.reset();
    send.reset();
    request.reset();
    setConfirming(false);
  };
  return (
    <Stack>
      {asRequest ? <GatewayNotice instead={t("payouts.bulkRequestInstead")} /> : null}
      <Card withBorder>
        <Stack gap="sm">
          <Group justify="space-between" align="flex-start" wrap="nowrap">
            <Text size="sm" c="dimmed">
              {t("payouts.bulkIntro")}
            </Text>
            <Button
              variant="default"
              size="xs"
              leftSection={<IconDownload size={14} />}
              loading={template.isPending}
              onClick={() => template.mutate()}
              style={{ flexShrink: 0 }}
              data-testid="bulk-template"
            >
              {t("flows.bulk.template")}
            </Button>
          </Group>
          {template.data ? (
            <Text size="sm" data-testid="bulk-template-saved" data-path={template.data}>
              {t("flows.bulk.templateSaved", { path: template.data })}
            </Text>
          ) : null}
          {template.error ? <ErrorAlert error={template.error} /> : null}
          <Group align="flex-end">
            <TextInput
              label={t("payouts.bulkFile")}
              placeholder="/home/me/payouts.csv"
              value={path}
              onChange={(e) => {
                setPath(e.currentTarget.value);
                startOver();
              }}
              error={fieldError(check.error, "path", "file")}
              style={{ flex: 1 }}
              data-testid="bulk-path"
            />
            <Button
              variant="default"
              leftSection={<IconFolderOpen size={16} />}
              disabled={send.isPending}
              onClick={() =>
                pickBulkFile()
                  .then((paths) => {
                    const [first] = paths;
                    if (!first) return;
                    setPath(first);
                    startOver();
                    check.mutate({ path: first, purpose: runPurpose });
                  })
                  .catch((e) => toastError(t, e))
              }
            >
              {t("common.browse")}
            </Button>
            <Button
              variant="default"
              loading={check.isPending}
              disabled={send.isPending}
              onClick={() => {
                send.reset();
                check.mutate({ path, purpose: runPurpose });
              }}
              data-testid="bulk-check"
            >
              {t("payouts.bulkCheck")}
            </Button>
          </Group>
          <PurposeFields
            run
            value={purpose}
            onChange={(p) => {
              setPurpose(p);
              startOver();
            }}
            testId="bulk-purpose"
          />
          {check.error && !fieldError(check.error, "path", "file") && (
            <ErrorAlert error={check.error} />
          )}
        </Stack>
      </Card>
      {c && plan && (
        <BulkPreview
          plan={plan}
          path={c.path}
          onFixed={() => {
            send.reset();
            check.mutate({ path: c.path, purpose: runPurpose });
          }}
          out={out}
          sending={send.isPending || request.isPending}
          progress={progress}
          onSend={() => {
            if (!asRequest) setConfirming(true);
            else if (!request.isPending && !request.data)
              request.mutate({ path: c.path, purpose: runPurpose });
          }}
          sendLabel={asRequest ? t("payouts.bulkRequest", { count: plan.rows.length }) : undefined}
          sendClosed={requestClosed ?? (request.data ? t("payouts.bulkRequested") : undefined)}
        >
          <BulkConfirm
            plan={plan}
            resultPath={c.resultPath}
            command={(includeHeld) =>
              profile
                ? bulkCommand({
                    profile,
                    file: c.path,
                    includeHeld,
                    request: asRequest,
                    purpose: runPurpose,
                  })
                : null
            }
            opened={confirming}
            sending={send.isPending}
            onCancel={() => setConfirming(false)}
            onConfirm={(includeHeld, expected) => {
              if (send.isPending) return;
              setProgress(null);
              setConfirming(false);
              send.mutate({ path: c.path, includeHeld, expected, purpose: runPurpose });
            }}
          />
        </BulkPreview>
      )}
      {send.error && <ErrorAlert error={send.error} />}
      {request.error && <ErrorAlert error={request.error} />}
      {request.data && <RequestMade view={request.data} />}
      {out && <BulkResult out={out} />}
    </Stack>
  );
}
