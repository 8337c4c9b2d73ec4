import {
  Autocomplete,
  Badge,
  Button,
  Card,
  Group,
  Modal,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  UnstyledButton,
} from "@mantine/core";
import { type Dispatch, type SetStateAction, useState } from "react";
import { useTranslation } from "react-i18next";
import { CopyCommand } from "../../components/CopyCommand";
import { ErrorAlert, FormError } from "../../components/ErrorAlert";
import { locale } from "../../i18n";
import { cardMoveCommand } from "../../lib/cliCommand";
import { useFieldErrors } from "../../lib/fieldErrors";
import { formatDateTimeShort, formatMoney } from "../../lib/format";
import type { CardForm, CardMove, Purpose, Receipt } from "../../lib/types";
import { LiveCue } from "../app/LiveCue";
import { useProfileName } from "../app/queries";
import { CurrencySelect } from "../money/CurrencySelect";
import { DuplicateGuard, duplicateOf, useDuplicate } from "../money/DuplicateGuard";
import { blankPurpose, PurposeFields } from "../money/PurposeFields";
import { useOrderNo } from "../money/queries";
import { ReceiptView } from "../money/ReceiptView";
import { GatewayNotice } from "../team/GatewayNotice";
import { useAccess, useRequestCard } from "../team/queries";
import { RequestMade } from "../team/RequestMade";
import { useCardMove, useCardOperations, useCards } from "./queries";

/// What is typed for one kind of operation, held by the screen so that switching between
/// top-up and withdrawal loses neither.
type CardDraft = { card: string; amount: string; currency: string; purpose: Purpose };
const BLANK: CardDraft = { card: "", amount: "", currency: "", purpose: blankPurpose() };

