import { Alert, Button, Card, Container, Group, List, Stack, Text, Title } from "@mantine/core";
import { IconKey } from "@tabler/icons-react";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { useProfiles, useSwitchProfile } from "../features/settings/queries";
import { SettingsPage } from "../features/settings/SettingsPage";
import { coreError } from "../lib/ipc";
import { ErrorAlert } from "./ErrorAlert";
import { ProfileKind } from "./ProfileKind";

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
        {settings ? <SettingsPage /> : null}
      </Stack>
    </Container>
  );
}
