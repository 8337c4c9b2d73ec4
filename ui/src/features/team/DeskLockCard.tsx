// Settings: the desk's idle lock. A single desk holding a live profile's merchant key
// locks after its idle time (on by default, 1 to 60 minutes) and unlocks with its desk
// password; a team desk's idle time is the team's.
import { Button, Card, Group, NumberInput, PasswordInput, Stack, Text, Title } from "@mantine/core";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { FormError, toastOk } from "../../components/ErrorAlert";
import { fieldError } from "../../lib/ipc";
import { useDeskLockSettings, useDeskPasswordChange, useIdleMinutesSet } from "./lockQueries";
import { useTeamStatus } from "./queries";

export function DeskLockCard() {
  const { t } = useTranslation();
  const settings = useDeskLockSettings();
  const team = useTeamStatus().data;
  const setMinutes = useIdleMinutesSet();
  const change = useDeskPasswordChange();
  const [minutes, setMinutesValue] = useState<string | number | null>(null);
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  if (team) {
    return (
      <Card withBorder data-testid="desk-lock">
        <Stack gap="xs">
          <Title order={3}>{t("lock.settingsTitle")}</Title>
          <Text size="sm" c="dimmed" data-testid="desk-lock-team">
            {t("lock.settingsTeam", { minutes: team.idleLockMinutes })}
          </Text>
        </Stack>
      </Card>
    );
  }
  const s = settings.data;
  if (!s) return null;
  return (
    <Card withBorder data-testid="desk-lock">
      <Stack>
        <Title order={3}>{t("lock.settingsTitle")}</Title>
        <Text size="sm" c="dimmed">
          {s.applies ? t("lock.settingsDesk") : t("lock.settingsNotApplies")}
        </Text>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            const m = Number(minutes ?? s.idleMinutes);
            setMinutes.mutate(m, {
              onSuccess: () => toastOk(t("lock.minutesSaved", { count: m })),
            });
          }}
        >
          <Group align="flex-end">
            <NumberInput
              label={t("lock.minutes")}
              description={t("lock.minutesHint")}
              value={minutes ?? s.idleMinutes}
              onChange={setMinutesValue}
              min={1}
              max={60}
              allowDecimal={false}
              error={fieldError(setMinutes.error, "idleMinutes")}
              data-testid="desk-lock-minutes"
            />
            <Button
              type="submit"
              variant="light"
              loading={setMinutes.isPending}
              data-testid="desk-lock-minutes-save"
            >
              {t("common.save")}
            </Button>
          </Group>
        </form>
        {s.applies && s.passwordSet ? (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              change.mutate(
                { current, password: next },
                {
                  onSuccess: () => {
                    setCurrent("");
                    setNext("");
                    toastOk(t("lock.passwordChanged"));
                  },
                },
              );
            }}
          >
            <Stack gap="xs">
              <Group align="flex-start" grow>
                <PasswordInput
                  label={t("lock.currentPassword")}
                  value={current}
                  onChange={(e) => setCurrent(e.currentTarget.value)}
                  autoComplete="current-password"
                  error={fieldError(change.error, "current")}
                  required
                  data-testid="desk-password-current"
                />
                <PasswordInput
                  label={t("lock.newDeskPassword")}
                  description={t("lock.deskPasswordHint")}
                  value={next}
                  onChange={(e) => setNext(e.currentTarget.value)}
                  autoComplete="new-password"
                  error={fieldError(change.error, "password")}
                  required
                  data-testid="desk-password-change"
                />
              </Group>
              <FormError error={change.error} testId="desk-password-change-error" />
              <Group>
                <Button type="submit" variant="light" loading={change.isPending}>
                  {t("lock.changePassword")}
                </Button>
              </Group>
            </Stack>
          </form>
        ) : null}
      </Stack>
    </Card>
  );
}
