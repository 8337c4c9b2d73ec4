import { Alert, Badge, Button, Card, Group, Progress, Stack, Text } from "@mantine/core";
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { locale } from "../../i18n";
import { formatCount } from "../../lib/format";
import { brokenRuleText } from "../../lib/ipc";
import type { BulkOutcome, BulkPlan, BulkProgress } from "../../lib/types";
import { BulkErrorRow } from "./BulkFix";
import { BulkFunds } from "./BulkFunds";
import { ACTION_COLORS, BulkRows } from "./BulkRows";
import { Totals } from "./Totals";

/// A checked bulk file: how many rows go, are skipped, held or invalid, the totals,
/// each row, and the button that asks for the confirmation (`children`).
export function BulkPreview({
  plan,
  out,
  sending,
  progress,
  onSend,
  children,
  sendLabel,
  sendClosed,
  path,
  onFixed,
}: {
  /// The file checked, and what to do once one of its cells was fixed in place.
  path?: string;
  onFixed?: () => void;
  plan: BulkPlan;
  out: BulkOutcome | undefined;
  sending: boolean;
  progress: BulkProgress | null;
  onSend: () => void;
  children: ReactNode;
  /// The button's own words (a team maker requests approval instead of sending).
  sendLabel?: string;
  /// Why the button is closed, if it is.
  sendClosed?: string;
}) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  return (
    <Card
      withBorder
      data-testid="bulk-preview"
      data-rows={plan.rows.length}
      data-errors={plan.errors.length}
      data-to-send={plan.toSend}
      data-paid={plan.paid}
      data-look-up={plan.lookUp}
      data-held={plan.held}
    >
      <Group justify="space-between" mb="xs" align="flex-start">
        <Stack gap={4}>
          <Text fw={500}>
            {t("payouts.bulkSummary", {
              ok: formatCount(plan.rows.length, loc),
              bad: formatCount(plan.errors.length, loc),
            })}
          </Text>
          <Group gap="xs" data-testid="bulk-counts">
            <Badge color={ACTION_COLORS.send} variant="light">
              {t("payouts.countToSend", { count: plan.toSend })}
            </Badge>
            <Badge color={ACTION_COLORS.paid} variant="light">
              {t("payouts.countPaid", { count: plan.paid })}
            </Badge>
            <Badge color={ACTION_COLORS.look_up} variant="light">
              {t("payouts.countLookUp", { count: plan.lookUp })}
            </Badge>
            <Badge color={ACTION_COLORS.held} variant="light">
              {t("payouts.countHeld", { count: plan.held })}
            </Badge>
            <Badge color="red" variant="light">
              {t("payouts.countInvalid", { count: plan.errors.length })}
            </Badge>
          </Group>
        </Stack>
        <Button
          color="red"
          // Nothing to send and nothing held to review: no confirmation for nothing.
          disabled={(plan.toSend === 0 && plan.held === 0) || !!out || !!sendClosed}
          title={
            sendClosed ??
            (plan.toSend === 0 && plan.held === 0 ? t("flows.bulk.nothingToSend") : undefined)
          }
          loading={sending}
          onClick={onSend}
          data-testid="bulk-send"
        >
          {sendLabel ??
            (plan.toSend === 0 && plan.held > 0
              ? t("flows.bulk.reviewHeld", { count: plan.held })
              : t("payouts.bulkSend", { count: plan.toSend }))}
        </Button>
      </Group>
      {sending && (
        <Stack gap={2} mb="xs">
          <Progress
            value={progress && progress.total > 0 ? (100 * progress.done) / progress.total : 0}
            animated
            aria-label={t("payouts.bulkProgress")}
            data-testid="bulk-progress"
            data-done={progress?.done ?? 0}
            data-total={progress?.total ?? 0}
          />
          <Text size="xs" c="dimmed" data-testid="bulk-progress-rows">
            {t("flows.bulk.progressRows", {
              done: progress?.done ?? 0,
              count: progress?.total ?? plan.toSend,
            })}
          </Text>
        </Stack>
      )}
      <Totals totals={plan.totals} testId="bulk-totals" />
      <BulkFunds plan={plan} />
      {plan.errors.length > 0 && (
        <Alert color="red" variant="light" my="xs" title={t("payouts.bulkErrors")}>
          <Stack gap={2} data-testid="bulk-errors">
            {plan.errors.map((e) =>
              path && onFixed ? (
                <BulkErrorRow key={`${e.line}-${e.field}`} path={path} e={e} onFixed={onFixed} />
              ) : (
                <Text size="sm" key={`${e.line}-${e.field}`}>
                  {t("payouts.bulkError", {
                    line: e.line,
                    field: e.field,
                    rule: brokenRuleText(e),
                  })}
                </Text>
              ),
            )}
          </Stack>
        </Alert>
      )}
      <BulkRows plan={plan} out={out} />
      {children}
    </Card>
  );
}
