import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  SegmentedControl,
  Select,
  Stack,
  Table,
  Text,
  Title,
  useMantineColorScheme,
} from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { IconPlugConnected, IconPlus } from "@tabler/icons-react";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { ConfirmModal } from "../../components/ConfirmModal";
import { ErrorAlert, toastError, toastOk } from "../../components/ErrorAlert";
import { ProfileKind } from "../../components/ProfileKind";
import { LANGUAGES, type Language, setLanguage } from "../../i18n";
import type { Profile } from "../../lib/types";
import { AlertSettingsCard } from "../alerts/AlertSettingsCard";
import { useAppStatus } from "../app/queries";
import { DeskLockCard } from "../team/DeskLockCard";
import { ConnectionCheckModal } from "./ConnectionCheck";
import { ConventionsDrawer } from "./conventions/ConventionsDrawer";
import { KeysPanel } from "./KeysPanel";
import { LimitsCard } from "./LimitsCard";
import { ProfileForm } from "./ProfileForm";
import { useDeleteProfile, useProfiles, useSwitchProfile } from "./queries";
import { SandboxCard } from "./SandboxCard";
import { SigningTools } from "./SigningTools";

function Appearance() {
  const { t, i18n } = useTranslation();
  const { colorScheme, setColorScheme } = useMantineColorScheme();
  return (
    <Card withBorder>
      <Title order={3} size="h4" mb="sm">
        {t("settings.appearance")}
      </Title>
      <Group align="flex-end" gap="xl">
        <Select
          label={t("settings.language")}
          data={LANGUAGES.map((l) => ({ value: l.value, label: l.label }))}
          value={i18n.language}
          onChange={(v) => v && setLanguage(v as Language)}
          allowDeselect={false}
          w={200}
          id="language-select"
        />
        <Stack gap={4}>
          <Text size="sm" fw={500} id="theme-label">
            {t("settings.theme")}
          </Text>
          <SegmentedControl
            aria-labelledby="theme-label"
            value={colorScheme}
            onChange={(v) =>
              setColorScheme(v === "dark" ? "dark" : v === "light" ? "light" : "auto")
            }
            data={[
              { value: "light", label: t("settings.themeLight") },
              { value: "dark", label: t("settings.themeDark") },
              { value: "auto", label: t("settings.themeAuto") },
            ]}
            data-testid="theme-control"
          />
        </Stack>
      </Group>
    </Card>
  );
}

