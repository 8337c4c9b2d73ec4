import {
  Alert,
  Badge,
  Card,
  Group,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  Tooltip,
} from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { CopyCommand } from "../../components/CopyCommand";
import { ErrorAlert } from "../../components/ErrorAlert";
import { locale } from "../../i18n";
import { overviewCommand } from "../../lib/cliCommand";
import { formatCount, formatDateTime, formatMoney } from "../../lib/format";
import { fieldOf } from "../../lib/ipc";
import type { ConversionRate } from "../../lib/types";
import { useProfileName } from "../app/queries";
import { useOverview } from "./queries";

/// A manager's view: every profile's last balances, last sync and unknown outcomes, the
/// totals per currency (never converted unless the user gives rates).
export function AllProfiles() {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const [target, setTarget] = useState<string | null>(null);
  const [typed, setTyped] = useState<Record<string, string>>({});
  const [debounced] = useDebouncedValue(typed, 400);
  const rates: ConversionRate[] = useMemo(
    () =>
      Object.entries(debounced)
        .filter(([c, r]) => c !== target && r.trim() !== "")
        .map(([currency, rate]) => ({ currency, rate: rate.trim() })),
    [debounced, target],
  );
  const overview = useOverview(target, rates);
  const profile = useProfileName();
  const data = overview.data;
  const currencies = data?.totals.map((x) => x.currency) ?? [];
  const invalid = fieldOf(overview.error);
  return (
    <Card withBorder data-testid="all-profiles">
      <Stack>
        <Group justify="space-between">
          <Title order={3} size="h4">
            {t("balances.all.title")}
          </Title>
          <CopyCommand
            command={profile ? overviewCommand({ profile, target, rates }) : null}
            testId="overview-command"
          />
        </Group>
        <Text size="sm" c="dimmed">
          {t("balances.all.intro")}
        </Text>
        {overview.error && !invalid ? <ErrorAlert error={overview.error} /> : null}
        {data ? (
          <Table striped data-testid="all-profiles-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t("balances.all.profile")}</Table.Th>
                <Table.Th>{t("balances.all.balances")}</Table.Th>
                <Table.Th>{t("balances.all.lastSync")}</Table.Th>
                <Table.Th ta="right">{t("balances.all.unknown")}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data.profiles.map((p) => (
                <Table.Tr key={p.profile} data-testid="all-profiles-row" data-profile={p.profile}>
                  <Table.Td>
                    <Group gap={6}>
                      <Text size="sm" fw={600}>
                        {p.profile}
                      </Text>
                      <Text size="xs" c="dimmed">
                        {t("app.merchant", { merNo: p.merNo })}
                      </Text>
                      {p.sandbox ? (
                        <Badge size="xs" color="orange" variant="light">
                          {t("app.sandbox")}
                        </Badge>
                      ) : null}
                      {p.team ? (
                        <Badge size="xs" variant="outline">
                          {t("balances.all.team")}
                        </Badge>
                      ) : null}
                    </Group>
                  </Table.Td>
                  <Table.Td>
                    {p.error ? (
                      <Text size="sm" c="red">
                        {t("balances.all.unreadable", { why: p.error })}
                      </Text>
                    ) : p.neverOpened ? (
                      <Text size="sm" c="dimmed">
                        {t("balances.all.neverOpened")}
                      </Text>
                    ) : p.balances.length === 0 ? (
                      <Text size="sm" c="dimmed">
                        {t("balances.all.noSnapshot")}
                      </Text>
                    ) : (
                      <Stack gap={0}>
                        {p.balances.map((b) => (
                          <Tooltip
                            key={b.currency}
                            label={t("balances.all.takenAt", {
                              at: formatDateTime(b.takenAt, loc),
                            })}
                          >
                            <Text size="sm" ff="monospace">
                              {formatMoney(b.totalBalance, b.currency, loc)}
                            </Text>
                          </Tooltip>
                        ))}
                      </Stack>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">
                      {p.lastSync === null
                        ? t("balances.all.neverSynced")
                        : formatDateTime(p.lastSync, loc)}
                    </Text>
                  </Table.Td>
                  <Table.Td ta="right">
                    <Text size="sm" c={p.unknownOutcomes > 0 ? "orange" : undefined}>
                      {formatCount(p.unknownOutcomes, loc)}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        ) : null}
        {data?.profiles.some((p) => p.sandbox) ? (
          <Text size="sm" c="dimmed" data-testid="all-profiles-no-sandbox">
            {t("balances.all.noSandbox")}
          </Text>
        ) : null}
        {data && data.totals.length > 0 ? (
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            <Table data-testid="all-profiles-totals">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t("balances.currency")}</Table.Th>
                  <Table.Th ta="right">{t("balances.all.total")}</Table.Th>
                  <Table.Th ta="right">{t("balances.all.profiles")}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {data.totals.map((x) => (
                  <Table.Tr
                    key={x.currency}
                    data-testid="all-profiles-total"
                    data-currency={x.currency}
                  >
                    <Table.Td>{x.currency}</Table.Td>
                    <Table.Td ta="right">
                      <Tooltip
                        label={t("balances.all.oldest", { at: formatDateTime(x.oldest, loc) })}
                      >
                        <Text size="sm" ff="monospace">
                          {formatMoney(x.totalBalance, x.currency, loc)}
                        </Text>
                      </Tooltip>
                    </Table.Td>
                    <Table.Td ta="right">{formatCount(x.profiles, loc)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
            <Stack gap="xs">
              <Select
                label={t("balances.all.convertTo")}
                description={t("balances.all.convertHint")}
                placeholder={t("balances.all.noConversion")}
                data={currencies}
                value={target}
                onChange={setTarget}
                clearable
                data-testid="all-profiles-target"
              />
              {target
                ? currencies
                    .filter((c) => c !== target)
                    .map((c) => (
                      <TextInput
                        key={c}
                        label={t("balances.all.rate", { from: c, to: target })}
                        inputMode="decimal"
                        value={typed[c] ?? ""}
                        onChange={(e) => {
                          const v = e.currentTarget.value;
                          setTyped((r) => ({ ...r, [c]: v }));
                        }}
                        error={invalid?.field === "rate" ? invalid.rule : undefined}
                        data-testid={`rate-${c}`}
                      />
                    ))
                : null}
              {data.converted ? (
                <Alert color="blue" data-testid="all-profiles-converted">
                  {t("balances.all.converted", {
                    amount: formatMoney(data.converted.totalBalance, data.converted.currency, loc),
                  })}
                  {data.converted.missing.length > 0
                    ? ` ${t("balances.all.missing", { currencies: data.converted.missing.join(", ") })}`
                    : ""}
                </Alert>
              ) : null}
            </Stack>
          </SimpleGrid>
        ) : null}
      </Stack>
    </Card>
  );
}
