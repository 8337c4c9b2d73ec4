// The Team screen: each member's payout limits per currency (issue 35). The database
// refuses a member's payout request rows beyond them, whoever writes them; an admin sets
// them here (or with `paydesk team limits set`), everyone else reads them.
import { Button, Card, Group, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { ErrorAlert, FormError, toastOk } from "../../components/ErrorAlert";
import { fieldError } from "../../lib/ipc";
import type { TeamStatus } from "../../lib/types";
import { useMemberLimitSet, useMemberLimits } from "./memberLimitsQueries";

export function MemberLimitsCard({ team }: { team: TeamStatus }) {
  const { t } = useTranslation();
  const limits = useMemberLimits();
  const set = useMemberLimitSet();
  const admin = team.roles.includes("admin");
  const [member, setMember] = useState("");
  const [currency, setCurrency] = useState("MXN");
  const [perPayout, setPerPayout] = useState("");
  const [perDay, setPerDay] = useState("");
  const [dayZone, setDayZone] = useState("UTC");
  const list = limits.data ?? [];
  const none = t("funds.noLimit");
  return (
    <Card withBorder data-testid="member-limits">
      <Stack>
        <Title order={3}>{t("funds.teamTitle")}</Title>
        <Text size="sm" c="dimmed">
          {t("funds.teamHint")}
        </Text>
        <ErrorAlert error={limits.error} />
        {list.length > 0 ? (
          <Table data-testid="member-limits-table">
            <Table.Tbody>
              {list.map((l) => (
                <Table.Tr key={`${l.member}-${l.currency}`}>
                  <Table.Td>{l.member}</Table.Td>
                  <Table.Td>
                    {t("funds.teamLine", {
                      currency: l.currency,
                      perPayout: l.perPayout ?? none,
                      perDay: l.perDay ?? none,
                      zone: l.dayZone,
                    })}
                  </Table.Td>
                  <Table.Td>
                    <Text size="xs" c="dimmed">
                      {t("teamAdmin.setBy", { name: l.setBy })}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        ) : limits.isSuccess ? (
          <Text size="sm" c="dimmed">
            {t("funds.teamNone")}
          </Text>
        ) : null}
        {admin ? (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              set.mutate(
                {
                  member,
                  currency,
                  perPayout: perPayout.trim() || null,
                  perDay: perDay.trim() || null,
                  dayZone,
                  setBy: "",
                },
                { onSuccess: () => toastOk(t("funds.saved")) },
              );
            }}
          >
            <Group align="flex-end">
              <TextInput
                label={t("funds.member")}
                value={member}
                onChange={(e) => setMember(e.currentTarget.value)}
                error={fieldError(set.error, "member")}
              />
              <TextInput
                label={t("funds.currency")}
                value={currency}
                maxLength={3}
                w={90}
                onChange={(e) => setCurrency(e.currentTarget.value.toUpperCase())}
                error={fieldError(set.error, "limits.0.currency")}
              />
              <TextInput
                label={t("funds.perPayout")}
                value={perPayout}
                inputMode="decimal"
                onChange={(e) => setPerPayout(e.currentTarget.value)}
                error={fieldError(set.error, "limits.0.perPayout")}
              />
              <TextInput
                label={t("funds.perDay")}
                value={perDay}
                inputMode="decimal"
                onChange={(e) => setPerDay(e.currentTarget.value)}
                error={fieldError(set.error, "limits.0.perDay")}
              />
              <TextInput
                label={t("funds.dayZone")}
                value={dayZone}
                onChange={(e) => setDayZone(e.currentTarget.value)}
                error={fieldError(set.error, "dayZone")}
              />
              <Button type="submit" loading={set.isPending} disabled={!member.trim()}>
                {t("funds.save")}
              </Button>
            </Group>
            <FormError error={set.error} testId="member-limit-error" />
          </form>
        ) : null}
      </Stack>
    </Card>
  );
}
