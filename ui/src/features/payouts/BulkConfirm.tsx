import { Alert, Button, Checkbox, Group, Modal, Stack, Table, Text } from "@mantine/core";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { CopyCommand } from "../../components/CopyCommand";
import { locale } from "../../i18n";
import type { CliCommand } from "../../lib/cliCommand";
import { formatMoney } from "../../lib/format";
import type { BulkPlan } from "../../lib/types";
import { LiveCue } from "../app/LiveCue";
import { heldFirm, rowReason } from "./reason";
import { Totals } from "./Totals";

/// The last word before a bulk run: what will be sent, how much, what it may cost, and
/// the held rows, which go only when ticked (unticked each time it opens).
export function BulkConfirm({
  plan,
  opened,
  sending,
  onCancel,
  onConfirm,
  resultPath,
  command,
}: {
  plan: BulkPlan;
  /// Where the run's results will be written (a new file).
  resultPath?: string;
  /// The run as a `paydesk` command line, with or without the held rows.
  command?: (includeHeld: boolean) => CliCommand | null;
  opened: boolean;
  sending: boolean;
  onCancel: () => void;
  onConfirm: (includeHeld: boolean, expected: string) => void;
}) {
  const { t } = useTranslation();
  return (
    <Modal
      opened={opened}
      onClose={onCancel}
      title={t("payouts.bulkConfirmTitle")}
      size="lg"
      centered
    >
      <BulkConfirmBody
        plan={plan}
        resultPath={resultPath}
        command={command}
        sending={sending}
        onCancel={onCancel}
        onConfirm={onConfirm}
      />
    </Modal>
  );
}

function BulkConfirmBody({
  plan,
  resultPath,
  sending,
  onCancel,
  onConfirm,
  command,
}: {
  plan: BulkPlan;
  resultPath?: string | undefined;
  command?: ((includeHeld: boolean) => CliCommand | null) | undefined;
  sending: boolean;
  onCancel: () => void;
  onConfirm: (includeHeld: boolean, expected: string) => void;
}) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const [includeHeld, setIncludeHeld] = useState(false);
  // Rows held firm (over a limit, beyond the balance) are never sent: not offered here.
  // Of the repeats, those the money left after the rows that go reaches (heldTotals).
  const heldGoing = plan.heldTotals.reduce((n, c) => n + c.count, 0);
  const count = plan.toSend + (includeHeld ? heldGoing : 0);
  const held = plan.rows.filter((r) => r.action === "held" && !heldFirm(r.why));
  return (
    <Stack data-testid="bulk-confirm" data-to-send={plan.toSend} data-held={plan.held}>
      <LiveCue />
      <Text fw={500}>{t("payouts.bulkConfirmCount", { count: plan.toSend })}</Text>
      <Totals totals={plan.totals} testId="bulk-confirm-totals" />
      {(plan.paid > 0 || plan.lookUp > 0) && (
        <Text size="sm" c="dimmed">
          {t("payouts.bulkConfirmSkipped", { paid: plan.paid, lookUp: plan.lookUp })}
        </Text>
      )}
      {held.length > 0 && (
        <Alert color="yellow" variant="light" title={t("payouts.bulkHeldTitle")}>
          <Stack gap="xs">
            <Text size="sm">{t("payouts.bulkHeldIntro")}</Text>
            <Table.ScrollContainer minWidth={480} mah={200}>
              <Table verticalSpacing={2} data-testid="bulk-held-rows">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{t("payouts.line")}</Table.Th>
                    <Table.Th>{t("payouts.amount")}</Table.Th>
                    <Table.Th>{t("payouts.account")}</Table.Th>
                    <Table.Th>{t("payouts.reason")}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {held.map((r) => (
                    <Table.Tr key={r.line}>
                      <Table.Td>{r.line}</Table.Td>
                      <Table.Td>{formatMoney(r.payout.amount, r.payout.currency, loc)}</Table.Td>
                      <Table.Td>{r.payout.account}</Table.Td>
                      <Table.Td>
                        <Text size="xs">{rowReason(t, r.why)}</Text>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
            <Checkbox
              label={t("payouts.bulkIncludeHeld", { count: heldGoing })}
              description={t("payouts.bulkIncludeHeldHint")}
              checked={includeHeld}
              onChange={(e) => setIncludeHeld(e.currentTarget.checked)}
              data-testid="bulk-include-held"
            />
            <Totals totals={plan.heldTotals} testId="bulk-held-totals" />
          </Stack>
        </Alert>
      )}
      <Text size="sm" c="dimmed">
        {t("payouts.bulkConfirmHint")}
      </Text>
      {resultPath ? (
        <Text size="sm" c="dimmed" data-testid="bulk-confirm-result-path">
          {t("flows.bulk.resultWillGo", { path: resultPath })}
        </Text>
      ) : null}
      <Group justify="space-between">
        <CopyCommand command={command?.(includeHeld) ?? null} testId="bulk-command" />
        <Group>
          <Button variant="default" onClick={onCancel}>
            {t("common.cancel")}
          </Button>
          <Button
            color="red"
            disabled={count === 0}
            loading={sending}
            onClick={() => {
              if (!sending && count > 0)
                onConfirm(includeHeld, includeHeld ? plan.digestWithHeld : plan.digest);
            }}
            data-testid="bulk-confirm-send"
          >
            {t("payouts.bulkSend", { count })}
          </Button>
        </Group>
      </Group>
    </Stack>
  );
}
