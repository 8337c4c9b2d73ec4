import {
  Alert,
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
} from "@mantine/core";
import { IconFolderOpen } from "@tabler/icons-react";
import { useMutation } from "@tanstack/react-query";
import { Channel } from "@tauri-apps/api/core";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { commands } from "../../bindings";
import { ErrorAlert, FormError, toastError } from "../../components/ErrorAlert";
import { JournalBadge, ReceiptView } from "../../components/ReceiptView";
import { locale } from "../../i18n";
import { formatCount, formatDateTimeShort, formatMoney } from "../../lib/format";
import { fieldError, unwrap } from "../../lib/ipc";
import type { BulkProgress, PayoutForm, PayoutKind, PayoutPreview } from "../../lib/types";
import { useAppStatus } from "../app/queries";
import { useJournalList, useMoneyChanged, useOrderNo } from "../money/queries";

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

function SinglePayout({ kind }: { kind: PayoutKind }) {
  const { t } = useTranslation();
  const status = useAppStatus();
  const [orderNo, renew] = useOrderNo("PO");
  const [form, setForm] = useState(() => blank(kind));
  const [loseAnswer, setLoseAnswer] = useState(false);
  const changed = useMoneyChanged();
  const preview = useMutation({ mutationFn: (f: PayoutForm) => unwrap(commands.payoutPreview(f)) });
  const send = useMutation({
    mutationFn: (f: PayoutForm) => unwrap(commands.payoutCreate(f, loseAnswer)),
    onSettled: changed,
  });
  const set = <K extends keyof typeof form>(k: K, v: (typeof form)[K]) =>
    setForm((f) => ({ ...f, [k]: v }));
  const err = (...f: string[]) => fieldError(preview.error ?? send.error, ...f);
  const full = { ...form, merOrderNo: orderNo };
  const receipt = send.data;
  return (
    <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="lg">
      <Card withBorder>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (orderNo) preview.mutate(full);
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
            <FormError error={preview.error ?? send.error} testId="payout-field-error" />
            <Group>
              {receipt ? (
                <Button
                  onClick={() => {
                    // A refused payout keeps what was typed, to correct it under a new
                    // order number.
                    const refused = receipt.entry.status === "rejected";
                    send.reset();
                    preview.reset();
                    renew();
                    if (!refused) setForm(blank(kind));
                    setLoseAnswer(false);
                  }}
                  data-testid="payout-next"
                >
                  {t("payouts.another")}
                </Button>
              ) : (
                <Button
                  type="submit"
                  loading={preview.isPending}
                  disabled={!orderNo}
                  data-testid="payout-review"
                >
                  {t("payouts.review")}
                </Button>
              )}
            </Group>
          </Stack>
        </form>
      </Card>
      <Stack>
        {receipt && (
          <Card withBorder>
            <Title order={4} mb="xs">
              {t("payouts.result")}
            </Title>
            <ReceiptView receipt={receipt} />
          </Card>
        )}
      </Stack>
      <Confirm
        preview={preview.data && !receipt && !send.error ? preview.data : null}
        sending={send.isPending}
        onCancel={() => preview.reset()}
        onConfirm={() => {
          if (!send.isPending) send.mutate(full);
        }}
      />
    </SimpleGrid>
  );
}

function Bulk() {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const [path, setPath] = useState("");
  const [progress, setProgress] = useState<BulkProgress | null>(null);
  const changed = useMoneyChanged();
  const check = useMutation({ mutationFn: (p: string) => unwrap(commands.bulkCheck(p)) });
  const send = useMutation({
    mutationFn: (p: string) => {
      const ch = new Channel<BulkProgress>();
      ch.onmessage = setProgress;
      return unwrap(commands.bulkSend(p, ch));
    },
    onSettled: changed,
  });
  const c = check.data;
  const out = send.data;
  const count = (s: string) => out?.results.filter((r) => r.status === s).length ?? 0;
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
                check.reset();
                send.reset();
              }}
              error={fieldError(check.error, "path", "file")}
              style={{ flex: 1 }}
              data-testid="bulk-path"
            />
            <Button
              variant="default"
              leftSection={<IconFolderOpen size={16} />}
              onClick={() =>
                unwrap(commands.filesPick("bulk"))
                  .then((paths) => {
                    const [first] = paths;
                    if (!first) return;
                    setPath(first);
                    send.reset();
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
              onClick={() => check.mutate(path)}
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
      {c && (
        <Card
          withBorder
          data-testid="bulk-preview"
          data-rows={c.rows.length}
          data-errors={c.errors.length}
        >
          <Group justify="space-between" mb="xs">
            <Text fw={500}>
              {t("payouts.bulkSummary", {
                ok: formatCount(c.rows.length, loc),
                bad: formatCount(c.errors.length, loc),
              })}
            </Text>
            <Button
              color="red"
              disabled={c.rows.length === 0 || !!out}
              loading={send.isPending}
              onClick={() => {
                setProgress(null);
                send.mutate(c.path);
              }}
              data-testid="bulk-send"
            >
              {t("payouts.bulkSend", { count: c.rows.length })}
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
          {c.errors.length > 0 && (
            <Alert color="red" variant="light" mb="xs" title={t("payouts.bulkErrors")}>
              <Stack gap={2} data-testid="bulk-errors">
                {c.errors.map((e) => (
                  <Text size="sm" key={`${e.line}-${e.field}`}>
                    {t("payouts.bulkError", { line: e.line, field: e.field, rule: e.rule })}
                  </Text>
                ))}
              </Stack>
            </Alert>
          )}
          <Table.ScrollContainer minWidth={600} mah={320}>
            <Table striped stickyHeader>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t("payouts.line")}</Table.Th>
                  <Table.Th>{t("payouts.kind")}</Table.Th>
                  <Table.Th>{t("payouts.amount")}</Table.Th>
                  <Table.Th>{t("payouts.account")}</Table.Th>
                  <Table.Th>{t("payouts.beneficiary")}</Table.Th>
                  <Table.Th>{t("payouts.merOrderNo")}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {c.rows.map((r) => (
                  <Table.Tr key={r.line}>
                    <Table.Td>{r.line}</Table.Td>
                    <Table.Td>{r.payout.kind}</Table.Td>
                    <Table.Td>{formatMoney(r.payout.amount, r.payout.currency, loc)}</Table.Td>
                    <Table.Td>{r.payout.account}</Table.Td>
                    <Table.Td>{r.payout.beneficiary || r.payout.bank}</Table.Td>
                    <Table.Td>{r.payout.merOrderNo}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
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
        >
          {t("payouts.bulkDone", {
            accepted: count("accepted"),
            rejected: count("rejected"),
            unknown: count("unknown"),
            pending: count("pending"),
            invalid: count("invalid"),
            path: out.resultPath,
          })}
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
