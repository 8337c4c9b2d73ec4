// Settings → Built-in sandbox (issue 32): what `paydesk sandbox --seed-orders` does for the
// sandbox it serves, for the app's own: demo orders of the last 90 days added at the
// sandbox's side; the next full sync brings them into the desk. Shown on the built-in
// sandbox profile only.
import { Button, Card, Group, NumberInput, Stack, Text, Title } from "@mantine/core";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { ErrorAlert, toastOk } from "../../components/ErrorAlert";
import { fieldError } from "../../lib/ipc";
import { useSeedSandbox } from "./sandboxQueries";

export function SandboxCard() {
  const { t } = useTranslation();
  const seed = useSeedSandbox();
  const [count, setCount] = useState<number | string>(1000);
  return (
    <Card withBorder data-testid="sandbox-card">
      <Stack>
        <Title order={3}>{t("sandboxTools.title")}</Title>
        <Text size="sm" c="dimmed">
          {t("sandboxTools.intro")}
        </Text>
        <Group align="flex-end">
          <NumberInput
            label={t("sandboxTools.count")}
            description={t("sandboxTools.countHint", { max: 100000 })}
            value={count}
            onChange={setCount}
            min={1}
            max={100000}
            allowDecimal={false}
            allowNegative={false}
            thousandSeparator
            error={fieldError(seed.error, "count")}
            data-testid="sandbox-seed-count"
          />
          <Button
            loading={seed.isPending}
            disabled={typeof count !== "number"}
            onClick={() =>
              seed.mutate(Number(count), {
                onSuccess: (n) => toastOk(t("sandboxTools.added", { count: n })),
              })
            }
            data-testid="sandbox-seed"
          >
            {t("sandboxTools.seed")}
          </Button>
        </Group>
        {seed.data !== undefined ? (
          <Text size="sm" data-testid="sandbox-seeded">
            {t("sandboxTools.added", { count: seed.data })}
          </Text>
        ) : null}
        <ErrorAlert error={seed.error} />
      </Stack>
    </Card>
  );
}
