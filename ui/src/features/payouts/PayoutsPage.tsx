import {
  Alert,
  Badge,
  Button,
  Card,
  Checkbox,
  Group,
  Modal,
  Progress,
  SimpleGrid,
  Stack,
  Table,
  Tabs,
  Text,
  TextInput,
  Title,
  Tooltip,
} from "@mantine/core";
import { IconFileSpreadsheet, IconFolderOpen } from "@tabler/icons-react";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { DuplicateGuard, duplicateOf, useDuplicate } from "../../components/DuplicateGuard";
import { ErrorAlert, FormError, toastError } from "../../components/ErrorAlert";
import { JournalBadge, ReceiptView } from "../../components/ReceiptView";
import { locale } from "../../i18n";
import { formatCount, formatDateTimeShort, formatMoney } from "../../lib/format";
import { fieldError } from "../../lib/ipc";
import type {
  BulkPlan,
  BulkProgress,
  CurrencyTotal,
  PayoutForm,
  PayoutKind,
  PayoutPreview,
  Receipt,
  RowAction,
} from "../../lib/types";
import { useAppStatus } from "../app/queries";
import { useEntryNow, useJournalList, useOrderNo } from "../money/queries";
import {
  pickBulkFile,
  useBulkCheck,
  useBulkSend,
  useCreatePayout,
  useOpenBulkResult,
  usePayoutPreview,
} from "./queries";

const blank = (kind: PayoutKind): Omit<PayoutForm, "merOrderNo"> => ({
  kind,
  amount: "",
  currency: kind === "CLABE" ? "MXN" : "USD",
  clabe: "",
  cardNo: "",
  firstName: "",
  lastName: "",
  countryCode: "",
  email: "",
  mobile: "",
  ipAddress: "",
  notifyUrl: "",
});

