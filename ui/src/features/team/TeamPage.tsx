// The team screen: the members and their roles, the approval rules, and the signer's
// worker run from this window. What the member may change is shown from the roles the
// database reports; the database stays the authority and its refusals are shown as it
// said them.
import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  Modal,
  MultiSelect,
  NumberInput,
  PasswordInput,
  Progress,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  Tooltip,
} from "@mantine/core";
import { IconInfoCircle, IconPlayerPlay, IconPlayerStop } from "@tabler/icons-react";
import type { TFunction } from "i18next";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";
import { ErrorAlert, FormError, toastOk } from "../../components/ErrorAlert";
import { locale } from "../../i18n";
import { formatDateTimeShort, formatMoney } from "../../lib/format";
import { fieldError } from "../../lib/ipc";
import type {
  TeamMember,
  TeamRole,
  TeamRule,
  TeamStatus,
  WorkerSettings,
  WorkerStatus,
} from "../../lib/types";
import {
  useDefaultSet,
  useMemberAdd,
  useMemberPassword,
  useMemberRemove,
  useMemberRoles,
  useMembers,
  useRuleRemove,
  useRuleSet,
  useRules,
  useWorker,
  useWorkerStart,
  useWorkerStop,
} from "./adminQueries";
import { MemberLimitsCard } from "./MemberLimitsCard";
import { useRequest, useRequests, useSealKey, useTeamStatus, useTrustSealKey } from "./queries";
import { TeamChainAlert } from "./TeamChainAlert";

const ROLES: TeamRole[] = ["viewer", "support", "maker", "approver", "signer", "admin"];
const OPERATIONS = ["*", "payout", "payin", "top_up", "withdraw"] as const;

function rolesText(t: TFunction, roles: readonly TeamRole[]): string {
  return roles.length === 0
    ? t("teamAdmin.noRole")
    : roles.map((r) => t(`team.role.${r}`)).join(", ");
}

/// Why the member may not change members and rules, if they may not.
function notAdmin(t: TFunction, team: TeamStatus): string | undefined {
  return team.roles.includes("admin")
    ? undefined
    : t("teamAdmin.notAdmin", { roles: rolesText(t, team.roles) });
}

type Editing = { name: string; what: "roles" | "password" | "remove"; roles: TeamRole[] };

