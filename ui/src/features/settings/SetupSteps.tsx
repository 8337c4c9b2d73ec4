import { Button, Card, Checkbox, Group, List, Stack, Text, ThemeIcon, Title } from "@mantine/core";
import { IconCheck } from "@tabler/icons-react";
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { useKeys } from "./queries";
import { useSetupState } from "./setupQueries";

/// The steps that connect a live gateway, in order, each ticked once done: the key pair,
/// the public key given to the gateway, the gateway's key, the token, the connection
/// check. What is next is always the first one without a tick.
export function SetupSteps({ profile, onCheck }: { profile: string; onCheck: () => void }) {
  const { t } = useTranslation();
  const keys = useKeys(profile);
  const [setup, setSetup] = useSetupState(profile);
  const merchant = keys.data?.merchant ?? null;
  const given = !!merchant && setup.publicKeyGiven === merchant.fingerprint;
  const steps: { id: string; done: boolean; label: string; extra?: ReactNode }[] = [
    { id: "key", done: !!merchant, label: t("flows.setup.stepKey") },
    {
      id: "public-key",
      done: given,
      label: t("flows.setup.stepPublicKey"),
      extra: merchant ? (
        <Checkbox
          size="xs"
          mt={4}
          label={t("flows.setup.stepPublicKeyDone")}
          checked={given}
          onChange={(e) => {
            const checked = e.currentTarget.checked;
            setSetup((s) => ({
              ...s,
              publicKeyGiven: checked ? merchant.fingerprint : null,
            }));
          }}
          data-testid="setup-public-key-given"
        />
      ) : (
        <Text size="xs" c="dimmed">
          {t("flows.setup.stepPublicKeyHint")}
        </Text>
      ),
    },
    { id: "gateway-key", done: !!keys.data?.gateway, label: t("flows.setup.stepGatewayKey") },
    { id: "token", done: !!keys.data?.hasToken, label: t("flows.setup.stepToken") },
    {
      id: "check",
      done: setup.checkPassed === true,
      label: t("flows.setup.stepCheck"),
      extra: (
        <Button
          size="compact-xs"
          variant="light"
          mt={4}
          w="fit-content"
          onClick={onCheck}
          data-testid="setup-run-check"
        >
          {t("check.button")}
        </Button>
      ),
    },
  ];
  const next = steps.findIndex((s) => !s.done);
  return (
    <Card withBorder data-testid="setup-steps" data-next={next === -1 ? "done" : steps[next]?.id}>
      <Title order={3} size="h5" mb="xs">
        {t("flows.setup.steps")}
      </Title>
      <List spacing="xs" listStyleType="none">
        {steps.map((s, i) => (
          <List.Item
            key={s.id}
            data-testid={`setup-step-${s.id}`}
            data-done={s.done}
            icon={
              <ThemeIcon
                size={22}
                radius="xl"
                color={s.done ? "teal" : i === next ? "blue" : "gray"}
                variant={s.done ? "filled" : "light"}
                aria-label={s.done ? t("common.done") : undefined}
              >
                {s.done ? <IconCheck size={14} /> : <Text size="xs">{i + 1}</Text>}
              </ThemeIcon>
            }
          >
            <Stack gap={0}>
              <Group gap="xs">
                <Text size="sm" fw={i === next ? 600 : 400}>
                  {s.label}
                </Text>
              </Group>
              {s.extra}
            </Stack>
          </List.Item>
        ))}
      </List>
    </Card>
  );
}
