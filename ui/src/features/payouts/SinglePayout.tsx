import {
  Button,
  Card,
  Checkbox,
  Group,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
  Tooltip,
} from "@mantine/core";
import { type Dispatch, type SetStateAction, useState } from "react";
import { useTranslation } from "react-i18next";
import { FormError } from "../../components/ErrorAlert";
import { payoutCardCommand, payoutClabeCommand } from "../../lib/cliCommand";
import { useFieldErrors } from "../../lib/fieldErrors";
import type { PayoutKind, Receipt } from "../../lib/types";
import { useAppStatus, useProfileName } from "../app/queries";
import { PayeeNote } from "../beneficiaries/PayeeNote";
import { PayeePicker } from "../beneficiaries/PayeePicker";
import { CurrencySelect } from "../money/CurrencySelect";
import { DuplicateGuard, duplicateOf, useDuplicate } from "../money/DuplicateGuard";
import { PurposeFields } from "../money/PurposeFields";
import { useEntryNow, useOrderNo } from "../money/queries";
import { ReceiptView } from "../money/ReceiptView";
import { GatewayNotice } from "../team/GatewayNotice";
import { useAccess, useRequestPayout } from "../team/queries";
import { RequestMade } from "../team/RequestMade";
import { PayoutConfirm } from "./PayoutConfirm";
import {
  blankPayout,
  CardFields,
  ClabeFields,
  type FieldsProps,
  type PayoutDraft,
} from "./PayoutFields";
import { useCreatePayout, usePayoutPreview } from "./queries";

