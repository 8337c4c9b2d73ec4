import {
  Alert,
  Box,
  Button,
  Collapse,
  Group,
  Modal,
  NumberInput,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { IconAlertTriangle, IconChevronDown, IconChevronRight } from "@tabler/icons-react";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { ErrorAlert, toastOk } from "../../components/ErrorAlert";
import { useFieldErrors } from "../../lib/fieldErrors";
import { brokenRuleText, fieldOf } from "../../lib/ipc";
import type { Profile } from "../../lib/types";
import { useTeamPasswordSet } from "../team/queries";
import { profileFields, useProfileFields, useSaveProfile } from "./queries";
import { TeamFields } from "./TeamFields";

export const NEW_PROFILE: Profile = {
  name: "",
  baseUrl: "https://",
  merNo: 0,
  origin: "https://",
  lang: "en",
  orderType: null,
  operator: "",
  notifyUrl: "",
  notifyAtDesk: false,
  proxy: "",
  safety: {
    duplicateWindowHours: 24,
    notFoundGraceSecs: 300,
    notFoundLookups: 3,
    purposeRequired: false,
  },
  sync: { pageSize: 500, inFlight: 8, rateLimit: 0, balancesEveryMins: 60, payoutsInFlight: 16 },
};

/// The sync settings, in the order shown, with the bounds the core checks them against.
const SYNC_FIELDS = [
  { key: "pageSize", min: 1, max: 500 },
  { key: "inFlight", min: 1, max: 64 },
  { key: "rateLimit", min: 0, max: 10_000 },
  { key: "balancesEveryMins", min: 0, max: 1440 },
  { key: "payoutsInFlight", min: 1, max: 64 },
] as const;

/// A bulk run's payouts in flight when a profile (saved by an older PayDesk) says none.
const DEFAULT_PAYOUTS_IN_FLIGHT = 16;

/// The expert settings' fields (and prefixes), shown under *Advanced*.
const ADVANCED = ["lang", "orderType", "proxy", "safety.", "sync."];

interface Props {
  /// The profile to edit, or null to add one.
  editing: Profile | null;
  opened: boolean;
  onClose: () => void;
  /// A field to focus once open (`baseUrl`, `merNo`, `origin`: what a connection
  /// check's finding names).
  focus?: string | null;
  /// Told once saved, with whether the profile is new.
  onSaved?: (profile: Profile, isNew: boolean) => void;
}

export function ProfileForm({ editing, opened, onClose, focus, onSaved }: Props) {
  const { t } = useTranslation();
  const [p, setP] = useState<Profile>(editing ?? NEW_PROFILE);
  const save = useSaveProfile();
  const teamPassword = useTeamPasswordSet();
  const [password, setPassword] = useState("");
  const failure = useFieldErrors(save.error ?? teamPassword.error);
  const invalid = fieldOf(failure.error);
  const { reset } = save;
  useEffect(() => {
    if (opened) {
      setP(editing ?? NEW_PROFILE);
      setPassword("");
      reset();
    }
  }, [opened, editing, reset]);
  // After the modal's own first focus, the field a check named.
  useEffect(() => {
    if (!opened || !focus) return;
    const timer = setTimeout(() => document.getElementById(`profile-field-${focus}`)?.focus(), 300);
    return () => clearTimeout(timer);
  }, [opened, focus]);
  // Every field checked by the core's rules as it is typed: a field's problem shows once
  // it was edited, and every problem once Save was tried.
  const [checked] = useDebouncedValue(p, 200);
  const fields = useProfileFields(checked, editing?.name ?? null, opened);
  const [touched, setTouched] = useState<string[]>([]);
  const [tried, setTried] = useState(false);
  const [advanced, setAdvanced] = useState(false);
  useEffect(() => {
    if (opened) {
      setTouched([]);
      setTried(false);
      setAdvanced(false);
    }
  }, [opened]);
  const problems = fields.data?.problems ?? [];
  const err = (f: string) => {
    const problem = tried || touched.includes(f) ? problems.find((x) => x.field === f) : undefined;
    return (
      (invalid?.field === f ? invalid.rule : undefined) ??
      (problem ? brokenRuleText(problem) : undefined)
    );
  };
  const sandbox = editing !== null && editing.baseUrl === null;
  /// `field` names what was edited when it is inside `k` (a safety or sync setting).
  const set = <K extends keyof Profile>(k: K, v: Profile[K], field: string = k) => {
    failure.edited(field);
    setTouched((t) => (t.includes(field) ? t : [...t, field]));
    setP({ ...p, [k]: v });
  };
  const preview = fields.data?.baseUrl ?? null;

  return (
    <Modal
      opened={opened}
      onClose={onClose}
      size="lg"
      title={editing ? t("settings.editProfile", { name: editing.name }) : t("settings.addProfile")}
    >
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setTried(true);
          // Nothing is saved while a field breaks a rule: all of them are shown at once,
          // the expert settings opened if one of theirs is among them.
          const now = await profileFields(p, editing?.name ?? null);
          if (now.problems.length > 0) {
            if (now.problems.some((x) => ADVANCED.some((a) => x.field.startsWith(a)))) {
              setAdvanced(true);
            }
            const first = now.problems[0]?.field ?? "";
            setTimeout(() => document.getElementById(`profile-field-${first}`)?.focus(), 50);
            return;
          }
          save.mutate(
            { profile: p, previous: editing?.name ?? null },
            {
              onSuccess: () => {
                const done = () => {
                  setPassword("");
                  toastOk(t("settings.saved", { name: p.name }));
                  onSaved?.(p, editing === null);
                  onClose();
                };
                // The member's password goes to the keyring, once the profile is there.
                if (p.team && password) {
                  teamPassword.mutate({ profile: p.name, password }, { onSuccess: done });
                } else {
                  done();
                }
              },
            },
          );
        }}
        // The browser's own check would stop at the first empty field, in its words:
        // the core's rules name every field at once.
        noValidate
        data-testid="profile-form"
      >
        <Stack gap="sm">
          <TextInput
            label={t("settings.field.name")}
            value={p.name}
            onChange={(e) => set("name", e.currentTarget.value)}
            error={err("name")}
            disabled={editing !== null}
            required
            id="profile-field-name"
            data-testid="profile-name"
          />
          {sandbox ? null : (
            <TextInput
              label={t("settings.field.baseUrl")}
              description={t("settings.field.baseUrlHint")}
              value={p.baseUrl ?? ""}
              onChange={(e) => set("baseUrl", e.currentTarget.value)}
              error={err("baseUrl")}
              required
              id="profile-field-baseUrl"
              data-testid="profile-base-url"
            />
          )}
          {!sandbox && preview ? (
            <Text size="xs" c="dimmed" data-testid="profile-request-url" mt={-8}>
              {t("flows.setup.requestUrl", { url: preview.requestUrl })}
            </Text>
          ) : null}
          {!sandbox && preview?.versionSuffix ? (
            <Alert
              color="yellow"
              variant="light"
              icon={<IconAlertTriangle size={18} />}
              data-testid="profile-version-warning"
            >
              {t("flows.setup.versionInUrl", {
                version: preview.versionSuffix,
                url: preview.requestUrl,
              })}
            </Alert>
          ) : null}
          <NumberInput
            label={t("settings.field.merNo")}
            value={p.merNo}
            onChange={(v) => set("merNo", typeof v === "number" ? v : 0)}
            error={err("merNo")}
            allowDecimal={false}
            allowNegative={false}
            required
            id="profile-field-merNo"
            data-testid="profile-mer-no"
          />
          <TextInput
            id="profile-field-origin"
            label={t("settings.field.origin")}
            value={p.origin}
            onChange={(e) => set("origin", e.currentTarget.value)}
            error={err("origin")}
            required
            data-testid="profile-origin"
          />
          <TextInput
            id="profile-field-operator"
            label={t("settings.field.operator")}
            value={p.operator}
            onChange={(e) => set("operator", e.currentTarget.value)}
            error={err("operator")}
            data-testid="profile-operator"
            withAsterisk
          />
          <TextInput
            label={t("settings.field.notifyUrl")}
            description={t("settings.field.notifyUrlHint")}
            value={p.notifyUrl}
            onChange={(e) => set("notifyUrl", e.currentTarget.value)}
            error={err("notifyUrl")}
            withAsterisk={!p.notifyAtDesk && p.baseUrl !== null}
            disabled={p.notifyAtDesk}
            id="profile-field-notifyUrl"
            data-testid="profile-notify-url"
          />
          <Switch
            label={t("settings.field.notifyAtDesk")}
            description={t("settings.field.notifyAtDeskHint")}
            checked={p.notifyAtDesk}
            onChange={(e) => set("notifyAtDesk", e.currentTarget.checked)}
            error={err("notifyAtDesk")}
            data-testid="profile-notify-at-desk"
          />
          <Box>
            <Button
              variant="subtle"
              size="compact-sm"
              leftSection={
                advanced ? <IconChevronDown size={16} /> : <IconChevronRight size={16} />
              }
              onClick={() => setAdvanced((a) => !a)}
              aria-expanded={advanced}
              aria-controls="profile-advanced"
              data-testid="profile-advanced-toggle"
            >
              {t("flows.setup.advanced")}
            </Button>
            {advanced ? null : (
              <Text size="xs" c="dimmed" ml="xs">
                {t("flows.setup.advancedHint")}
              </Text>
            )}
          </Box>
          <Collapse expanded={advanced} id="profile-advanced" data-testid="profile-advanced">
            <Stack gap="sm">
              <Group grow>
                <TextInput
                  label={t("settings.field.lang")}
                  value={p.lang}
                  onChange={(e) => set("lang", e.currentTarget.value)}
                  error={err("lang")}
                />
                <TextInput
                  label={t("settings.field.orderType")}
                  value={p.orderType ?? ""}
                  onChange={(e) => set("orderType", e.currentTarget.value || null)}
                  error={err("orderType")}
                />
              </Group>
              <TextInput
                label={t("settings.field.proxy")}
                description={t("settings.field.proxyHint")}
                placeholder="http://proxy.example:3128"
                value={p.proxy}
                onChange={(e) => set("proxy", e.currentTarget.value)}
                error={err("proxy")}
                id="profile-field-proxy"
                data-testid="profile-proxy"
              />
              <Title order={3} size="h5">
                {t("settings.safety")}
              </Title>
              <NumberInput
                label={t("settings.field.duplicateWindowHours")}
                description={t("settings.field.duplicateWindowHoursHint")}
                value={p.safety.duplicateWindowHours}
                onChange={(v) =>
                  set(
                    "safety",
                    { ...p.safety, duplicateWindowHours: typeof v === "number" ? v : 0 },
                    "safety.duplicateWindowHours",
                  )
                }
                error={err("safety.duplicateWindowHours")}
                min={1}
                max={2160}
                allowDecimal={false}
                allowNegative={false}
                required
                data-testid="profile-duplicate-window"
              />
              <NumberInput
                label={t("settings.field.notFoundGraceSecs")}
                description={t("settings.field.notFoundGraceSecsHint")}
                value={p.safety.notFoundGraceSecs}
                onChange={(v) =>
                  set(
                    "safety",
                    { ...p.safety, notFoundGraceSecs: typeof v === "number" ? v : 0 },
                    "safety.notFoundGraceSecs",
                  )
                }
                error={err("safety.notFoundGraceSecs")}
                min={0}
                max={604800}
                allowDecimal={false}
                allowNegative={false}
                required
                data-testid="profile-not-found-grace"
              />
              {invalid?.field === "safety.notFoundLookups" && (
                <Text c="red" size="sm" data-testid="profile-safety-error">
                  {t("errors.validation", invalid)}
                </Text>
              )}
              <Switch
                label={t("purpose.requiredSetting")}
                description={t("purpose.requiredSettingHint")}
                checked={p.safety.purposeRequired ?? false}
                onChange={(e) =>
                  set(
                    "safety",
                    { ...p.safety, purposeRequired: e.currentTarget.checked },
                    "safety.purposeRequired",
                  )
                }
                data-testid="profile-purpose-required"
              />
              <Title order={3} size="h5">
                {t("settings.readingOrders")}
              </Title>
              {SYNC_FIELDS.map(({ key, min, max }) => (
                <NumberInput
                  key={key}
                  label={t(`settings.field.${key}`)}
                  description={t(`settings.field.${key}Hint`)}
                  value={
                    key === "payoutsInFlight"
                      ? (p.sync.payoutsInFlight ?? DEFAULT_PAYOUTS_IN_FLIGHT)
                      : p.sync[key]
                  }
                  onChange={(v) =>
                    set("sync", { ...p.sync, [key]: typeof v === "number" ? v : 0 }, `sync.${key}`)
                  }
                  error={err(`sync.${key}`)}
                  min={min}
                  max={max}
                  allowDecimal={false}
                  allowNegative={false}
                  required
                  data-testid={`profile-sync-${key}`}
                />
              ))}
            </Stack>
          </Collapse>
          {sandbox ? null : (
            <TeamFields
              profile={p.name}
              team={p.team}
              setTeam={(team, field) => set("team", team, field)}
              password={password}
              setPassword={setPassword}
              err={err}
            />
          )}
          {fieldOf(save.error) ? null : <ErrorAlert error={save.error} />}
          {teamPassword.error && !fieldOf(teamPassword.error) ? (
            <ErrorAlert error={teamPassword.error} />
          ) : null}
          <Group
            justify="flex-end"
            className="sticky-actions"
            style={{
              position: "sticky",
              bottom: 0,
              zIndex: 2,
              background: "var(--mantine-color-body)",
              borderTop: "1px solid var(--mantine-color-default-border)",
              padding: "var(--mantine-spacing-sm) 0",
            }}
            data-testid="profile-actions"
          >
            {tried && problems.length > 0 ? (
              <Text c="red" size="sm" mr="auto" role="alert" data-testid="profile-problem-count">
                {t("flows.setup.invalidFields", { count: problems.length })}
              </Text>
            ) : null}
            <Button variant="default" onClick={onClose}>
              {t("common.cancel")}
            </Button>
            <Button
              type="submit"
              loading={save.isPending || teamPassword.isPending}
              data-testid="profile-save"
            >
              {t("common.save")}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