function MoveForm({
  kind,
  draft: [draft, setDraft],
}: {
  kind: CardMove;
  draft: readonly [CardDraft, Dispatch<SetStateAction<CardDraft>>];
}) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const cards = useCards();
  const [reference, renew] = useOrderNo(kind === "top_up" ? "TU" : "WD");
  const { card, amount, currency, purpose } = draft;
  const setCard = (v: string) => setDraft((d) => ({ ...d, card: v }));
  const setAmount = (v: string) => setDraft((d) => ({ ...d, amount: v }));
  const setCurrency = (v: string) => setDraft((d) => ({ ...d, currency: v }));
  const [confirming, setConfirming] = useState(false);
  // A team desk without the key: a maker requests the move's approval instead.
  const access = useAccess();
  const asRequest = access.moneyAsRequest;
  const request = useRequestCard();
  const closed = asRequest && !access.has("maker") ? t("team.notMaker") : undefined;
  const dup = useDuplicate();
  const move = useCardMove(dup.settle);
  const known = cards.data ?? [];
  const form: CardForm = {
    kind,
    card,
    reference,
    amount,
    currency,
    subMerNo: "",
    remark: "",
    purpose,
  };
  const failure = useFieldErrors(move.error ?? request.error);
  const profile = useProfileName();
  const command = profile ? cardMoveCommand({ ...form, profile, request: asRequest }) : null;
  const err = failure.err;
  // A resend under the same reference keeps the receipt it was made from until it answers.
  const [kept, setKept] = useState<Receipt | undefined>(undefined);
  const receipt = move.data ?? (move.isPending ? kept : undefined);
  /// The operation as sent, again under its reference (`allowDuplicate` once confirmed).
  const resend = (allowDuplicate: boolean) => {
    const sent = move.variables?.form;
    if (!sent || move.isPending) return;
    setKept(receipt);
    move.mutate({ form: sent, allowDuplicate });
  };
  return (
    <Card withBorder>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (!card.trim() || receipt || request.data || move.isPending || closed) return;
          dup.clear();
          setConfirming(true);
        }}
      >
        <Stack gap="sm">
          <Autocomplete
            label={t("cards.card")}
            required
            data={known.map((c) => c.card)}
            value={card}
            onChange={(v) => {
              failure.edited("card", "subMerNo");
              setCard(v);
              const found = known.find((c) => c.card === v);
              if (found) setCurrency(found.currency);
            }}
            error={err("card", "subMerNo")}
            data-testid="card-card"
          />
          <Group grow align="flex-start">
            <TextInput
              label={t("cards.amount")}
              required
              inputMode="decimal"
              value={amount}
              onChange={(e) => {
                failure.edited("amount");
                setAmount(e.currentTarget.value);
              }}
              error={err("amount")}
              data-testid="card-amount"
            />
            <CurrencySelect
              label={t("cards.currency")}
              value={currency}
              onChange={(c) => {
                failure.edited("currency");
                setCurrency(c);
              }}
              error={err("currency")}
              testId="card-currency"
            />
          </Group>
          <TextInput
            label={t("cards.reference")}
            value={reference}
            readOnly
            description={t("payins.merOrderNoHint")}
          />
          <PurposeFields
            value={purpose}
            onChange={(p) => setDraft((d) => ({ ...d, purpose: p }))}
            err={err}
            testId="card-purpose"
          />
          {kind === "withdraw" && (
            <Text size="sm" c="dimmed">
              {t("cards.feeHint")}
            </Text>
          )}
          <FormError
            error={duplicateOf(failure.error) ? null : failure.error}
            testId="card-field-error"
          />
          <DuplicateGuard
            duplicate={dup.duplicate}
            sending={move.isPending}
            onConfirm={() => resend(true)}
          />
          {receipt || request.data ? (
            <Button
              w="fit-content"
              onClick={() => {
                move.reset();
                request.reset();
                dup.clear();
                setKept(undefined);
                renew();
                setAmount("");
              }}
              data-testid="card-next"
            >
              {t("cards.another")}
            </Button>
          ) : (
            <Button
              type="submit"
              w="fit-content"
              disabled={!reference || !!closed}
              data-testid="card-review"
            >
              {t(kind === "top_up" ? "cards.topUp" : "cards.withdraw")}
            </Button>
          )}
          {request.data && <RequestMade view={request.data} />}
          {receipt && (
            <ReceiptView
              receipt={receipt}
              onRetry={() => resend(false)}
              retrying={move.isPending}
              retryTestId="card-retry-same"
            >
              {receipt.fee !== null && (
                <Text size="sm" data-testid="card-fee">
                  {t("cards.fee", { fee: formatMoney(receipt.fee, currency, loc) })}
                </Text>
              )}
            </ReceiptView>
          )}
        </Stack>
      </form>
      <Modal
        opened={confirming}
        onClose={() => setConfirming(false)}
        title={t("cards.confirmTitle")}
        centered
      >
        <Stack data-testid="card-confirm">
          <LiveCue />
          <Text>
            {t(kind === "top_up" ? "cards.confirmTopUp" : "cards.confirmWithdraw", {
              amount: formatMoney(amount, currency, loc),
              card,
            })}
          </Text>
          <Group justify="space-between">
            <CopyCommand command={command} testId="card-command" />
            <Group>
              <Button variant="default" onClick={() => setConfirming(false)}>
                {t("common.cancel")}
              </Button>
              <Button
                color={asRequest ? "blue" : "red"}
                loading={move.isPending || request.isPending}
                onClick={() => {
                  if (asRequest) {
                    if (!request.isPending) {
                      request.mutate(form, { onSettled: () => setConfirming(false) });
                    }
                    return;
                  }
                  if (move.isPending) return;
                  move.mutate(
                    { form, allowDuplicate: false },
                    { onSettled: () => setConfirming(false) },
                  );
                }}
                data-testid="card-send"
              >
                {t(asRequest ? "payouts.requestApproval" : "common.confirm")}
              </Button>
            </Group>
          </Group>
        </Stack>
      </Modal>
    </Card>
  );
}