function Confirm({
  preview,
  onConfirm,
  onCancel,
  sending,
}: {
  preview: PayoutPreview | null;
  onConfirm: () => void;
  onCancel: () => void;
  sending: boolean;
}) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  return (
    <Modal opened={!!preview} onClose={onCancel} title={t("payouts.confirmTitle")} centered>
      {preview && (
        <Stack data-testid="payout-confirm">
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
                <Table.Th>{t("payouts.merOrderNo")}</Table.Th>
                <Table.Td>{preview.merOrderNo}</Table.Td>
              </Table.Tr>
            </Table.Tbody>
          </Table>
          <Text size="sm" c="dimmed">
            {t("payouts.confirmHint")}
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={onCancel}>
              {t("common.cancel")}
            </Button>
            <Button color="red" loading={sending} onClick={onConfirm} data-testid="payout-send">
              {t("payouts.send")}
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}

export function SinglePayout({ kind }: { kind: PayoutKind }) {
  const { t } = useTranslation();
  const status = useAppStatus();
  const [orderNo, renew] = useOrderNo("PO");
  const [form, setForm] = useState(() => blank(kind));
  const [loseAnswer, setLoseAnswer] = useState(false);
  const dup = useDuplicate();
  const preview = usePayoutPreview();
  const send = useCreatePayout(dup.settle);
  const set = <K extends keyof typeof form>(k: K, v: (typeof form)[K]) =>
    setForm((f) => ({ ...f, [k]: v }));
  const err = (...f: string[]) => fieldError(preview.error ?? send.error, ...f);
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
  const formError = preview.error ?? (duplicateOf(send.error) ? null : send.error);
  return (
    <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="lg">
      <Card withBorder>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (!orderNo || send.isPending || receipt) return;
            send.reset();
            dup.clear();
            preview.mutate(full);
          }}
        >
          <Stack gap="sm">
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
                error={err("sourceAmount")}
                data-testid="payout-amount"
              />
              <TextInput
                label={t("payouts.currency")}
                required
                maxLength={3}
                value={form.currency}
                onChange={(e) => set("currency", e.currentTarget.value.toUpperCase())}
                error={err("currencyCode")}
                data-testid="payout-currency"
              />
            </Group>
            {kind === "CLABE" ? (
              <TextInput
                label={t("payouts.clabe")}
                required
                description={t("payouts.clabeHint")}
                value={form.clabe}
                onChange={(e) => set("clabe", e.currentTarget.value)}
                error={err("clabe")}
                data-testid="payout-clabe"
              />
            ) : (
              <>
                <TextInput
                  label={t("payouts.cardNo")}
                  required
                  autoComplete="off"
                  value={form.cardNo}
                  onChange={(e) => set("cardNo", e.currentTarget.value)}
                  error={err("cardNo")}
                  data-testid="payout-card-no"
                />
                <Group grow align="flex-start">
                  <TextInput
                    label={t("payouts.firstName")}
                    required
                    value={form.firstName}
                    onChange={(e) => set("firstName", e.currentTarget.value)}
                    error={err("benFirstName")}
                    data-testid="payout-first-name"
                  />
                  <TextInput
                    label={t("payouts.lastName")}
                    required
                    value={form.lastName}
                    onChange={(e) => set("lastName", e.currentTarget.value)}
                    error={err("benLastName")}
                    data-testid="payout-last-name"
                  />
                </Group>
                <Group grow align="flex-start">
                  <TextInput
                    label={t("payouts.country")}
                    maxLength={2}
                    value={form.countryCode}
                    onChange={(e) => set("countryCode", e.currentTarget.value.toUpperCase())}
                    error={err("countryCode")}
                  />
                  <TextInput
                    label={t("payouts.email")}
                    value={form.email}
                    onChange={(e) => set("email", e.currentTarget.value)}
                    error={err("email")}
                  />
                </Group>
              </>
            )}
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
            />
            <Group>
              {receipt ? (
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
                      preview.reset();
                      dup.clear();
                      setKept(undefined);
                      renew();
                      if (!refused) setForm(blank(kind));
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
                  disabled={!orderNo || send.isPending}
                  data-testid="payout-review"
                >
                  {t("payouts.review")}
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
      <Confirm
        preview={preview.data && !receipt && !send.error && !dup.duplicate ? preview.data : null}
        sending={send.isPending}
        onCancel={() => preview.reset()}
        onConfirm={() => {
          if (!send.isPending) send.mutate({ form: full, loseAnswer, allowDuplicate: false });
        }}
      />
    </SimpleGrid>
  );
}

const ACTION_COLORS: Record<RowAction, string> = {
  send: "blue",
  paid: "teal",
  look_up: "orange",
  held: "yellow",
};

const RESULT_COLORS: Record<string, string> = {
  accepted: "teal",
  rejected: "red",
  unknown: "orange",
  sending: "orange",
  pending: "gray",
  held: "yellow",
  invalid: "red",
};

function ResultBadge({ status }: { status: string }) {
  const { t } = useTranslation();
  return (
    <Badge
      color={RESULT_COLORS[status] ?? "gray"}
      variant="light"
      data-testid="bulk-row-status"
      data-status={status}
    >
      {t(`payouts.rowStatus.${status}`, { defaultValue: status })}
    </Badge>
  );
}

/// Per currency: how many, how much, and the fees (an estimate from an earlier payout,
/// or said to be unknown: the gateway states no fee before a payout).
function Totals({ totals, testId }: { totals: CurrencyTotal[]; testId: string }) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  if (totals.length === 0) return null;
  return (
    <Table withRowBorders={false} verticalSpacing={2} data-testid={testId}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>{t("payouts.currency")}</Table.Th>
          <Table.Th>{t("payouts.count")}</Table.Th>
          <Table.Th>{t("payouts.total")}</Table.Th>
          <Table.Th>{t("payouts.fees")}</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {totals.map((x) => (
          <Table.Tr key={x.currency} data-currency={x.currency} data-amount={x.amount}>
            <Table.Td>{x.currency}</Table.Td>
            <Table.Td>{formatCount(x.count, loc)}</Table.Td>
            <Table.Td>{formatMoney(x.amount, x.currency, loc)}</Table.Td>
            <Table.Td data-fee={x.feeEstimate ?? ""}>
              {x.feeEstimate !== null ? (
                <Stack gap={0}>
                  <Text size="sm">
                    {t("payouts.feeEstimate", { fee: formatMoney(x.feeEstimate, x.currency, loc) })}
                  </Text>
                  {x.feeBasis && (
                    <Text size="xs" c="dimmed">
                      {x.feeBasis}
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
        ))}
      </Table.Tbody>
    </Table>
  );
}

/// The last word before a bulk run: what will be sent, how much, what it may cost, and
/// the held rows, which go only when ticked (unticked each time it opens).
function BulkConfirm({
  plan,
  opened,
  sending,
  onCancel,
  onConfirm,
}: {
  plan: BulkPlan;
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
      <BulkConfirmBody plan={plan} sending={sending} onCancel={onCancel} onConfirm={onConfirm} />
    </Modal>
  );
}

function BulkConfirmBody({
  plan,
  sending,
  onCancel,
  onConfirm,
}: {
  plan: BulkPlan;
  sending: boolean;
  onCancel: () => void;
  onConfirm: (includeHeld: boolean, expected: string) => void;
}) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const [includeHeld, setIncludeHeld] = useState(false);
  const count = plan.toSend + (includeHeld ? plan.held : 0);
  const held = plan.rows.filter((r) => r.action === "held");
  return (
    <Stack data-testid="bulk-confirm" data-to-send={plan.toSend} data-held={plan.held}>
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
                        <Text size="xs">{r.reason}</Text>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
            <Checkbox
              label={t("payouts.bulkIncludeHeld", { count: plan.held })}
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
      <Group justify="flex-end">
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
    </Stack>
  );
}

export function Bulk() {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const [path, setPath] = useState("");
  const [progress, setProgress] = useState<BulkProgress | null>(null);
  const [confirming, setConfirming] = useState(false);
  const check = useBulkCheck();
  const send = useBulkSend(setProgress);
  const openResult = useOpenBulkResult((e) => toastError(t, e));
  const c = check.data;
  const plan = c?.plan;
  const out = send.data;
  const count = (s: string) => out?.results.filter((r) => r.status === s).length ?? 0;
  const results = new Map((out?.results ?? []).map((r) => [r.line, r]));
  const startOver = () => {
    check.reset();
    send.reset();
    setConfirming(false);
  };
  return (
    <Stack>
      <Card withBorder>
        <Stack gap="sm">
          <Text size="sm" c="dimmed">
            {t("payouts.bulkIntro")}
          </Text>
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
                    check.mutate(first);
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
                check.mutate(path);
              }}
              data-testid="bulk-check"
            >
              {t("payouts.bulkCheck")}
            </Button>
          </Group>
          {check.error && !fieldError(check.error, "path", "file") && (
            <ErrorAlert error={check.error} />
          )}
        </Stack>
      </Card>
      {c && plan && (
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
              disabled={(plan.toSend === 0 && plan.held === 0) || !!out}
              loading={send.isPending}
              onClick={() => setConfirming(true)}
              data-testid="bulk-send"
            >
              {t("payouts.bulkSend", { count: plan.toSend })}
            </Button>
          </Group>
          {send.isPending && (
            <Progress
              value={progress && progress.total > 0 ? (100 * progress.done) / progress.total : 0}
              animated
              aria-label={t("payouts.bulkProgress")}
              mb="xs"
              data-testid="bulk-progress"
            />
          )}
          <Totals totals={plan.totals} testId="bulk-totals" />
          {plan.errors.length > 0 && (
            <Alert color="red" variant="light" my="xs" title={t("payouts.bulkErrors")}>
              <Stack gap={2} data-testid="bulk-errors">
                {plan.errors.map((e) => (
                  <Text size="sm" key={`${e.line}-${e.field}`}>
                    {t("payouts.bulkError", { line: e.line, field: e.field, rule: e.rule })}
                  </Text>
                ))}
              </Stack>
            </Alert>
          )}
          <Table.ScrollContainer minWidth={900} mah={420}>
            <Table striped stickyHeader data-testid="bulk-rows">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t("payouts.line")}</Table.Th>
                  <Table.Th>{t("payouts.kind")}</Table.Th>
                  <Table.Th>{t("payouts.amount")}</Table.Th>
                  <Table.Th>{t("payouts.account")}</Table.Th>
                  <Table.Th>{t("payouts.beneficiary")}</Table.Th>
                  <Table.Th>{t("payouts.merOrderNo")}</Table.Th>
                  <Table.Th>{t("payouts.action")}</Table.Th>
                  {out && <Table.Th>{t("payouts.outcome")}</Table.Th>}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {plan.rows.map((r) => {
                  const res = results.get(r.line);
                  const no = res?.merOrderNo || r.merOrderNo;
                  return (
                    <Table.Tr
                      key={r.line}
                      data-line={r.line}
                      data-action={r.action}
                      data-mer-order-no={no}
                      data-outcome={res?.status ?? ""}
                    >
                      <Table.Td>{r.line}</Table.Td>
                      <Table.Td>{r.payout.kind}</Table.Td>
                      <Table.Td>{formatMoney(r.payout.amount, r.payout.currency, loc)}</Table.Td>
                      <Table.Td>{r.payout.account}</Table.Td>
                      <Table.Td>{r.payout.beneficiary || r.payout.bank}</Table.Td>
                      <Table.Td>{no}</Table.Td>
                      <Table.Td>
                        <Stack gap={2}>
                          <Badge
                            color={ACTION_COLORS[r.action]}
                            variant="light"
                            data-testid="bulk-row-action"
                          >
                            {t(`payouts.actions.${r.action}`)}
                          </Badge>
                          {r.reason && (
                            <Text size="xs" c="dimmed">
                              {r.reason}
                            </Text>
                          )}
                          {r.earlier && r.earlier !== no && (
                            <Text size="xs" c="dimmed">
                              {t("payouts.earlier", { merOrderNo: r.earlier })}
                            </Text>
                          )}
                        </Stack>
                      </Table.Td>
                      {out && (
                        <Table.Td>
                          {res && (
                            <Stack gap={2}>
                              <ResultBadge status={res.status} />
                              {res.tradeNo && (
                                <Text size="xs">
                                  {t("payouts.tradeNoIs", { tradeNo: res.tradeNo })}
                                </Text>
                              )}
                              {res.detail && (
                                <Text size="xs" c="dimmed">
                                  {res.detail}
                                </Text>
                              )}
                            </Stack>
                          )}
                        </Table.Td>
                      )}
                    </Table.Tr>
                  );
                })}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          <BulkConfirm
            plan={plan}
            opened={confirming}
            sending={send.isPending}
            onCancel={() => setConfirming(false)}
            onConfirm={(includeHeld, expected) => {
              if (send.isPending) return;
              setProgress(null);
              setConfirming(false);
              send.mutate({ path: c.path, includeHeld, expected });
            }}
          />
        </Card>
      )}
      {send.error && <ErrorAlert error={send.error} />}
      {out && (
        <Alert
          color="teal"
          variant="light"
          data-testid="bulk-result"
          data-accepted={count("accepted")}
          data-invalid={count("invalid")}
          data-held={count("held")}
          data-rejected={count("rejected")}
          data-unknown={count("unknown")}
          data-pending={count("pending")}
        >
          <Stack gap="xs">
            <Text size="sm">
              {t("payouts.bulkDone", {
                accepted: count("accepted"),
                rejected: count("rejected"),
                unknown: count("unknown"),
                pending: count("pending"),
                held: count("held"),
                invalid: count("invalid"),
                path: out.resultPath,
              })}
            </Text>
            <Button
              variant="default"
              w="fit-content"
              leftSection={<IconFileSpreadsheet size={16} />}
              loading={openResult.isPending}
              onClick={() => openResult.mutate(out.resultPath)}
              data-testid="bulk-open-result"
            >
              {t("payouts.bulkOpenResult")}
            </Button>
          </Stack>
        </Alert>
      )}
    </Stack>
  );
}

function Recent() {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const list = useJournalList(["v2.payout", "v1.payout"]);
  return (
    <Card withBorder>
      <Title order={4} mb="xs">
        {t("payouts.recent")}
      </Title>
      {list.error && <ErrorAlert error={list.error} />}
      <Table.ScrollContainer minWidth={600}>
        <Table data-testid="payout-journal">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t("payouts.when")}</Table.Th>
              <Table.Th>{t("payouts.status")}</Table.Th>
              <Table.Th>{t("payouts.summary")}</Table.Th>
              <Table.Th>{t("payouts.merOrderNo")}</Table.Th>
              <Table.Th>{t("receipt.tradeNo")}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {(list.data ?? []).map((e) => (
              <Table.Tr key={e.id} data-mer-order-no={e.merOrderNo}>
                <Table.Td>{formatDateTimeShort(e.updatedAt, loc)}</Table.Td>
                <Table.Td>
                  <JournalBadge status={e.status} />
                </Table.Td>
                <Table.Td>{e.summary}</Table.Td>
                <Table.Td>{e.merOrderNo}</Table.Td>
                <Table.Td>{e.tradeNo ?? ""}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Card>
  );
}

export function PayoutsPage() {
  const { t } = useTranslation();
  return (
    <Stack data-testid="screen-payouts">
      <Title order={2}>{t("payouts.title")}</Title>
      <Tabs defaultValue="card" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="card" data-testid="tab-card">
            {t("payouts.card")}
          </Tabs.Tab>
          <Tabs.Tab value="clabe" data-testid="tab-clabe">
            {t("payouts.clabeTab")}
          </Tabs.Tab>
          <Tabs.Tab value="bulk" data-testid="tab-bulk">
            {t("payouts.bulk")}
          </Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="card" pt="md">
          <SinglePayout kind="CARD" />
        </Tabs.Panel>
        <Tabs.Panel value="clabe" pt="md">
          <SinglePayout kind="CLABE" />
        </Tabs.Panel>
        <Tabs.Panel value="bulk" pt="md">
          <Bulk />
        </Tabs.Panel>
      </Tabs>
      <Recent />
    </Stack>
  );
}
