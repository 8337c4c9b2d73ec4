import {
  Badge,
  Button,
  Card,
  Group,
  SegmentedControl,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { ConfirmModal } from "../../components/ConfirmModal";
import { ErrorAlert, FormError } from "../../components/ErrorAlert";
import { useFieldErrors } from "../../lib/fieldErrors";
import type { NewBeneficiary, PayoutKind } from "../../lib/types";
import {
  useAddBeneficiary,
  useApproveBeneficiary,
  useBeneficiaries,
  usePayeeApproval,
  useRemoveBeneficiary,
  useSetPayeeApproval,
} from "./queries";

const blank = (kind: PayoutKind): NewBeneficiary => ({
  nickname: "",
  kind,
  firstName: "",
  lastName: "",
  account: "",
  country: "",
});

/// The book of payees: every payee masked, one added (its account goes to the desk,
/// which keeps it sealed), one removed after a confirmation.
export function BeneficiaryBook() {
  const { t } = useTranslation();
  const book = useBeneficiaries();
  const add = useAddBeneficiary();
  const remove = useRemoveBeneficiary();
  const approve = useApproveBeneficiary();
  const approval = usePayeeApproval();
  const setApproval = useSetPayeeApproval();
  const [form, setForm] = useState<NewBeneficiary>(blank("CLABE"));
  const [removing, setRemoving] = useState<string | null>(null);
  const failure = useFieldErrors(add.error);
  const set = <K extends keyof NewBeneficiary>(k: K, v: NewBeneficiary[K]) => {
    failure.edited(k);
    setForm((f) => ({ ...f, [k]: v }));
  };
  const err = failure.err;
  const card = form.kind === "CARD";
  return (
    <Stack data-testid="beneficiary-book">
      <Card withBorder>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            add.mutate(form, { onSuccess: () => setForm(blank(form.kind ?? "CLABE")) });
          }}
        >
          <Stack gap="sm">
            <Title order={4}>{t("beneficiaries.add")}</Title>
            <SegmentedControl
              value={form.kind ?? "CLABE"}
              onChange={(v) => set("kind", v as PayoutKind)}
              data={[
                { value: "CLABE", label: t("payouts.clabeTab") },
                { value: "CARD", label: t("payouts.card") },
              ]}
              data-testid="payee-kind"
            />
            <Group grow align="flex-start">
              <TextInput
                label={t("beneficiaries.nickname")}
                required
                value={form.nickname}
                onChange={(e) => set("nickname", e.currentTarget.value)}
                error={err("nickname")}
                data-testid="payee-nickname"
              />
              <TextInput
                label={t(card ? "payouts.cardNo" : "payouts.clabe")}
                required
                autoComplete="off"
                value={form.account}
                onChange={(e) => set("account", e.currentTarget.value)}
                error={err("account")}
                data-testid="payee-account"
              />
            </Group>
            <Group grow align="flex-start">
              <TextInput
                label={t(card ? "payouts.firstName" : "beneficiaries.name")}
                required
                value={form.firstName}
                onChange={(e) => set("firstName", e.currentTarget.value)}
                error={err("firstName")}
                data-testid="payee-first-name"
              />
              {card && (
                <TextInput
                  label={t("payouts.lastName")}
                  required
                  value={form.lastName}
                  onChange={(e) => set("lastName", e.currentTarget.value)}
                  error={err("lastName")}
                  data-testid="payee-last-name"
                />
              )}
              <TextInput
                label={t("beneficiaries.country")}
                placeholder={card ? "US" : "MX"}
                value={form.country}
                onChange={(e) => set("country", e.currentTarget.value)}
                error={err("country")}
                data-testid="payee-country"
              />
            </Group>
            <FormError error={failure.error} testId="payee-field-error" />
            <Group>
              <Button type="submit" loading={add.isPending} data-testid="payee-add">
                {t("beneficiaries.addButton")}
              </Button>
            </Group>
          </Stack>
        </form>
      </Card>
      {typeof approval.data === "boolean" && (
        <Switch
          label={t("beneficiaries.requireApproval")}
          description={t("beneficiaries.requireApprovalHint")}
          checked={approval.data}
          disabled={setApproval.isPending}
          onChange={(e) => setApproval.mutate(e.currentTarget.checked)}
          data-testid="payee-require-approval"
        />
      )}
      <FormError
        error={approve.error ?? remove.error ?? setApproval.error}
        testId="payee-action-error"
      />
      {book.isError ? (
        <ErrorAlert error={book.error} />
      ) : (book.data ?? []).length === 0 ? (
        <Text c="dimmed" size="sm" data-testid="payee-empty">
          {t("beneficiaries.empty")}
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={700}>
          <Table striped data-testid="payee-list">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t("beneficiaries.nickname")}</Table.Th>
                <Table.Th>{t("beneficiaries.name")}</Table.Th>
                <Table.Th>{t("payouts.account")}</Table.Th>
                <Table.Th>{t("payouts.bank")}</Table.Th>
                <Table.Th>{t("beneficiaries.country")}</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {(book.data ?? []).map((b) => (
                <Table.Tr key={b.nickname} data-nickname={b.nickname}>
                  <Table.Td>
                    {b.nickname}
                    {b.awaitingApproval && (
                      <Badge ml="xs" color="yellow" variant="light" data-testid="payee-awaiting">
                        {t("beneficiaries.awaiting")}
                      </Badge>
                    )}
                  </Table.Td>
                  <Table.Td>{[b.firstName, b.lastName].filter(Boolean).join(" ")}</Table.Td>
                  <Table.Td data-testid="payee-account-masked">{b.account}</Table.Td>
                  <Table.Td>{b.bank ?? "—"}</Table.Td>
                  <Table.Td>{b.country}</Table.Td>
                  <Table.Td>
                    {b.awaitingApproval && b.teamRow && (
                      <Button
                        size="xs"
                        variant="light"
                        loading={approve.isPending && approve.variables?.id === b.teamRow.id}
                        onClick={() => b.teamRow && approve.mutate(b.teamRow)}
                        data-testid="payee-approve"
                      >
                        {t("beneficiaries.approve")}
                      </Button>
                    )}
                    <Button
                      size="xs"
                      variant="subtle"
                      color="red"
                      onClick={() => setRemoving(b.nickname)}
                      aria-label={t("beneficiaries.removeOne", { nickname: b.nickname })}
                    >
                      {t("beneficiaries.remove")}
                    </Button>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <ConfirmModal
        opened={removing !== null}
        title={t("beneficiaries.removeTitle")}
        message={t("beneficiaries.removeMessage", { nickname: removing ?? "" })}
        confirmLabel={t("beneficiaries.remove")}
        color="red"
        loading={remove.isPending}
        onConfirm={() => {
          if (removing) remove.mutate(removing, { onSuccess: () => setRemoving(null) });
        }}
        onClose={() => setRemoving(null)}
      />
    </Stack>
  );
}