function MemberModal({ editing, onClose }: { editing: Editing | null; onClose: () => void }) {
  const { t } = useTranslation();
  const roles = useMemberRoles();
  const password = useMemberPassword();
  const remove = useMemberRemove();
  const [picked, setPicked] = useState<string[]>([]);
  const [secret, setSecret] = useState("");
  const [shown, setShown] = useState<Editing | null>(null);
  if (editing !== shown) {
    setShown(editing);
    setPicked(editing?.roles ?? []);
    setSecret("");
    roles.reset();
    password.reset();
    remove.reset();
  }
  const close = () => {
    setSecret("");
    onClose();
  };
  const name = editing?.name ?? "";
  const busy = roles.isPending || password.isPending || remove.isPending;
  const error = roles.error ?? password.error ?? remove.error;
  const submit = () => {
    if (!editing || busy) return;
    if (editing.what === "roles") {
      roles.mutate(
        { name, roles: picked as TeamRole[] },
        {
          onSuccess: (holds) => {
            toastOk(t("teamAdmin.rolesChanged", { name, holds }));
            close();
          },
        },
      );
    } else if (editing.what === "password") {
      password.mutate(
        { name, password: secret },
        {
          onSuccess: () => {
            toastOk(t("teamAdmin.passwordReset", { name }));
            close();
          },
        },
      );
    } else {
      remove.mutate(name, {
        onSuccess: () => {
          toastOk(t("teamAdmin.removed", { name }));
          close();
        },
      });
    }
  };
  return (
    <Modal
      opened={editing !== null}
      onClose={close}
      title={editing ? t(`teamAdmin.${editing.what}Title`, { name }) : ""}
      data-testid="member-modal"
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <Stack>
          {editing?.what === "roles" ? (
            <MultiSelect
              id="member-roles-select"
              label={t("teamAdmin.roles")}
              description={t("teamAdmin.rolesHint")}
              data={ROLES.map((r) => ({ value: r, label: t(`team.role.${r}`) }))}
              value={picked}
              onChange={setPicked}
              error={fieldError(roles.error, "role")}
              data-testid="member-roles-select"
            />
          ) : null}
          {editing?.what === "password" ? (
            <PasswordInput
              label={t("teamAdmin.newPassword")}
              description={t("teamAdmin.passwordHint")}
              value={secret}
              onChange={(e) => setSecret(e.currentTarget.value)}
              autoComplete="new-password"
              error={fieldError(password.error, "password")}
              data-autofocus
              data-testid="member-password-input"
            />
          ) : null}
          {editing?.what === "remove" ? (
            <Text size="sm">{t("teamAdmin.removeBody", { name })}</Text>
          ) : null}
          <FormError error={error} testId="member-modal-error" />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              {t("common.cancel")}
            </Button>
            <Button
              type="submit"
              color={editing?.what === "remove" ? "red" : undefined}
              loading={busy}
              data-testid="member-modal-confirm"
            >
              {editing ? t(`teamAdmin.${editing.what}Confirm`) : ""}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function AddMember({ closed }: { closed: string | undefined }) {
  const { t } = useTranslation();
  const add = useMemberAdd();
  const [name, setName] = useState("");
  const [role, setRole] = useState<string | null>("viewer");
  const [password, setPassword] = useState("");
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        if (closed || add.isPending || !role) return;
        add.mutate(
          { name: name.trim(), role: role as TeamRole, password },
          {
            onSuccess: (holds) => {
              toastOk(t("teamAdmin.added", { name: name.trim(), holds }));
              setName("");
              setPassword("");
            },
          },
        );
      }}
    >
      <Stack gap="xs">
        <Group align="flex-start" grow>
          <TextInput
            label={t("teamAdmin.name")}
            description={t("teamAdmin.nameHint")}
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            error={fieldError(add.error, "name")}
            disabled={!!closed}
            required
            data-testid="member-add-name"
          />
          <Select
            id="member-add-role"
            label={t("teamAdmin.role")}
            description={t("teamAdmin.roleHint")}
            data={ROLES.map((r) => ({ value: r, label: t(`team.role.${r}`) }))}
            value={role}
            onChange={setRole}
            allowDeselect={false}
            error={fieldError(add.error, "role")}
            disabled={!!closed}
            data-testid="member-add-role"
          />
          <PasswordInput
            label={t("teamAdmin.password")}
            description={t("teamAdmin.passwordHint")}
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
            autoComplete="new-password"
            error={fieldError(add.error, "password")}
            disabled={!!closed}
            required
            data-testid="member-add-password"
          />
        </Group>
        <FormError error={add.error} testId="member-add-error" />
        <Group>
          <Tooltip label={closed} disabled={!closed} multiline w={280}>
            <Button
              type="submit"
              disabled={!!closed}
              loading={add.isPending}
              data-testid="member-add"
            >
              {t("teamAdmin.add")}
            </Button>
          </Tooltip>
        </Group>
      </Stack>
    </form>
  );
}

