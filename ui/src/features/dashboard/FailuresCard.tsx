// The Dashboard's compact "why money did not come in": the last 7 days' success rate
// against the 7 days before, and the three reasons with the most orders; each count
// opens its orders, the rest is in Reports.
import { Button, Card, Group, Stack, Text, Title } from "@mantine/core";
import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";
import { ErrorAlert } from "../../components/ErrorAlert";
import { RateSummary, ReasonTable } from "../reports/Failures";
import { useRecentFailures } from "../reports/failureQueries";

export function FailuresCard() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const q = useRecentFailures();
  if (q.error) return <ErrorAlert error={q.error} />;
  const r = q.data;
  if (!r) return null;
  return (
    <Card withBorder data-testid="dashboard-failures">
      <Stack gap="xs">
        <Group justify="space-between">
          <Title order={3} size="h4">
            {t("failures.dashboardTitle")}
          </Title>
          <Button variant="subtle" size="compact-sm" onClick={() => navigate("/reports")}>
            {t("failures.inReports")}
          </Button>
        </Group>
        <Text size="xs" c="dimmed">
          {t("failures.days", {
            from: r.current.firstDay,
            to: r.current.lastDay,
            previousFrom: r.previous.firstDay,
            previousTo: r.previous.lastDay,
            zone: r.timeZone,
          })}{" "}
          · {t("failures.definitionShort")}
        </Text>
        <RateSummary report={r} />
        <ReasonTable current={r.current} previous={r.previous} limit={3} />
      </Stack>
    </Card>
  );
}
