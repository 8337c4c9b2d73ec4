import {
  Alert,
  Button,
  Group,
  NumberInput,
  PasswordInput,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { IconDatabaseCog, IconPlugConnected } from "@tabler/icons-react";
import { useTranslation } from "react-i18next";
import { ErrorAlert } from "../../components/ErrorAlert";
import { fieldOf } from "../../lib/ipc";
import type { PgConfig } from "../../lib/types";
import { useTeamInit, useTeamTest } from "../team/queries";

export const NEW_TEAM: PgConfig = { host: "", port: 5432, database: "paydesk", user: "" };

/// A profile's team database: where it is, the member's user, the password (kept in the
/// keyring when the profile is saved; never shown again), and a connection test that
/// says who the database says the member is.
export function TeamFields({
  profile,
  team,
  setTeam,
  password,
  setPassword,
  err,
}: {
  profile: string;
  team: PgConfig | undefined;
  setTeam: (t: PgConfig | undefined, field: string) => void;
  password: string;
  setPassword: (p: string) => void;
  err: (field: string) => string | undefined;
}) {
  const { t } = useTranslation();
  const test = useTeamTest();
  const init = useTeamInit();
  const probe = test.data;
  const testField = fieldOf(test.error)?.field;
  const set = (k: keyof PgConfig, v: string | number) => {
    test.reset();
    init.reset();
    if (team) setTeam({ ...team, [k]: v }, `team.${k}`);
  };
  return (
    <Stack gap="sm" data-testid="profile-team">
      <Title order={3} size="h5">
        {t("settings.team.title")}
      </Title>
      <Switch
        label={t("settings.team.enabled")}
        description={t("settings.team.enabledHint")}
        checked={!!team}
        onChange={(e) => {
          test.reset();
          setTeam(e.currentTarget.checked ? NEW_TEAM : undefined, "team");
        }}
        data-testid="profile-team-enabled"
      />
      {team ? (
        <>
          <Group grow align="flex-start">
            <TextInput
              label={t("settings.team.host")}
              value={team.host}
              onChange={(e) => set("host", e.currentTarget.value)}
              error={err("team.host")}
              required
              data-testid="profile-team-host"
            />
            <NumberInput
              label={t("settings.team.port")}
              value={team.port}
              onChange={(v) => set("port", typeof v === "number" ? v : 0)}
              error={err("team.port")}
              min={1}
              max={65535}
              allowDecimal={false}
              allowNegative={false}
              required
              data-testid="profile-team-port"
            />
          </Group>
          <Group grow align="flex-start">
            <TextInput
              label={t("settings.team.database")}
              value={team.database}
              onChange={(e) => set("database", e.currentTarget.value)}
              error={err("team.database")}
              required
              data-testid="profile-team-database"
            />
            <TextInput
              label={t("settings.team.user")}
              value={team.user}
              onChange={(e) => set("user", e.currentTarget.value)}
              error={err("team.user")}
              required
              data-testid="profile-team-user"
            />
          </Group>
          <TextInput
            label={t("settings.team.caFile")}
            description={t("settings.team.caFileHint")}
            placeholder="/etc/ssl/team-ca.pem"
            value={team.caFile ?? ""}
            onChange={(e) => set("caFile", e.currentTarget.value)}
            error={err("team.caFile")}
            data-testid="profile-team-ca-file"
          />
          <Group grow align="flex-start">
            <TextInput
              label={t("settings.team.certFile")}
              description={t("settings.team.certFileHint")}
              placeholder="/home/me/.paydesk/member.crt"
              value={team.certFile ?? ""}
              onChange={(e) => set("certFile", e.currentTarget.value)}
              error={err("team.certFile")}
              data-testid="profile-team-cert-file"
            />
            <TextInput
              label={t("settings.team.keyFile")}
              description={t("settings.team.keyFileHint")}
              placeholder="/home/me/.paydesk/member.key"
              value={team.keyFile ?? ""}
              onChange={(e) => set("keyFile", e.currentTarget.value)}
              error={err("team.keyFile")}
              data-testid="profile-team-key-file"
            />
          </Group>
          <PasswordInput
            label={t("settings.team.password")}
            description={t("settings.team.passwordHint")}
            value={password}
            onChange={(e) => {
              test.reset();
              setPassword(e.currentTarget.value);
            }}
            error={err("team.password")}
            autoComplete="new-password"
            data-testid="profile-team-password"
          />
          <Text size="xs" c="dimmed">
            {t("settings.team.tls")}
          </Text>
          <Group>
            <Button
              variant="default"
              leftSection={<IconPlugConnected size={16} />}
              loading={test.isPending}
              onClick={() => test.mutate({ profile, config: team, password })}
              data-testid="profile-team-test"
            >
              {t("settings.team.test")}
            </Button>
            <Button
              variant="subtle"
              leftSection={<IconDatabaseCog size={16} />}
              loading={init.isPending}
              onClick={() => init.mutate({ profile, config: team, password })}
              title={t("settings.team.initHint")}
              data-testid="profile-team-init"
            >
              {t("settings.team.init")}
            </Button>
          </Group>
          {init.data ? (
            <Alert color="teal" data-testid="profile-team-init-done">
              {t("settings.team.initDone", { count: init.data.applied })}
              {init.data.missingGrants.length > 0
                ? ` ${t("settings.team.initGrants", {
                    list: init.data.missingGrants.join(", "),
                    user: team.user,
                  })}`
                : null}
            </Alert>
          ) : null}
          {init.error ? (
            <div data-testid="profile-team-init-failed">
              <ErrorAlert error={init.error} title={t("settings.team.initFailed")} />
            </div>
          ) : null}
          {probe ? (
            <Alert color="teal" data-testid="profile-team-ok">
              {t("settings.team.ok", {
                user: probe.user,
                roles:
                  probe.roles.map((r) => t(`team.role.${r}`)).join(", ") ||
                  t("settings.team.noRole"),
                merNo: probe.merNo,
                version: probe.schemaVersion,
              })}{" "}
              {t(probe.tlsRequired ? "settings.team.withTls" : "settings.team.loopback")}
            </Alert>
          ) : null}
          {test.error ? (
            <div data-testid="profile-team-failed" data-field={testField}>
              <ErrorAlert error={test.error} title={t("settings.team.failed")} />
            </div>
          ) : null}
        </>
      ) : null}
    </Stack>
  );
}
