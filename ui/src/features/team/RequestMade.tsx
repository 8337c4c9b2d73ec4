import { Alert, Button, Group, Stack, Text } from "@mantine/core";
import { IconChecklist } from "@tabler/icons-react";
import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";
import { locale } from "../../i18n";
import { formatMoney } from "../../lib/format";
import type { RequestView } from "../../lib/types";
import { ruleText } from "./ApprovalsPage";

/// A request a maker just made: its number, what it waits for and the rule that asks it.
export function RequestMade({ view }: { view: RequestView }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const r = view.request;
  return (
    <Alert color="blue" icon={<IconChecklist size={18} />} data-testid="request-made">
      <Stack gap="xs">
        <Text fw={600}>
          {t("approvals.made", { id: r.id })} · {formatMoney(r.total, r.currency, locale())}
        </Text>
        <Text size="sm" data-testid="request-made-state" data-state={r.state}>
          {r.state === "waiting"
            ? t("approvals.waitsFor", { count: r.approvalsNeeded })
            : t("approvals.noApprovalNeeded")}
        </Text>
        <Text size="sm" c="dimmed">
          {ruleText(t, view.rule, view)}
        </Text>
        <Group>
          <Button size="xs" variant="light" onClick={() => navigate("/approvals")}>
            {t("approvals.open")}
          </Button>
        </Group>
      </Stack>
    </Alert>
  );
}
