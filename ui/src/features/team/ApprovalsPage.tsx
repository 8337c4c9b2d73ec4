import {
  Alert,
  Badge,
  Button,
  Drawer,
  Group,
  Modal,
  SegmentedControl,
  Stack,
  Table,
  Text,
  Textarea,
  Title,
  Tooltip,
} from "@mantine/core";
import { IconInfoCircle } from "@tabler/icons-react";
import type { TFunction } from "i18next";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";
import { ErrorAlert, FormError, toastOk } from "../../components/ErrorAlert";
import { locale } from "../../i18n";
import { formatDateTime, formatDateTimeShort, formatMoney, timeZoneLabel } from "../../lib/format";
import { fieldError } from "../../lib/ipc";
import type { RequestState, RequestView, RowState, TeamRule, TeamStatus } from "../../lib/types";
import { purposeWords } from "../money/PurposeFields";
import { useApprove, useReject, useRequest, useRequests, useTeamStatus } from "./queries";

const FILTERS: Record<string, readonly RequestState[]> = {
  waiting: ["waiting"],
  approved: ["approved", "executing"],
  done: ["done"],
  rejected: ["rejected"],
  all: [],
};

const STATE_COLOR: Record<RequestState, string> = {
  waiting: "yellow",
  approved: "blue",
  executing: "indigo",
  done: "teal",
  rejected: "red",
};

const ROW_COLOR: Record<RowState, string> = {
  waiting: "gray",
  accepted: "teal",
  rejected: "red",
  unknown: "orange",
  failed: "red",
};

/// The rule that asks a request's approvals, in words.
export function ruleText(t: TFunction, rule: TeamRule | null, view: RequestView): string {
  const needed = view.request.approvalsNeeded;
  if (needed === 0) return t("approvals.noRule");
  if (!rule) return t("approvals.ruleChanged", { count: needed });
  return t("approvals.rule", {
    operation:
      rule.operation === "*"
        ? t("approvals.anyOperation")
        : t(`approvals.op.${rule.operation}`, { defaultValue: rule.operation }),
    currency: rule.currency === "*" ? t("approvals.anyCurrency") : rule.currency,
    above: formatMoney(rule.above, rule.currency === "*" ? "" : rule.currency, locale()),
    count: rule.approvals,
  });
}

/// Who or what a request pays: a single payout's masked beneficiary (its summary reads
/// "<amount> <currency> to <beneficiary>", and the amount has a column of its own), or a
/// bulk file's summary as it is.
export function beneficiaryOf(summary: string): string {
  const m = /^\S+ [A-Z]{3} to (.+)$/.exec(summary);
  return m?.[1] ?? summary;
}

/// Why the member may not approve or reject a request, if they may not.
function closedBecause(t: TFunction, team: TeamStatus, v: RequestView): string | undefined {
  if (v.request.state !== "waiting") return t("approvals.notWaiting");
  if (!team.roles.includes("approver")) {
    return t("approvals.notApprover", {
      roles: team.roles.map((r) => t(`team.role.${r}`)).join(", "),
    });
  }
  if (v.mine) return t("approvals.ownRequest");
  if (v.decidedByMe) return t("approvals.decided");
  return undefined;
}

function Decide({
  team,
  view,
  onReject,
}: {
  team: TeamStatus;
  view: RequestView;
  onReject: (v: RequestView) => void;
}) {
  const { t } = useTranslation();
  const approve = useApprove();
  const closed = closedBecause(t, team, view);
  const id = view.request.id;
  return (
    <Stack gap={4}>
      <Group gap="xs" wrap="nowrap">
        <Tooltip label={closed} disabled={!closed} multiline w={260}>
          <Button
            size="xs"
            color="teal"
            disabled={!!closed}
            loading={approve.isPending}
            onClick={(e) => {
              e.stopPropagation();
              approve.mutate(id, {
                onSuccess: () => toastOk(t("approvals.approved", { id })),
              });
            }}
            data-testid={`approve-${id}`}
          >
            {t("approvals.approve")}
          </Button>
        </Tooltip>
        <Tooltip label={closed} disabled={!closed} multiline w={260}>
          <Button
            size="xs"
            variant="light"
            color="red"
            disabled={!!closed}
            onClick={(e) => {
              e.stopPropagation();
              onReject(view);
            }}
            data-testid={`reject-${id}`}
          >
            {t("approvals.reject")}
          </Button>
        </Tooltip>
      </Group>
      {closed && view.request.state === "waiting" ? (
        <Text size="xs" c="dimmed" data-testid={`closed-${id}`}>
          {closed}
        </Text>
      ) : null}
      {approve.error ? <ErrorAlert error={approve.error} /> : null}
    </Stack>
  );
}

