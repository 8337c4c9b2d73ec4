import { Button, Card, Drawer, Group, Loader, Stack, Text, TextInput, Title } from "@mantine/core";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { CopyCommand } from "../../components/CopyCommand";
import { ErrorAlert } from "../../components/ErrorAlert";
import { type CliCommand, resendCommand } from "../../lib/cliCommand";
import { useFieldErrors } from "../../lib/fieldErrors";
import type { Entry, Receipt } from "../../lib/types";
import { LiveCue } from "../app/LiveCue";
import { useProfileName } from "../app/queries";
import { useEntryNow, useJournalEntry, useResendPayin, useResendPayout } from "./queries";
import { ReceiptView } from "./ReceiptView";

/// The field of a payout's request the journal keeps masked, typed again to resend it.
export function accountFieldOf(e: Entry): "clabe" | "cardNo" | null {
  if (e.operation === "v2.payout") return "clabe";
  if (e.operation === "v1.payout") return "cardNo";
  return null;
}

/// Sends a payout known not sent again under its own number: the account is typed again
/// (the journal keeps it masked); the core checks it is the entry's before anything
/// leaves.
function ResendPayout({ entry, field }: { entry: Entry; field: "clabe" | "cardNo" }) {
  const { t } = useTranslation();
  const [account, setAccount] = useState("");
  const resend = useResendPayout();
  const failure = useFieldErrors(resend.error);
  const masked =
    typeof (entry.request as Record<string, unknown>)?.[field] === "string"
      ? String((entry.request as Record<string, unknown>)[field])
      : "";
  const accountError = failure.err(field);
  const profile = useProfileName();
  return (
    <Card withBorder padding="sm" data-testid="resend-form">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (!resend.isPending) resend.mutate({ id: entry.id, account });
        }}
      >
        <Stack gap="xs">
          <Title order={4} size="h5">
            {t("entry.resendTitle")}
          </Title>
          <Text size="sm">{t("entry.resendIntro", { masked })}</Text>
          <TextInput
            label={t(field === "clabe" ? "entry.accountClabe" : "entry.accountCardNo")}
            value={account}
            autoFocus
            autoComplete="off"
            onChange={(e) => {
              failure.edited(field);
              setAccount(e.currentTarget.value);
            }}
            error={accountError}
            data-testid="resend-account"
          />
          <ResendFooter
            merOrderNo={entry.merOrderNo}
            command={resendOf(profile, entry.id, true)}
            pending={resend.isPending}
            error={accountError ? null : resend.error}
            status={resend.data?.entry.status}
          />
        </Stack>
      </form>
    </Card>
  );
}

/// The end of a resend form, the same for payouts and payins: the LIVE cue, the send
/// button (busy while sending), a failure not shown on a field, and the outcome.
function ResendFooter({
  merOrderNo,
  command,
  pending,
  error,
  status,
}: {
  merOrderNo: string;
  /// The same resend as a `paydesk` command line (the account never in it).
  command: CliCommand | null;
  pending: boolean;
  error: unknown;
  status: string | undefined;
}) {
  const { t } = useTranslation();
  return (
    <>
      <LiveCue />
      <Group>
        <Button
          type="submit"
          color="red"
          w="fit-content"
          loading={pending}
          data-testid="resend-send"
        >
          {t("entry.resend", { merOrderNo })}
        </Button>
        <CopyCommand command={command} testId="resend-command" />
      </Group>
      {error ? <ErrorAlert error={error} /> : null}
      {status ? (
        <Text size="sm" data-testid="resend-result" data-status={status}>
          {t(`journal.${status}`)}
        </Text>
      ) : null}
    </>
  );
}

/// `paydesk journal resend ID` once the profile is known.
function resendOf(profile: string | undefined, id: number, payout: boolean): CliCommand | null {
  return profile ? resendCommand({ profile, id, payout }) : null;
}

/// Whether an entry is a payin (sent again from here; a PIX payer's CPF typed again).
export function isPayin(e: Entry): boolean {
  return (
    e.operation === "v2.payment" ||
    e.operation === "v1.payment" ||
    e.operation === "v1.payment.vn_bank"
  );
}

/// Sends a payin known not sent again under its own number: its request is the journal's;
/// a PIX payer's CPF, kept masked, is typed again and must be the payer's own.
function ResendPayin({ entry }: { entry: Entry }) {
  const { t } = useTranslation();
  const [taxId, setTaxId] = useState("");
  const resend = useResendPayin();
  const failure = useFieldErrors(resend.error);
  const request = entry.request as Record<string, unknown> | null;
  const masked =
    typeof request?.socialSecurityNumber === "string" ? String(request.socialSecurityNumber) : null;
  const taxIdError = failure.err("socialSecurityNumber");
  const profile = useProfileName();
  return (
    <Card withBorder padding="sm" data-testid="resend-form">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (!resend.isPending)
            resend.mutate({ id: entry.id, taxId: masked === null ? null : taxId });
        }}
      >
        <Stack gap="xs">
          <Title order={4} size="h5">
            {t("entry.resendTitle")}
          </Title>
          <Text size="sm">
            {masked === null ? t("entry.resendPayinIntro") : t("entry.resendPixIntro", { masked })}
          </Text>
          {masked === null ? null : (
            <TextInput
              label={t("entry.taxId")}
              value={taxId}
              autoFocus
              autoComplete="off"
              onChange={(e) => {
                failure.edited("socialSecurityNumber");
                setTaxId(e.currentTarget.value);
              }}
              error={taxIdError}
              data-testid="resend-tax-id"
            />
          )}
          <ResendFooter
            merOrderNo={entry.merOrderNo}
            command={resendOf(profile, entry.id, false)}
            pending={resend.isPending}
            error={taxIdError ? null : resend.error}
            status={resend.data?.entry.status}
          />
        </Stack>
      </form>
    </Card>
  );
}

function EntryBody({ id }: { id: number }) {
  const loaded = useJournalEntry(id);
  const entry = useEntryNow(loaded.data ?? null);
  if (loaded.error) return <ErrorAlert error={loaded.error} />;
  if (!entry) return <Loader size="sm" />;
  const receipt: Receipt = {
    entry,
    replayed: false,
    tradeNo: entry.tradeNo,
    payUrl: null,
    bank: null,
    fee: null,
    message: null,
  };
  const field = accountFieldOf(entry);
  return (
    <Stack data-testid="entry-drawer-body" data-status={entry.status}>
      <ReceiptView receipt={receipt} />
      {entry.status === "pending" && field ? (
        <ResendPayout key={entry.id} entry={entry} field={field} />
      ) : null}
      {entry.status === "pending" && isPayin(entry) ? (
        <ResendPayin key={entry.id} entry={entry} />
      ) : null}
    </Stack>
  );
}

/// A journal entry opened from a list (the Dashboard, a screen's recent operations): its
/// receipt as it stands now, and what resolves it.
export function EntryDrawer({ entry, onClose }: { entry: Entry | null; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <Drawer
      opened={entry !== null}
      onClose={onClose}
      position="right"
      size="lg"
      title={entry ? t("entry.title", { merOrderNo: entry.merOrderNo }) : ""}
      data-testid="entry-drawer"
    >
      {entry ? <EntryBody id={entry.id} /> : null}
    </Drawer>
  );
}