/// One payout of one kind: typed, previewed, confirmed, sent, and its receipt. What is
/// typed (`draft`) is held by the caller, so it outlives this form when its tab is left.
export function SinglePayout({
  kind,
  draft,
}: {
  kind: PayoutKind;
  draft: readonly [PayoutDraft, Dispatch<SetStateAction<PayoutDraft>>];
}) {
  const { t } = useTranslation();
  const status = useAppStatus();
  const [orderNo, renew] = useOrderNo("PO");
  const [form, setForm] = draft;
  const [loseAnswer, setLoseAnswer] = useState(false);
  const dup = useDuplicate();
  const preview = usePayoutPreview();
  const send = useCreatePayout(dup.settle);
  // A team desk without the merchant key requests approval instead of sending; a card
  // payout cannot be requested (the team's database never holds a card number).
  const access = useAccess();
  const asRequest = access.moneyAsRequest;
  const request = useRequestPayout();
  const requestClosed = !asRequest
    ? undefined
    : kind === "CARD"
      ? t("team.cardNeedsSigner")
      : access.has("maker")
        ? undefined
        : t("team.notMaker");
  const failure = useFieldErrors(preview.error ?? send.error ?? request.error);
  const set: FieldsProps["set"] = (k, v) => {
    failure.edited(k);
    setForm((f) => ({ ...f, [k]: v }));
  };
  const err = failure.err;
  const full = { ...form, merOrderNo: orderNo };
  // A resend under the same number keeps the receipt it was made from until it answers.
  const [kept, setKept] = useState<Receipt | undefined>(undefined);
  const receipt = send.data ?? (send.isPending ? kept : undefined);
  const entry = useEntryNow(receipt?.entry ?? null);
  const open = entry?.status === "unknown" || entry?.status === "sending";
  const notSent = entry?.status === "pending";
  /// The same payout again, under the number it was sent with (the confirmation is not
  /// shown again: it was given for this number).
  const resend = (allowDuplicate: boolean) => {
    const sent = send.variables?.form;
    if (!sent || send.isPending) return;
    preview.reset();
    setKept(receipt);
    send.mutate({ form: sent, loseAnswer, allowDuplicate });
  };
  const formError = duplicateOf(failure.error) ? null : failure.error;
  // The confirmed payout as a `paydesk` command line: the amount as the desk normalised
  // it, never the account number.
  const profile = useProfileName();
  const shown = preview.data;
  const command =
    profile && shown
      ? kind === "CLABE"
        ? payoutClabeCommand({
            profile,
            merOrderNo: shown.merOrderNo,
            amount: shown.amount,
            currency: shown.currency,
            ipAddress: form.ipAddress,
            notifyUrl: form.notifyUrl,
            purpose: form.purpose,
            request: asRequest,
            beneficiary: form.beneficiary,
          })
        : payoutCardCommand({
            ...form,
            profile,
            merOrderNo: shown.merOrderNo,
            amount: shown.amount,
            currency: shown.currency,
          })
      : null;
  return (
    <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="lg">
      <Card withBorder>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (!orderNo || send.isPending || receipt || request.data || requestClosed) return;
            send.reset();
            dup.clear();
            preview.mutate(full);
          }}
        >
          <Stack gap="sm">
            {asRequest ? (
              <GatewayNotice instead={requestClosed ?? t("payouts.requestInstead")} />
            ) : null}
            <TextInput
              label={t("payouts.merOrderNo")}
              value={orderNo}
              readOnly
              description={t("payins.merOrderNoHint")}
            />
            <Group grow align="flex-start">
              <TextInput
                label={t("payouts.amount")}
                required
                inputMode="decimal"
                value={form.amount}
                onChange={(e) => set("amount", e.currentTarget.value)}
                error={err("amount")}
                data-testid="payout-amount"
              />
              <CurrencySelect
                label={t("payouts.currency")}
                value={form.currency}
                onChange={(c) => set("currency", c)}
                error={err("currency")}
                testId="payout-currency"
              />
            </Group>
            {/* On a team, the team's book: the request names the payee, its account
                stays sealed to the signers. */}
            <PayeePicker
              kind={kind}
              value={form.beneficiary}
              onChange={(n) => {
                // A payee's account comes from the book: nothing typed is kept beside it.
                set("beneficiary", n);
                set(kind === "CLABE" ? "clabe" : "cardNo", "");
              }}
              error={err("beneficiary")}
            />
            {form.beneficiary ? null : kind === "CLABE" ? (
              <ClabeFields form={form} set={set} err={err} />
            ) : (
              <CardFields form={form} set={set} err={err} />
            )}
            <PurposeFields value={form.purpose} onChange={(p) => set("purpose", p)} err={err} />
            {status.data?.sandbox && (
              <Checkbox
                label={t("payouts.loseAnswer")}
                description={t("payouts.loseAnswerHint")}
                checked={loseAnswer}
                onChange={(e) => setLoseAnswer(e.currentTarget.checked)}
                data-testid="payout-lose-answer"
              />
            )}
            <FormError error={formError} testId="payout-field-error" />
            <DuplicateGuard
              duplicate={dup.duplicate}
              sending={send.isPending}
              onConfirm={() => resend(true)}
              onSendEarlier={(earlier) => {
                const sent = send.variables?.form;
                if (!sent || send.isPending) return;
                preview.reset();
                dup.clear();
                send.mutate({
                  form: { ...sent, merOrderNo: earlier },
                  loseAnswer,
                  allowDuplicate: false,
                });
              }}
            />
            <Group>
              {receipt || request.data ? (
                <Tooltip
                  label={t(open ? "payouts.anotherOpenHint" : "payouts.anotherHint")}
                  multiline
                  w={320}
                >
                  <Button
                    // While this payout's outcome is open, or it waits to be sent again
                    // under its number, a new one is not the next step.
                    variant={open || notSent ? "default" : "filled"}
                    onClick={() => {
                      // A refused payout keeps what was typed, to correct it under a new
                      // order number.
                      const refused = entry?.status === "rejected";
                      send.reset();
                      request.reset();
                      preview.reset();
                      dup.clear();
                      setKept(undefined);
                      renew();
                      if (!refused) setForm(blankPayout(kind));
                      setLoseAnswer(false);
                    }}
                    data-testid="payout-next"
                  >
                    {t(open ? "payouts.anotherOpen" : "payouts.another")}
                  </Button>
                </Tooltip>
              ) : (
                <Button
                  type="submit"
                  loading={preview.isPending}
                  disabled={!orderNo || send.isPending || !!requestClosed}
                  title={requestClosed}
                  data-testid="payout-review"
                >
                  {t(asRequest ? "payouts.reviewRequest" : "payouts.review")}
                </Button>
              )}
            </Group>
            {receipt && open && (
              <Text size="sm" c="dimmed" data-testid="payout-next-hint">
                {t("payouts.anotherOpenHint")}
              </Text>
            )}
          </Stack>
        </form>
      </Card>
      <Stack>
        {request.data && <RequestMade view={request.data} />}
        {receipt && (
          <Card withBorder>
            <Title order={4} mb="xs">
              {t("payouts.result")}
            </Title>
            <ReceiptView
              receipt={receipt}
              onRetry={() => resend(false)}
              retrying={send.isPending}
              retryTestId="payout-retry-same"
            />
          </Card>
        )}
      </Stack>
      <PayoutConfirm
        preview={
          preview.data &&
          !receipt &&
          !request.data &&
          !send.error &&
          !request.error &&
          !dup.duplicate
            ? preview.data
            : null
        }
        sending={send.isPending || request.isPending}
        asRequest={asRequest}
        command={command}
        purpose={form.purpose}
        payee={preview.data ? <PayeeNote payee={preview.data.payee} form={full} /> : null}
        onCancel={() => preview.reset()}
        onConfirm={() => {
          if (asRequest) {
            if (!request.isPending) request.mutate(full);
          } else if (!send.isPending) {
            send.mutate({ form: full, loseAnswer, allowDuplicate: false });
          }
        }}
      />
    </SimpleGrid>
  );
}
