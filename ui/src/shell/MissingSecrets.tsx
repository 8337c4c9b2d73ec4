import { Alert, Button, Card, Container, Group, List, Stack, Text, Title } from "@mantine/core";
import { IconKey } from "@tabler/icons-react";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { ErrorAlert } from "../components/ErrorAlert";
import { ProfileKind } from "../components/ProfileKind";
import { useAuditKeyLost, useAuditNewLog } from "../features/activity/queries";
import { useProfiles, useSwitchProfile } from "../features/settings/queries";
import { SettingsPage } from "../features/settings/SettingsPage";
import { coreError } from "../lib/ipc";

/// The message of a refusal to open the desk because its secrets are not in the keyring.
export function missingSecretOf(e: unknown): string | null {
  if (!e) return null;
  const c = coreError(e);
  return c.code === "missing_secret" ? c.message : null;
}

/// What a person sees instead of a spinner when the active profile's secrets are missing
/// from this computer's keyring: what is missing, and the ways on (another profile,
/// importing the key in Settings, trying again).
export function MissingSecrets({ message, onRetry }: { message: string; onRetry: () => void }) {
  const { t } = useTranslation();
  const profiles = useProfiles();
  const use = useSwitchProfile();
  const [settings, setSettings] = useState(false);
  const active = profiles.data?.active ?? "";
  const others = (profiles.data?.profiles ?? []).filter((p) => p.name !== active);
  return (
    <Container size="md" py="xl" data-testid="missing-secrets" component="main">
      <Stack>
        <Title order={1} size="h3">
          {t("stuck.title", { profile: active })}
        </Title>
        <Text>{t("stuck.intro")}</Text>
        <Alert color="orange" variant="light" icon={<IconKey size={18} />}>
          <Text size="sm" data-testid="missing-what">
            {t("stuck.missing", { what: message })}
          </Text>
        </Alert>
        {others.length > 0 ? (
          <Card withBorder>
            <Title order={2} size="h5" mb="xs">
              {t("stuck.otherProfile")}
            </Title>
            <List spacing="xs" listStyleType="none">
              {others.map((p) => (
                <List.Item key={p.name}>
                  <Button
                    variant="default"
                    loading={use.isPending && use.variables === p.name}
                    onClick={() => use.mutate(p.name)}
                    data-testid={`stuck-use-${p.name}`}
                    rightSection={<ProfileKind profile={p} />}
                  >
                    {t("stuck.use", { name: p.name })}
                  </Button>
                </List.Item>
              ))}
            </List>
            {use.error ? <ErrorAlert error={use.error} /> : null}
          </Card>
        ) : null}
        <Card withBorder>
          <Title order={2} size="h5" mb="xs">
            {t("stuck.importKey")}
          </Title>
          <Text size="sm" mb="xs">
            {t("stuck.importKeyHint")}
          </Text>
          <Group>
            <Button
              variant="default"
              onClick={() => setSettings((s) => !s)}
              data-testid="stuck-settings"
            >
              {t("stuck.openSettings")}
            </Button>
            <Button onClick={onRetry} data-testid="stuck-retry">
              {t("stuck.retry")}
            </Button>
          </Group>
        </Card>
        {active ? <NewAuditLog profile={active} onDone={onRetry} /> : null}
        {settings ? <SettingsPage /> : null}
      </Stack>
    </Container>
  );
}

/// When the profile's audit key is lost while its log holds rows it sealed: the way on is
/// a new log, the old rows set aside (kept, readable, marked as sealed with a lost key),
/// after a confirmation that says what cannot be undone.
function NewAuditLog({ profile, onDone }: { profile: string; onDone: () => void }) {
  const { t } = useTranslation();
  const [confirming, setConfirming] = useState(false);
  const lost = useAuditKeyLost(profile);
  const start = useAuditNewLog(profile);
  if (!lost.data && !start.data) return null;
  return (
    <Card withBorder data-testid="stuck-audit" data-sealed-rows={lost.data?.sealedRows ?? ""}>
      <Title order={2} size="h5" mb="xs">
        {t("stuck.newLog")}
      </Title>
      {start.data ? (
        <Stack gap="xs">
          <Alert
            color="green"
            variant="light"
            data-testid="stuck-audit-done"
            data-archive={start.data.archive.archive}
            data-rows={start.data.archive.rows}
          >
            {t("stuck.newLogDone", {
              count: start.data.archive.rows,
              archive: start.data.archive.archive,
            })}
          </Alert>
          <Group>
            <Button onClick={onDone} data-testid="stuck-audit-open">
              {t("stuck.retry")}
            </Button>
          </Group>
        </Stack>
      ) : (
        <Stack gap="xs">
          <Text size="sm">{t("stuck.newLogHint", { count: lost.data?.sealedRows ?? 0 })}</Text>
          {confirming ? (
            <Alert color="orange" variant="light">
              <Stack gap="xs">
                <Text size="sm">{t("stuck.newLogConfirm")}</Text>
                <Group>
                  <Button
                    color="orange"
                    loading={start.isPending}
                    onClick={() => start.mutate()}
                    data-testid="stuck-audit-confirm"
                  >
                    {t("stuck.newLogConfirmButton")}
                  </Button>
                  <Button variant="default" onClick={() => setConfirming(false)}>
                    {t("stuck.cancel")}
                  </Button>
                </Group>
              </Stack>
            </Alert>
          ) : (
            <Group>
              <Button
                variant="default"
                onClick={() => setConfirming(true)}
                data-testid="stuck-audit-start"
              >
                {t("stuck.newLogStart")}
              </Button>
            </Group>
          )}
          {start.error ? <ErrorAlert error={start.error} /> : null}
        </Stack>
      )}
    </Card>
  );
}
