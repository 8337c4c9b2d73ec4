import {
  Button,
  Card,
  Group,
  Select,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { CopyCommand } from "../../components/CopyCommand";
import { FormError } from "../../components/ErrorAlert";
import { payinCommand } from "../../lib/cliCommand";
import { useFieldErrors } from "../../lib/fieldErrors";
import type { PayinMethod, ProductLine, Receipt } from "../../lib/types";
import { useProfileName } from "../app/queries";
import { CurrencySelect } from "../money/CurrencySelect";
import { DuplicateGuard, duplicateOf, useDuplicate } from "../money/DuplicateGuard";
import { PurposeFields } from "../money/PurposeFields";
import { useEntryNow, useOrderNo } from "../money/queries";
import { GatewayNotice } from "../team/GatewayNotice";
import { useAccess, useRequestPayin } from "../team/queries";
import { RequestMade } from "../team/RequestMade";
import { BrowserFields, GcashFields, PixFields, SepaFields, VnBankFields } from "./MethodFields";
import { blankPayin, CURRENCY, type FieldsProps, METHODS, WALLETS } from "./methods";
import { PayinResult } from "./PayinResult";
import { ProductLines } from "./ProductLines";
import { useCreatePayin } from "./queries";

export function PayinsPage() {
  const { t } = useTranslation();
  const [orderNo, renewOrderNo] = useOrderNo("PI");
  const [form, setForm] = useState(() => blankPayin("WECHAT"));
  const dup = useDuplicate();
  const create = useCreatePayin(dup.settle);
  // A team desk without the key: a maker requests the payin's approval instead; the
  // signer creates it and its payment link shows on the request.
  const access = useAccess();
  const asRequest = access.moneyAsRequest;
  const request = useRequestPayin();
  const closed = asRequest && !access.has("maker") ? t("team.notMaker") : undefined;
  const failure = useFieldErrors(create.error ?? request.error);
  const set: FieldsProps["set"] = (k, v) => {
    failure.edited(k);
    setForm((f) => ({ ...f, [k]: v }));
  };
  const setProduct = (i: number, k: keyof ProductLine, v: string) => {
    failure.edited(`products[${i}]`, `productInfoList[${i}]`);
    setForm((f) => ({
      ...f,
      products: f.products.map((p, j) => (j === i ? { ...p, [k]: v } : p)),
    }));
  };
  const err = failure.err;
  const m = form.method;
  // A resend under the same number keeps the receipt it was made from until it answers.
  const [kept, setKept] = useState<Receipt | undefined>(undefined);
  const receipt = create.data ?? (create.isPending ? kept : undefined);
  const entry = useEntryNow(receipt?.entry ?? null);
  const submit = () => {
    if (asRequest) {
      if (!request.isPending && !request.data && !closed) {
        request.mutate({ ...form, merOrderNo: orderNo });
      }
      return;
    }
    if (!orderNo || create.isPending || receipt) return;
    dup.clear();
    create.mutate({ form: { ...form, merOrderNo: orderNo }, allowDuplicate: false });
  };
  /// The payin as sent, again under its number (`allowDuplicate` once confirmed).
  const resend = (allowDuplicate: boolean) => {
    const sent = create.variables?.form;
    if (!sent || create.isPending) return;
    setKept(receipt);
    create.mutate({ form: sent, allowDuplicate });
  };
  // The payin as a `paydesk` command line (a PIX payer's CPF is never in it).
  const profile = useProfileName();
  const command = profile
    ? payinCommand({
        ...form,
        profile,
        merOrderNo: orderNo,
        products: WALLETS.includes(m) ? (form.products ?? []).map((p) => p.name ?? "") : [],
        request: asRequest,
      })
    : null;
  const next = () => {
    // A refused payin keeps what was typed, to correct it under a new order number.
    const refused = entry?.status === "rejected";
    create.reset();
    request.reset();
    dup.clear();
    setKept(undefined);
    renewOrderNo();
    if (!refused) setForm(blankPayin(m));
  };

  return (
    <Stack data-testid="screen-payins">
      <Title order={2}>{t("payins.title")}</Title>
      {asRequest ? <GatewayNotice instead={closed ?? t("payins.requestInstead")} /> : null}
      <Text c="dimmed" size="sm">
        {t("payins.intro")}
      </Text>
      <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="lg">
        <Card withBorder>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              submit();
            }}
          >
            <Stack gap="sm">
              <Select
                label={t("payins.method")}
                data={METHODS.map((x) => ({ value: x, label: t(`payins.methods.${x}`) }))}
                value={m}
                allowDeselect={false}
                onChange={(v) => {
                  if (!v) return;
                  const method = v as PayinMethod;
                  setForm((f) => ({ ...f, method, currency: CURRENCY[method] }));
                  create.reset();
                  dup.clear();
                }}
                data-testid="payin-method"
                disabled={!!receipt}
              />
              <TextInput
                label={t("payins.merOrderNo")}
                value={orderNo}
                readOnly
                description={t("payins.merOrderNoHint")}
              />
              <Group grow align="flex-start">
                <TextInput
                  label={t("payins.amount")}
                  required
                  value={form.amount}
                  onChange={(e) => set("amount", e.currentTarget.value)}
                  error={err("amount")}
                  inputMode="decimal"
                  data-testid="payin-amount"
                />
                <CurrencySelect
                  label={t("payins.currency")}
                  value={form.currency}
                  onChange={(c) => set("currency", c)}
                  error={err("currency")}
                  testId="payin-currency"
                />
              </Group>
              <Group grow align="flex-start">
                <TextInput
                  label={t("payins.email")}
                  value={form.email}
                  onChange={(e) => set("email", e.currentTarget.value)}
                  error={err("email")}
                  data-testid="payin-email"
                />
                <TextInput
                  label={t("payins.userId")}
                  value={form.userId}
                  onChange={(e) => set("userId", e.currentTarget.value)}
                  data-testid="payin-user-id"
                />
              </Group>
              <TextInput
                label={t("payins.customerIp")}
                description={t("payins.customerIpHint")}
                placeholder="203.0.113.7"
                value={form.ipAddress}
                onChange={(e) => set("ipAddress", e.currentTarget.value)}
                error={err("ipAddress")}
                data-testid="payin-customer-ip"
              />
              <TextInput
                label={t("payins.returnUrl")}
                value={form.returnUrl}
                onChange={(e) => set("returnUrl", e.currentTarget.value)}
                error={err("returnUrl")}
              />
              {m === "PIX" && <PixFields form={form} set={set} err={err} />}
              {m === "SEPA" && <SepaFields form={form} set={set} err={err} />}
              {(m === "APPLE_PAY" || m === "CASH_APP") && (
                <BrowserFields form={form} set={set} err={err} />
              )}
              {m === "GCASH" && <GcashFields form={form} set={set} err={err} />}
              {WALLETS.includes(m) && (
                <ProductLines form={form} set={set} err={err} setProduct={setProduct} />
              )}
              {m === "VN_BANK" && <VnBankFields form={form} set={set} err={err} />}
              <PurposeFields
                value={form.purpose}
                onChange={(p) => set("purpose", p)}
                err={err}
                testId="payin-purpose"
              />
              <Group>
                {receipt || request.data ? (
                  <Button onClick={next} data-testid="payin-next">
                    {t("payins.another")}
                  </Button>
                ) : (
                  <Button
                    type="submit"
                    loading={create.isPending || request.isPending}
                    disabled={!orderNo || !!closed}
                    title={closed}
                    data-testid="payin-submit"
                  >
                    {t(asRequest ? "payins.requestApproval" : "payins.create")}
                  </Button>
                )}
                <CopyCommand command={command} testId="payin-command" />
              </Group>
              <FormError
                error={duplicateOf(failure.error) ? null : failure.error}
                testId="payin-field-error"
              />
              <DuplicateGuard
                duplicate={dup.duplicate}
                sending={create.isPending}
                onConfirm={() => resend(true)}
              />
            </Stack>
          </form>
        </Card>
        {request.data ? (
          <RequestMade view={request.data} />
        ) : (
          <PayinResult
            receipt={receipt}
            onRetry={() => resend(false)}
            retrying={create.isPending}
          />
        )}
      </SimpleGrid>
    </Stack>
  );
}
