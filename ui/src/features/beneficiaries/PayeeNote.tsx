import { Alert, Button, Group, Stack, Text, TextInput } from "@mantine/core";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { FormError } from "../../components/ErrorAlert";
import type { Payee, PayoutForm } from "../../lib/types";
import { useAddBeneficiary } from "./queries";

/// On a payout's confirmation: the payee the book knows the account as, or that the book
/// has never seen it, with "save this payee" (the account as typed goes to the desk,
/// which keeps it sealed).
export function PayeeNote({ payee, form }: { payee: Payee | null; form: PayoutForm }) {
  const { t } = useTranslation();
  const add = useAddBeneficiary();
  const [nickname, setNickname] = useState("");
  const [name, setName] = useState("");
  if (!payee) return null;
  if (payee.kind === "known") {
    return (
      <Text size="sm" data-testid="payee-known">
        {t("beneficiaries.known", { nickname: payee.nickname, name: payee.name })}
      </Text>
    );
  }
  const card = form.kind === "CARD";
  const save = () =>
    add.mutate({
      nickname,
      kind: form.kind,
      firstName: card ? form.firstName : name,
      lastName: card ? form.lastName : "",
      account: card ? form.cardNo : form.clabe,
      country: card ? form.countryCode : "",
    });
  return (
    <Alert
      color="yellow"
      variant="light"
      title={t("beneficiaries.newTitle")}
      data-testid="payee-new"
    >
      <Stack gap="xs">
        <Text size="sm">{t("beneficiaries.newHint")}</Text>
        {add.data ? (
          <Text size="sm" data-testid="payee-saved">
            {t("beneficiaries.saved", { nickname: add.data.nickname })}
          </Text>
        ) : (
          <Group align="flex-end" gap="xs">
            <TextInput
              label={t("beneficiaries.nickname")}
              value={nickname}
              onChange={(e) => setNickname(e.currentTarget.value)}
              data-testid="payee-save-nickname"
            />
            {!card && (
              <TextInput
                label={t("beneficiaries.name")}
                value={name}
                onChange={(e) => setName(e.currentTarget.value)}
                data-testid="payee-save-name"
              />
            )}
            <Button
              variant="default"
              onClick={save}
              loading={add.isPending}
              data-testid="payee-save"
            >
              {t("beneficiaries.save")}
            </Button>
          </Group>
        )}
        <FormError error={add.error} testId="payee-save-error" />
      </Stack>
    </Alert>
  );
}

/// A bulk plan row's note: the payee's nickname, or "new payee".
export function PayeeTag({ payee }: { payee: Payee | null }) {
  const { t } = useTranslation();
  if (!payee) return null;
  return payee.kind === "known" ? (
    <Text span size="xs" c="dimmed" display="block" data-testid="bulk-payee">
      {t("beneficiaries.inBook", { nickname: payee.nickname })}
    </Text>
  ) : (
    <Text span size="xs" c="dimmed" fw={700} display="block" data-testid="bulk-payee-new">
      {t("beneficiaries.newPayee")}
    </Text>
  );
}