function Members({ team }: { team: TeamStatus }) {
  const { t } = useTranslation();
  const members = useMembers(true);
  const [editing, setEditing] = useState<Editing | null>(null);
  const closed = notAdmin(t, team);
  const lang = locale();
  const list: TeamMember[] = members.data ?? [];
  return (
    <Card withBorder data-testid="team-members">
      <Stack>
        <Title order={3}>{t("teamAdmin.members")}</Title>
        <Text size="sm" c="dimmed">
          {t("teamAdmin.membersIntro")}
        </Text>
        {closed ? (
          <Text size="sm" c="dimmed" data-testid="team-not-admin">
            {closed}
          </Text>
        ) : null}
        <ErrorAlert error={members.error} />
        {list.length > 0 ? (
          <Table.ScrollContainer minWidth={640}>
            <Table data-testid="members-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t("teamAdmin.name")}</Table.Th>
                  <Table.Th>{t("teamAdmin.roles")}</Table.Th>
                  <Table.Th>{t("teamAdmin.addedBy")}</Table.Th>
                  <Table.Th>{t("teamAdmin.actions")}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.map((m) => (
                  <Table.Tr key={m.name} data-testid={`member-${m.name}`}>
                    <Table.Td ff="monospace">
                      {m.name === team.user ? t("approvals.you", { name: m.name }) : m.name}
                    </Table.Td>
                    <Table.Td data-testid={`member-roles-${m.name}`} data-roles={m.roles.join(",")}>
                      <Group gap={4}>
                        {m.roles.length === 0 ? (
                          <Text size="sm" c="dimmed">
                            {t("teamAdmin.noRole")}
                          </Text>
                        ) : (
                          m.roles.map((r) => (
                            <Badge key={r} variant="light">
                              {t(`team.role.${r}`)}
                            </Badge>
                          ))
                        )}
                      </Group>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">
                        {m.addedBy || "—"}
                        {m.addedAt ? ` · ${formatDateTimeShort(m.addedAt, lang)}` : ""}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Group gap="xs" wrap="nowrap">
                        {(["roles", "password", "remove"] as const).map((what) => (
                          <Tooltip key={what} label={closed} disabled={!closed} multiline w={280}>
                            <Button
                              size="xs"
                              variant="light"
                              color={what === "remove" ? "red" : undefined}
                              disabled={!!closed}
                              onClick={() => setEditing({ name: m.name, what, roles: m.roles })}
                              aria-label={t(`teamAdmin.${what}Title`, { name: m.name })}
                              data-testid={`member-action-${what}-${m.name}`}
                            >
                              {t(`teamAdmin.${what}`)}
                            </Button>
                          </Tooltip>
                        ))}
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        ) : null}
        {closed ? null : <AddMember closed={closed} />}
      </Stack>
      <MemberModal editing={editing} onClose={() => setEditing(null)} />
    </Card>
  );
}

function ruleWords(t: TFunction, r: TeamRule): string {
  return t("teamAdmin.ruleLine", {
    operation:
      r.operation === "*"
        ? t("approvals.anyOperation")
        : t(`approvals.op.${r.operation}`, { defaultValue: r.operation }),
    currency: r.currency === "*" ? t("approvals.anyCurrency") : r.currency,
    above: formatMoney(r.above, r.currency === "*" ? "" : r.currency, locale()),
    count: r.approvals,
  });
}

function Rules({ team }: { team: TeamStatus }) {
  const { t } = useTranslation();
  const rules = useRules(true);
  const set = useRuleSet();
  const remove = useRuleRemove();
  const setDefault = useDefaultSet();
  const closed = notAdmin(t, team);
  const [operation, setOperation] = useState<string | null>("payout");
  const [currency, setCurrency] = useState("MXN");
  const [above, setAbove] = useState("");
  const [approvals, setApprovals] = useState<string | number>(1);
  const [fallback, setFallback] = useState<string | number | null>(null);
  const list = rules.data?.rules ?? [];
  const defaultNow = rules.data?.defaultApprovals;
  return (
    <Card withBorder data-testid="team-rules">
      <Stack>
        <Title order={3}>{t("teamAdmin.rules")}</Title>
        <Text size="sm" c="dimmed">
          {t("teamAdmin.rulesIntro")}
        </Text>
        <ErrorAlert error={rules.error} />
        {list.length === 0 && rules.isSuccess ? (
          <Text size="sm" c="dimmed" data-testid="rules-empty">
            {t("teamAdmin.noRules")}
          </Text>
        ) : null}
        {list.length > 0 ? (
          <Table data-testid="rules-table">
            <Table.Tbody>
              {list.map((r) => (
                <Table.Tr key={r.id} data-testid={`rule-row-${r.id}`}>
                  <Table.Td>#{r.id}</Table.Td>
                  <Table.Td data-testid={`rule-text-${r.id}`}>{ruleWords(t, r)}</Table.Td>
                  <Table.Td>
                    <Text size="xs" c="dimmed">
                      {t("teamAdmin.setBy", { name: r.createdBy })}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    {closed ? null : (
                      <Button
                        size="xs"
                        variant="subtle"
                        color="red"
                        loading={remove.isPending && remove.variables === r.id}
                        onClick={() =>
                          remove.mutate(r.id, {
                            onSuccess: () => toastOk(t("teamAdmin.ruleRemoved", { id: r.id })),
                          })
                        }
                        aria-label={t("teamAdmin.removeRule", { id: r.id })}
                        data-testid={`rule-remove-${r.id}`}
                      >
                        {t("teamAdmin.remove")}
                      </Button>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        ) : null}
        <ErrorAlert error={remove.error} />
        {defaultNow !== undefined ? (
          <Text size="sm" data-testid="rules-default">
            {t("teamAdmin.defaultLine", { count: defaultNow })}
          </Text>
        ) : null}
        {closed ? null : (
          <>
            <form
              onSubmit={(e) => {
                e.preventDefault();
                if (set.isPending) return;
                set.mutate(
                  {
                    operation: operation ?? "",
                    currency: currency.trim(),
                    above: above.trim(),
                    approvals: Number(approvals),
                  },
                  {
                    onSuccess: (r) => {
                      toastOk(t("teamAdmin.ruleSet", { id: r.id }));
                      setAbove("");
                    },
                  },
                );
              }}
            >
              <Stack gap="xs">
                <Group align="flex-start" grow>
                  <Select
                    id="rule-operation"
                    label={t("teamAdmin.operation")}
                    data={OPERATIONS.map((o) => ({
                      value: o,
                      label:
                        o === "*"
                          ? t("approvals.anyOperation")
                          : t(`approvals.op.${o}`, { defaultValue: o }),
                    }))}
                    value={operation}
                    onChange={setOperation}
                    allowDeselect={false}
                    error={fieldError(set.error, "operation")}
                    data-testid="rule-operation"
                  />
                  <TextInput
                    label={t("teamAdmin.currency")}
                    description={t("teamAdmin.currencyHint")}
                    value={currency}
                    onChange={(e) => setCurrency(e.currentTarget.value)}
                    error={fieldError(set.error, "currency")}
                    data-testid="rule-currency"
                  />
                  <TextInput
                    label={t("teamAdmin.above")}
                    description={t("teamAdmin.aboveHint")}
                    value={above}
                    onChange={(e) => setAbove(e.currentTarget.value)}
                    inputMode="decimal"
                    error={fieldError(set.error, "above")}
                    data-testid="rule-above"
                  />
                  <NumberInput
                    label={t("teamAdmin.approvals")}
                    description={t("teamAdmin.approvalsHint")}
                    value={approvals}
                    onChange={setApprovals}
                    min={1}
                    max={5}
                    allowDecimal={false}
                    error={fieldError(set.error, "approvals")}
                    data-testid="rule-approvals"
                  />
                </Group>
                <FormError error={set.error} testId="rule-error" />
                <Group>
                  <Button type="submit" loading={set.isPending} data-testid="rule-set">
                    {t("teamAdmin.setRule")}
                  </Button>
                </Group>
              </Stack>
            </form>
            <form
              onSubmit={(e) => {
                e.preventDefault();
                const n = Number(fallback ?? defaultNow);
                setDefault.mutate(n, {
                  onSuccess: () => toastOk(t("teamAdmin.defaultLine", { count: n })),
                });
              }}
            >
              <Group align="flex-end">
                <NumberInput
                  label={t("teamAdmin.default")}
                  description={t("teamAdmin.defaultHint")}
                  value={fallback ?? defaultNow ?? 1}
                  onChange={setFallback}
                  min={0}
                  max={5}
                  allowDecimal={false}
                  error={fieldError(setDefault.error, "approvals")}
                  data-testid="rules-default-input"
                />
                <Button
                  type="submit"
                  variant="light"
                  loading={setDefault.isPending}
                  data-testid="rules-default-save"
                >
                  {t("teamAdmin.save")}
                </Button>
              </Group>
              <FormError error={setDefault.error} testId="rules-default-error" />
            </form>
          </>
        )}
      </Stack>
    </Card>
  );
}

/// The worker's settings before it starts (what `paydesk team worker` takes as
/// `--poll-secs`, `--sync-every-mins`, `--sync-days`); the app checks them again.
function WorkerSettingsFields({
  settings,
  onChange,
  error,
}: {
  settings: WorkerSettings;
  onChange: (s: WorkerSettings) => void;
  error: unknown;
}) {
  const { t } = useTranslation();
  const field = (key: keyof WorkerSettings, min: number, max: number) => (
    <NumberInput
      label={t(`teamAdmin.workerSetting.${key}`)}
      description={t(`teamAdmin.workerSetting.${key}Hint`, { min, max })}
      value={settings[key]}
      onChange={(v) => onChange({ ...settings, [key]: typeof v === "number" ? v : min })}
      min={min}
      max={max}
      allowDecimal={false}
      allowNegative={false}
      error={fieldError(error, key)}
      data-testid={`worker-${key}`}
    />
  );
  return (
    <SimpleGrid cols={{ base: 1, sm: 3 }} data-testid="worker-settings">
      {field("pollSecs", 1, 3600)}
      {field("syncEveryMins", 0, 1440)}
      {field("syncDays", 1, 3660)}
    </SimpleGrid>
  );
}

function WorkerCard({ team }: { team: TeamStatus }) {
  const { t } = useTranslation();
  const signer = team.roles.includes("signer");
  const worker = useWorker(signer);
  const waiting = useRequests(["approved", "executing"], signer);
  const start = useWorkerStart();
  const stop = useWorkerStop();
  // The request being executed now (by this worker or another signer's), row by row.
  const executing = useRequests(["executing"], signer);
  const current = executing.data?.[0]?.request.id ?? null;
  const rows = useRequest(current).data?.rows ?? [];
  const rowsDone = rows.filter((r) => r.state !== "waiting").length;
  const s: WorkerStatus | undefined = worker.data;
  const closed = !signer
    ? t("teamAdmin.workerNotSigner", { roles: rolesText(t, team.roles) })
    : !team.holdsKey
      ? t("teamAdmin.workerNoKey")
      : undefined;
  const queued = waiting.data?.length ?? 0;
  const done = s?.requests ?? 0;
  const lang = locale();
  // The settings the next start uses: the person's, else those it last ran with (the
  // defaults before).
  const [edited, setEdited] = useState<WorkerSettings | null>(null);
  const settings = edited ?? s?.settings ?? null;
  return (
    <Card withBorder data-testid="team-worker" data-running={s?.running ? "true" : "false"}>
      <Stack>
        <Group justify="space-between">
          <Title order={3}>{t("teamAdmin.worker")}</Title>
          {s?.running ? (
            <Badge color="teal" data-testid="worker-running">
              {s.stopping ? t("teamAdmin.workerStopping") : t("teamAdmin.workerRunning")}
            </Badge>
          ) : (
            <Badge color="gray" data-testid="worker-stopped">
              {t("teamAdmin.workerStopped")}
            </Badge>
          )}
        </Group>
        <Text size="sm" c="dimmed">
          {t("teamAdmin.workerIntro")}
        </Text>
        {closed ? (
          <Text size="sm" c="dimmed" data-testid="worker-closed">
            {closed}
          </Text>
        ) : (
          <>
            <Group>
              {s?.running ? (
                <Button
                  color="red"
                  variant="light"
                  leftSection={<IconPlayerStop size={16} />}
                  disabled={s.stopping}
                  onClick={() => stop.mutate(undefined)}
                  data-testid="worker-stop"
                >
                  {t("teamAdmin.workerStop")}
                </Button>
              ) : (
                <Button
                  leftSection={<IconPlayerPlay size={16} />}
                  loading={start.isPending}
                  onClick={() => start.mutate(settings)}
                  data-testid="worker-start"
                >
                  {t("teamAdmin.workerStart")}
                </Button>
              )}
              <Text size="sm" data-testid="worker-queued">
                {t("teamAdmin.workerQueued", { count: queued })}
              </Text>
            </Group>
            {settings && !s?.running ? (
              <WorkerSettingsFields settings={settings} onChange={setEdited} error={start.error} />
            ) : null}
            {settings && s?.running ? (
              <Text size="sm" c="dimmed" data-testid="worker-settings-now">
                {settings.syncEveryMins === 0
                  ? t("teamAdmin.workerSettingsNoSync", { poll: settings.pollSecs })
                  : t("teamAdmin.workerSettingsNow", {
                      poll: settings.pollSecs,
                      every: settings.syncEveryMins,
                      days: settings.syncDays,
                    })}
              </Text>
            ) : null}
            <ErrorAlert error={start.error} />
            {s?.running || done > 0 ? (
              <Stack gap={6} data-testid="worker-progress">
                <Progress
                  value={done + queued === 0 ? 0 : (100 * done) / (done + queued)}
                  animated={!!s?.running && queued > 0}
                  aria-label={t("teamAdmin.workerProgress")}
                />
                <SimpleGrid cols={{ base: 2, sm: 5 }}>
                  {(["requests", "accepted", "rejected", "unknown", "failed"] as const).map((k) => (
                    <Stack key={k} gap={0}>
                      <Text size="xs" c="dimmed">
                        {t(`teamAdmin.count.${k}`)}
                      </Text>
                      <Text fw={600} data-testid={`worker-${k}`}>
                        {(s?.[k] ?? 0).toLocaleString(lang)}
                      </Text>
                    </Stack>
                  ))}
                </SimpleGrid>
                {s?.startedAt ? (
                  <Text size="xs" c="dimmed">
                    {t("teamAdmin.workerSince", { at: formatDateTimeShort(s.startedAt, lang) })}
                  </Text>
                ) : null}
              </Stack>
            ) : null}
            {current !== null && rows.length > 0 ? (
              <Stack gap={4} data-testid="worker-current">
                <Text size="sm">
                  {t("teamAdmin.workerCurrent", {
                    id: current,
                    done: rowsDone.toLocaleString(lang),
                    total: rows.length.toLocaleString(lang),
                  })}
                </Text>
                <Progress
                  value={(100 * rowsDone) / rows.length}
                  animated
                  aria-label={t("teamAdmin.workerCurrentLabel", { id: current })}
                />
              </Stack>
            ) : null}
            {s?.lastError ? (
              <Alert color="orange" variant="light" data-testid="worker-error">
                {s.lastError}
              </Alert>
            ) : null}
            {s?.ended ? (
              <Alert color="red" variant="light" data-testid="worker-ended">
                {t("teamAdmin.workerEnded", { why: s.ended })}
              </Alert>
            ) : null}
            {(s?.recent.length ?? 0) > 0 ? (
              <Table data-testid="worker-recent">
                <Table.Tbody>
                  {(s?.recent ?? [])
                    .map((e, i) => ({ e, seq: (s?.requests ?? 0) - i }))
                    .map(({ e, seq }) => (
                      <Table.Tr
                        key={seq}
                        data-testid={`worker-executed-${e.request}`}
                        data-done={e.done ? "true" : "false"}
                      >
                        <Table.Td>{t("teamAdmin.workerRequest", { id: e.request })}</Table.Td>
                        <Table.Td>
                          {t("teamAdmin.workerRows", {
                            accepted: e.accepted,
                            rejected: e.rejected,
                            failed: e.failed,
                            unknown: e.unknown,
                          })}
                        </Table.Td>
                        <Table.Td>
                          <Badge color={e.done ? "teal" : "orange"} variant="light">
                            {e.done ? t("teamAdmin.workerDone") : t("teamAdmin.workerLater")}
                          </Badge>
                        </Table.Td>
                      </Table.Tr>
                    ))}
                </Table.Tbody>
              </Table>
            ) : null}
          </>
        )}
      </Stack>
    </Card>
  );
}

/// The key makers seal card numbers and tax ids to: its fingerprint in the team's
/// database, whether this desk trusts it, and trusting it once compared.
function SealKeyCard() {
  const { t } = useTranslation();
  const key = useSealKey();
  const trust = useTrustSealKey();
  const [given, setGiven] = useState("");
  const database = key.data?.database ?? null;
  const trusted = key.data?.trusted ?? null;
  const badge =
    database === null
      ? null
      : trusted === database
        ? { color: "teal", text: t("teamAdmin.sealKeyTrusted") }
        : trusted === null
          ? { color: "orange", text: t("teamAdmin.sealKeyNotTrusted") }
          : { color: "red", text: t("teamAdmin.sealKeyChanged") };
  const submit = () => {
    if (trust.isPending) return;
    trust.mutate(given, {
      onSuccess: (fingerprint) => {
        setGiven("");
        toastOk(t("teamAdmin.sealKeyTrustedToast", { fingerprint: fingerprint.slice(0, 16) }));
      },
    });
  };
  return (
    <Card withBorder data-testid="seal-key-card">
      <Stack gap="xs">
        <Group justify="space-between">
          <Title order={4}>{t("teamAdmin.sealKeyTitle")}</Title>
          {badge ? (
            <Badge color={badge.color} variant="light" data-testid="seal-key-state">
              {badge.text}
            </Badge>
          ) : null}
        </Group>
        <Text size="sm" c="dimmed">
          {t("teamAdmin.sealKeyWhat")}
        </Text>
        <ErrorAlert error={key.error} />
        {database === null ? (
          key.isSuccess ? (
            <Text size="sm" data-testid="seal-key-none">
              {t("teamAdmin.sealKeyNone")}
            </Text>
          ) : null
        ) : (
          <>
            <Text size="xs" c="dimmed">
              {t("teamAdmin.sealKeyDatabase")}
            </Text>
            <Text
              ff="monospace"
              size="sm"
              style={{ wordBreak: "break-all" }}
              data-testid="seal-key-fingerprint"
            >
              {database}
            </Text>
            {trusted === database ? null : (
              <form
                onSubmit={(e) => {
                  e.preventDefault();
                  submit();
                }}
              >
                <Group align="flex-end">
                  <TextInput
                    id="seal-key-given"
                    label={t("teamAdmin.sealKeyGiven")}
                    value={given}
                    onChange={(e) => setGiven(e.currentTarget.value)}
                    error={fieldError(trust.error, "fingerprint")}
                    style={{ flex: 1 }}
                    data-testid="seal-key-given"
                  />
                  <Button type="submit" loading={trust.isPending} data-testid="seal-key-trust">
                    {t("teamAdmin.sealKeyTrust")}
                  </Button>
                </Group>
              </form>
            )}
            {fieldError(trust.error, "fingerprint") ? null : (
              <FormError error={trust.error} testId="seal-key-error" />
            )}
          </>
        )}
      </Stack>
    </Card>
  );
}

export function TeamPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const team = useTeamStatus();
  if (team.data === null) {
    return (
      <Stack data-testid="screen-team">
        <Title order={2}>{t("teamAdmin.title")}</Title>
        <Alert icon={<IconInfoCircle size={18} />} data-testid="team-single-desk">
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
  return (
    <Stack data-testid="screen-team">
      <Title order={2}>{t("teamAdmin.title")}</Title>
      {member ? (
        <Text size="sm" c="dimmed" data-testid="team-you">
          {t("teamAdmin.you", {
            user: member.user,
            roles: rolesText(t, member.roles),
            merNo: member.merNo,
          })}
        </Text>
      ) : null}
      <ErrorAlert error={team.error} />
      <TeamChainAlert />
      {member ? (
        <>
          {member.roles.includes("signer") ? <WorkerCard team={member} /> : null}
          <Members team={member} />
          <Rules team={member} />
          <MemberLimitsCard team={member} />
          <SealKeyCard />
          {member.roles.includes("signer") ? null : <WorkerCard team={member} />}
        </>
      ) : null}
    </Stack>
  );
}