function RejectModal({ view, onClose }: { view: RequestView | null; onClose: () => void }) {
  const { t } = useTranslation();
  const reject = useReject();
  const [reason, setReason] = useState("");
  const close = () => {
    reject.reset();
    setReason("");
    onClose();
  };
  return (
    <Modal
      opened={view !== null}
      onClose={close}
      title={t("approvals.rejectTitle", { id: view?.request.id })}
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (!view || reject.isPending) return;
          reject.mutate(
            { id: view.request.id, reason },
            {
              onSuccess: () => {
                toastOk(t("approvals.rejected", { id: view.request.id }));
                close();
              },
            },
          );
        }}
      >
        <Stack>
          <Text size="sm">{view?.request.summary}</Text>
          <Textarea
            label={t("approvals.reason")}
            description={t("approvals.reasonHint")}
            required
            minRows={3}
            value={reason}
            onChange={(e) => setReason(e.currentTarget.value)}
            error={fieldError(reject.error, "reason")}
            data-autofocus
            data-testid="reject-reason"
          />
          {fieldError(reject.error, "reason") ? null : (
            <FormError error={reject.error} testId="reject-error" />
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              {t("approvals.cancel")}
            </Button>
            <Button
              type="submit"
              color="red"
              loading={reject.isPending}
              data-testid="reject-confirm"
            >
              {t("approvals.rejectConfirm")}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function RequestDrawer({ id, onClose }: { id: number | null; onClose: () => void }) {
  const { t } = useTranslation();
  const detail = useRequest(id);
  const lang = locale();
  const d = detail.data;
  const r = d?.view.request;
  return (
    <Drawer
      opened={id !== null}
      onClose={onClose}
      position="right"
      size="xl"
      title={t("approvals.requestTitle", { id })}
    >
      {detail.error ? <ErrorAlert error={detail.error} /> : null}
      {d && r ? (
        <Stack data-testid="request-detail">
          <Table withRowBorders={false} verticalSpacing={2}>
            <Table.Tbody>
              {(
                [
                  [t("approvals.summary"), r.summary],
                  [t("approvals.amount"), formatMoney(r.total, r.currency, lang)],
                  [t("approvals.rows"), String(r.rowCount)],
                  [t("approvals.source"), r.source ?? t("approvals.notGiven")],
                  [t("approvals.maker"), r.maker],
                  [t("approvals.madeLabel"), formatDateTime(r.createdAt, lang)],
                  [t("approvals.ruleLabel"), ruleText(t, d.view.rule, d.view)],
                  [t("approvals.state"), t(`approvals.states.${r.state}`)],
                  [
                    t("approvals.signer"),
                    r.claimedBy ??
                      t(r.state === "rejected" ? "approvals.none" : "approvals.notYet"),
                  ],
                  [
                    t("approvals.outcome"),
                    r.outcome ?? t(r.state === "rejected" ? "approvals.none" : "approvals.notYet"),
                  ],
                ] as const
              ).map(([k, v]) => (
                <Table.Tr key={k}>
                  <Table.Th w={180}>{k}</Table.Th>
                  <Table.Td>{v}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          <Title order={4}>{t("approvals.decisions")}</Title>
          {r.decisions.length === 0 ? (
            <Text size="sm" c="dimmed">
              {t("approvals.noDecisions")}
            </Text>
          ) : (
            <Stack gap={4} data-testid="request-decisions">
              {r.decisions.map((x) => (
                <Text size="sm" key={`${x.member}-${x.decidedAt}`}>
                  {t(x.approve ? "approvals.decisionApprove" : "approvals.decisionReject", {
                    member: x.member,
                    time: formatDateTime(x.decidedAt, lang),
                    reason: x.reason ?? "",
                  })}
                </Text>
              ))}
            </Stack>
          )}
          <Title order={4}>{t("approvals.rowsTitle")}</Title>
          <Table striped data-testid="request-rows">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>#</Table.Th>
                <Table.Th>{t("approvals.merOrderNo")}</Table.Th>
                <Table.Th ta="right">{t("approvals.amount")}</Table.Th>
                <Table.Th>{t("approvals.beneficiary")}</Table.Th>
                <Table.Th>{t("purpose.label")}</Table.Th>
                <Table.Th>{t("approvals.rowState")}</Table.Th>
                <Table.Th>{t("approvals.tradeNo")}</Table.Th>
                <Table.Th>{t("approvals.message")}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {d.rows.map((row) => (
                <Table.Tr key={row.rowNo}>
                  <Table.Td>{row.rowNo}</Table.Td>
                  <Table.Td ff="monospace">{row.merOrderNo}</Table.Td>
                  <Table.Td ta="right">{formatMoney(row.amount, r.currency, lang)}</Table.Td>
                  <Table.Td>{row.beneficiary}</Table.Td>
                  <Table.Td data-testid={`row-purpose-${row.rowNo}`}>
                    {purposeWords(t, row.purpose)}
                  </Table.Td>
                  <Table.Td>
                    <Tooltip label={row.message} disabled={!row.message} multiline w={300}>
                      <Badge color={ROW_COLOR[row.state]} variant="light">
                        {t(`approvals.rowStates.${row.state}`)}
                      </Badge>
                    </Tooltip>
                  </Table.Td>
                  <Table.Td ff="monospace" data-testid={`row-trade-${row.rowNo}`}>
                    {row.tradeNo ?? "—"}
                  </Table.Td>
                  <Table.Td>
                    <Text
                      size="sm"
                      style={{ wordBreak: "break-all" }}
                      data-testid={`row-message-${row.rowNo}`}
                    >
                      {row.message ?? "—"}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Stack>
      ) : null}
    </Drawer>
  );
}

export function ApprovalsPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const team = useTeamStatus();
  const [filter, setFilter] = useState("waiting");
  const states = FILTERS[filter] ?? [];
  const requests = useRequests(states, !!team.data);
  const [rejecting, setRejecting] = useState<RequestView | null>(null);
  const [open, setOpen] = useState<number | null>(null);
  const lang = locale();

  if (team.data === null) {
    return (
      <Stack data-testid="screen-approvals">
        <Title order={2}>{t("approvals.title")}</Title>
        <Alert icon={<IconInfoCircle size={18} />} data-testid="approvals-single-desk">
          {t("approvals.singleDesk")}
        </Alert>
        <Group>
          <Button variant="light" onClick={() => navigate("/settings")}>
            {t("app.openSettings")}
          </Button>
        </Group>
      </Stack>
    );
  }
  const member = team.data;
  const rows = requests.data ?? [];
  return (
    <Stack data-testid="screen-approvals">
      <Group justify="space-between">
        <Title order={2}>{t("approvals.title")}</Title>
        <SegmentedControl
          value={filter}
          onChange={setFilter}
          data={Object.keys(FILTERS).map((k) => ({ value: k, label: t(`approvals.filter.${k}`) }))}
          data-testid="approvals-filter"
        />
      </Group>
      <Text size="sm" c="dimmed">
        {t("approvals.intro")}
      </Text>
      {team.error ? <ErrorAlert error={team.error} /> : null}
      {requests.error ? <ErrorAlert error={requests.error} /> : null}
      {member && requests.isSuccess && rows.length === 0 ? (
        <Text c="dimmed" data-testid="approvals-empty">
          {t(`approvals.empty.${filter}`)}
        </Text>
      ) : null}
      {member && rows.length > 0 ? (
        <Table.ScrollContainer minWidth={900}>
          <Table highlightOnHover data-testid="approvals-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>#</Table.Th>
                <Table.Th>{t("approvals.madeAt", { zone: timeZoneLabel() })}</Table.Th>
                <Table.Th>{t("approvals.maker")}</Table.Th>
                <Table.Th ta="right">{t("approvals.amount")}</Table.Th>
                <Table.Th>{t("approvals.beneficiary")}</Table.Th>
                <Table.Th>{t("approvals.ruleLabel")}</Table.Th>
                <Table.Th>{t("approvals.approvals")}</Table.Th>
                <Table.Th>{t("approvals.state")}</Table.Th>
                <Table.Th>{t("approvals.actions")}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((v) => {
                const r = v.request;
                return (
                  <Table.Tr
                    key={r.id}
                    onClick={() => setOpen(r.id)}
                    style={{ cursor: "pointer" }}
                    data-testid={`request-${r.id}`}
                    data-state={r.state}
                  >
                    <Table.Td>
                      <Button
                        variant="subtle"
                        size="compact-sm"
                        onClick={(e) => {
                          e.stopPropagation();
                          setOpen(r.id);
                        }}
                        aria-label={t("approvals.openRequest", { id: r.id })}
                        data-testid={`open-${r.id}`}
                      >
                        {r.id}
                      </Button>
                    </Table.Td>
                    <Table.Td>{formatDateTimeShort(r.createdAt, lang)}</Table.Td>
                    <Table.Td>{v.mine ? t("approvals.you", { name: r.maker }) : r.maker}</Table.Td>
                    <Table.Td ta="right" data-testid={`amount-${r.id}`}>
                      {formatMoney(r.total, r.currency, lang)}
                      {r.rowCount > 1 ? (
                        <Text size="xs" c="dimmed">
                          {t("approvals.batch", { count: r.rowCount })}
                        </Text>
                      ) : null}
                    </Table.Td>
                    <Table.Td data-testid={`summary-${r.id}`}>
                      <Text size="sm" lineClamp={2}>
                        {beneficiaryOf(r.summary)}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm" data-testid={`rule-${r.id}`}>
                        {ruleText(t, v.rule, v)}
                      </Text>
                    </Table.Td>
                    <Table.Td data-testid={`approvals-${r.id}`} style={{ whiteSpace: "nowrap" }}>
                      {t("approvals.count", { done: v.approvals, needed: r.approvalsNeeded })}
                    </Table.Td>
                    <Table.Td>
                      <Badge
                        color={STATE_COLOR[r.state]}
                        variant="light"
                        data-testid={`state-${r.id}`}
                      >
                        {t(`approvals.states.${r.state}`)}
                      </Badge>
                    </Table.Td>
                    <Table.Td>
                      {r.state === "waiting" ? (
                        <Decide team={member} view={v} onReject={setRejecting} />
                      ) : (
                        <Text size="xs" c="dimmed" lineClamp={2}>
                          {r.outcome ?? "—"}
                        </Text>
                      )}
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      ) : null}
      <RejectModal view={rejecting} onClose={() => setRejecting(null)} />
      <RequestDrawer id={open} onClose={() => setOpen(null)} />
    </Stack>
  );
}