export function CardsPage() {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const [kind, setKind] = useState<CardMove>("top_up");
  const [drafts, setDrafts] = useState<Record<CardMove, CardDraft>>({
    top_up: BLANK,
    withdraw: BLANK,
  });
  const setDraft: Dispatch<SetStateAction<CardDraft>> = (next) =>
    setDrafts((d) => ({ ...d, [kind]: typeof next === "function" ? next(d[kind]) : next }));
  const cards = useCards();
  const ops = useCardOperations();
  const [selected, setSelected] = useState<string | null>(null);
  const history = (ops.data ?? []).filter((o) => !selected || o.card === selected);
  return (
    <Stack data-testid="screen-cards">
      <GatewayNotice instead={t("cards.requestInstead")} />
      <Title order={2}>{t("cards.title")}</Title>
      <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="lg">
        <Stack>
          <SegmentedControl
            value={kind}
            onChange={(v) => setKind(v as CardMove)}
            data={[
              { value: "top_up", label: t("cards.topUp") },
              { value: "withdraw", label: t("cards.withdraw") },
            ]}
            data-testid="card-kind"
          />
          <MoveForm key={kind} kind={kind} draft={[drafts[kind], setDraft]} />
        </Stack>
        <Card withBorder>
          <Title order={4} mb="xs">
            {t("cards.known")}
          </Title>
          {cards.error && <ErrorAlert error={cards.error} />}
          <Table highlightOnHover data-testid="cards-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t("cards.card")}</Table.Th>
                <Table.Th>{t("cards.holder")}</Table.Th>
                <Table.Th>{t("cards.balance")}</Table.Th>
                <Table.Th>{t("cards.operations")}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {(cards.data ?? []).map((c) => (
                <Table.Tr
                  key={c.card}
                  data-card={c.card}
                  bg={selected === c.card ? "var(--mantine-color-default-hover)" : undefined}
                >
                  <Table.Td>
                    <UnstyledButton
                      fz="sm"
                      td="underline"
                      aria-pressed={selected === c.card}
                      onClick={() => setSelected(selected === c.card ? null : c.card)}
                    >
                      {c.card}
                    </UnstyledButton>
                  </Table.Td>
                  <Table.Td>{c.holder ?? "—"}</Table.Td>
                  <Table.Td data-testid={`card-balance-${c.card}`} data-balance={c.balance ?? ""}>
                    {c.balance !== null
                      ? formatMoney(c.balance, c.currency, loc)
                      : t("cards.balanceUnknown")}
                  </Table.Td>
                  <Table.Td>{c.operations}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Card>
      </SimpleGrid>
      <Card withBorder>
        <Group justify="space-between" mb="xs">
          <Title order={4}>
            {selected ? t("cards.historyOf", { card: selected }) : t("cards.history")}
          </Title>
          {selected && (
            <Button size="xs" variant="default" onClick={() => setSelected(null)}>
              {t("cards.allCards")}
            </Button>
          )}
        </Group>
        {ops.error && <ErrorAlert error={ops.error} />}
        <Table data-testid="card-history">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t("cards.when")}</Table.Th>
              <Table.Th>{t("cards.kind")}</Table.Th>
              <Table.Th>{t("cards.card")}</Table.Th>
              <Table.Th>{t("cards.amount")}</Table.Th>
              <Table.Th>{t("cards.feeColumn")}</Table.Th>
              <Table.Th>{t("cards.outcome")}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {history.map((o) => (
              <Table.Tr key={`${o.at}-${o.journalId ?? o.card}`}>
                <Table.Td>{formatDateTimeShort(o.at, loc)}</Table.Td>
                <Table.Td>{t(o.kind === "withdraw" ? "cards.withdraw" : "cards.topUp")}</Table.Td>
                <Table.Td>{o.card}</Table.Td>
                <Table.Td>{formatMoney(o.amount, o.currency, loc)}</Table.Td>
                <Table.Td>{o.fee ? formatMoney(o.fee, o.currency, loc) : ""}</Table.Td>
                <Table.Td>
                  <Badge variant="light">
                    {t(`journal.${o.outcome}`, { defaultValue: o.outcome })}
                  </Badge>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Card>
    </Stack>
  );
}
