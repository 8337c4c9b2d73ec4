import { Button, Group, Modal, Stack, Table, Text } from "@mantine/core";
import { type ReactNode, useState } from "react";
import { useTranslation } from "react-i18next";
import { CopyCommand } from "../../components/CopyCommand";
import { locale } from "../../i18n";
import type { CliCommand } from "../../lib/cliCommand";
import { formatMoney } from "../../lib/format";
import type { PayoutPreview, Purpose } from "../../lib/types";
import { LiveCue } from "../app/LiveCue";
import { PurposeRow } from "../money/PurposeFields";
import { FundsCheck } from "./FundsCheck";

/// The payout as it will be sent, masked, with the last word before sending.
export function PayoutConfirm({
  preview,
  onConfirm,
  onCancel,
  sending,
  asRequest = false,
  command = null,
  purpose,
  payee = null,
}: {
  preview: PayoutPreview | null;
  onConfirm: () => void;
  onCancel: () => void;
  sending: boolean;
  /// A team desk without the key: confirming makes a request for approval.
  asRequest?: boolean;
  /// The same payout as a `paydesk` command line (no account number in it).
  command?: CliCommand | null;
  /// What the money is for, as typed (issue 35).
  purpose?: Purpose;
  /// Whether the book of payees knows the account (`features/beneficiaries`).
  payee?: ReactNode;
}) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const [short, setShort] = useState(false);
  return (
    <Modal
      opened={!!preview}
      onClose={onCancel}
      title={t("payouts.confirmTitle")}
      centered
      size="lg"
    >
      {preview && (
        <Stack data-testid="payout-confirm">
          <LiveCue />
          <Table withRowBorders={false}>
            <Table.Tbody>
              <Table.Tr>
                <Table.Th>{t("payouts.amount")}</Table.Th>
                <Table.Td data-testid="confirm-amount">
                  {formatMoney(preview.amount, preview.currency, loc)}
                </Table.Td>
              </Table.Tr>
              {preview.beneficiary && (
                <Table.Tr>
                  <Table.Th>{t("payouts.beneficiary")}</Table.Th>
                  <Table.Td>{preview.beneficiary}</Table.Td>
                </Table.Tr>
              )}
              <Table.Tr>
                <Table.Th>
                  {t(preview.kind === "CLABE" ? "payouts.clabe" : "payouts.cardNo")}
                </Table.Th>
                <Table.Td data-testid="confirm-account">{preview.account}</Table.Td>
              </Table.Tr>
              {preview.bank && (
                <Table.Tr>
                  <Table.Th>{t("payouts.bank")}</Table.Th>
                  <Table.Td>{preview.bank}</Table.Td>
                </Table.Tr>
              )}
              <Table.Tr>
                <Table.Th>{t("payouts.fee")}</Table.Th>
                <Table.Td data-testid="confirm-fee">
                  {preview.estimatedFee !== null ? (
                    <Stack gap={0}>
                      <Text size="sm">
                        {t("payouts.feeEstimate", {
                          fee: formatMoney(preview.estimatedFee, preview.currency, loc),
                        })}
                      </Text>
                      {preview.estimatedFeeFrom && (
                        <Text size="xs" c="dimmed">
                          {t("payouts.feeFrom", { no: preview.estimatedFeeFrom })}
                        </Text>
                      )}
                    </Stack>
                  ) : (
                    <Text size="sm" c="dimmed">
                      {t("payouts.feesUnknown")}
                    </Text>
                  )}
                </Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>{t("payouts.totalDebited")}</Table.Th>
                <Table.Td data-testid="confirm-total">
                  {preview.estimatedTotal !== null
                    ? t("payouts.totalEstimate", {
                        total: formatMoney(preview.estimatedTotal, preview.currency, loc),
                      })
                    : t("payouts.totalPlusFee", {
                        amount: formatMoney(preview.amount, preview.currency, loc),
                      })}
                </Table.Td>
              </Table.Tr>
              <PurposeRow purpose={purpose} />
              <Table.Tr>
                <Table.Th>{t("payouts.merOrderNo")}</Table.Th>
                <Table.Td>{preview.merOrderNo}</Table.Td>
              </Table.Tr>
            </Table.Tbody>
          </Table>
          <FundsCheck currency={preview.currency} amount={preview.amount} onShort={setShort} />
          {payee}
          <Text size="sm" c="dimmed">
            {t(asRequest ? "payouts.requestHint" : "payouts.confirmHint")}
          </Text>
          <Group justify="space-between">
            <CopyCommand command={command} testId="payout-command" />
            <Group>
              <Button variant="default" onClick={onCancel}>
                {t("common.cancel")}
              </Button>
              <Button
                color={asRequest ? "blue" : "red"}
                loading={sending}
                disabled={short}
                onClick={onConfirm}
                data-testid="payout-send"
              >
                {t(asRequest ? "payouts.requestApproval" : "payouts.send")}
              </Button>
            </Group>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