export function SettingsPage() {
  const { t } = useTranslation();
  const profiles = useProfiles();
  const status = useAppStatus();
  const switchProfile = useSwitchProfile();
  const remove = useDeleteProfile();
  const [editing, setEditing] = useState<Profile | null>(null);
  const [formOpen, form] = useDisclosure(false);
  const [removing, setRemoving] = useState<string | null>(null);
  const [keysOf, setKeysOf] = useState<string | null>(null);
  const [conventionsOf, setConventionsOf] = useState<{
    profile: string;
    focus: string | null;
  } | null>(null);
  const [checkOf, setCheckOf] = useState<string | null>(null);
  // A live profile just added: its connection is offered a check.
  const [offer, setOffer] = useState<string | null>(null);
  const [formFocus, setFormFocus] = useState<string | null>(null);
  const active = profiles.data?.active ?? null;
  const shownKeys = keysOf ?? active;

  /// Opens where a check's finding says to change something.
  const openSetting = (profile: string, setting: string) => {
    setCheckOf(null);
    if (setting.startsWith("conventions.")) {
      setConventionsOf({ profile, focus: setting.slice("conventions.".length) });
    } else if (["merchantKey", "gatewayKey", "token"].includes(setting)) {
      setKeysOf(profile);
      setTimeout(() => {
        const el = document.getElementById(`keys-${setting}`);
        el?.scrollIntoView({ block: "center" });
        el?.focus();
      }, 200);
    } else {
      const p = profiles.data?.profiles.find((x) => x.name === profile);
      if (!p) return;
      setEditing(p);
      setFormFocus(setting);
      form.open();
    }
  };

  return (
    <Stack data-testid="screen-settings">
      <Title order={2}>{t("settings.title")}</Title>
      <Card withBorder>
        <Group justify="space-between" mb="sm">
          <Title order={3} size="h4">
            {t("settings.profiles")}
          </Title>
          <Button
            leftSection={<IconPlus size={16} />}
            variant="light"
            onClick={() => {
              setEditing(null);
              setFormFocus(null);
              form.open();
            }}
            data-testid="profile-add"
          >
            {t("settings.addProfile")}
          </Button>
        </Group>
        <ErrorAlert error={profiles.error ?? switchProfile.error} />
        {offer ? (
          <Alert
            color="blue"
            variant="light"
            icon={<IconPlugConnected size={18} />}
            withCloseButton
            closeButtonLabel={t("common.close")}
            onClose={() => setOffer(null)}
            mb="sm"
            data-testid="check-offer"
          >
            <Group justify="space-between">
              <Text size="sm">{t("check.offer", { name: offer })}</Text>
              <Button
                size="xs"
                onClick={() => {
                  setCheckOf(offer);
                  setOffer(null);
                }}
                data-testid="check-offer-run"
              >
                {t("check.now")}
              </Button>
            </Group>
          </Alert>
        ) : null}
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t("settings.field.name")}</Table.Th>
              <Table.Th>{t("settings.gateway")}</Table.Th>
              <Table.Th>{t("settings.field.merNo")}</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {profiles.data?.profiles.map((p) => (
              <Table.Tr key={p.name} data-testid="profile-row" data-name={p.name}>
                <Table.Td>
                  <Group gap="xs">
                    {p.name}
                    <ProfileKind profile={p} />
                    {p.name === active ? (
                      <Badge size="sm" variant="light">
                        {t("settings.active")}
                      </Badge>
                    ) : null}
                  </Group>
                </Table.Td>
                <Table.Td>{p.baseUrl ?? t("settings.builtin")}</Table.Td>
                <Table.Td>{p.merNo}</Table.Td>
                <Table.Td>
                  <Group gap="xs" justify="flex-end">
                    {p.name !== active ? (
                      <Button
                        size="compact-sm"
                        variant="light"
                        loading={switchProfile.isPending && switchProfile.variables === p.name}
                        data-testid="profile-use"
                        onClick={() =>
                          switchProfile.mutate(p.name, {
                            onSuccess: () => {
                              setKeysOf(null);
                              toastOk(t("settings.switched", { name: p.name }));
                            },
                          })
                        }
                      >
                        {t("settings.use")}
                      </Button>
                    ) : null}
                    <Button
                      size="compact-sm"
                      variant="default"
                      onClick={() => setKeysOf(p.name)}
                      data-testid="profile-keys"
                    >
                      {t("settings.keysButton")}
                    </Button>
                    <Button
                      size="compact-sm"
                      variant="default"
                      onClick={() => setConventionsOf({ profile: p.name, focus: null })}
                      data-testid="profile-conventions"
                    >
                      {t("settings.conventionsButton")}
                    </Button>
                    <Button
                      size="compact-sm"
                      variant="default"
                      onClick={() => setCheckOf(p.name)}
                      data-testid="profile-check"
                    >
                      {t("check.button")}
                    </Button>
                    <Button
                      size="compact-sm"
                      variant="default"
                      onClick={() => {
                        setEditing(p);
                        setFormFocus(null);
                        form.open();
                      }}
                    >
                      {t("common.edit")}
                    </Button>
                    {p.name !== active && p.baseUrl !== null ? (
                      <Button
                        size="compact-sm"
                        variant="subtle"
                        color="red"
                        onClick={() => setRemoving(p.name)}
                      >
                        {t("common.delete")}
                      </Button>
                    ) : null}
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Card>
      {shownKeys ? (
        <KeysPanel
          profile={shownKeys}
          live={profiles.data?.profiles.some((x) => x.name === shownKeys && x.baseUrl !== null)}
          onCheck={() => setCheckOf(shownKeys)}
        />
      ) : null}
      <DeskLockCard />
      <AlertSettingsCard />
      <LimitsCard />
      {status.data?.sandbox ? <SandboxCard /> : null}
      <SigningTools />
      <Appearance />
      {status.data ? (
        <Text size="xs" c="dimmed">
          {t("settings.keyring", { service: status.data.keyringService })} ·{" "}
          {t("settings.version", { version: status.data.version })}
        </Text>
      ) : null}
      <ProfileForm
        editing={editing}
        opened={formOpen}
        onClose={form.close}
        focus={formFocus}
        onSaved={(p, isNew) => {
          if (isNew && p.baseUrl !== null) setOffer(p.name);
        }}
      />
      <ConventionsDrawer
        profile={conventionsOf?.profile ?? null}
        focus={conventionsOf?.focus ?? null}
        onClose={() => setConventionsOf(null)}
      />
      <ConnectionCheckModal
        profile={checkOf}
        onClose={() => setCheckOf(null)}
        onSetting={openSetting}
      />
      <ConfirmModal
        opened={removing !== null}
        onClose={() => setRemoving(null)}
        title={t("common.delete")}
        message={t("settings.removeProfile", { name: removing })}
        confirmLabel={t("common.delete")}
        color="red"
        loading={remove.isPending}
        onConfirm={() =>
          removing &&
          remove.mutate(removing, {
            onSuccess: () => setRemoving(null),
            onError: (e) => toastError(t, e),
          })
        }
      />
    </Stack>
  );
}
