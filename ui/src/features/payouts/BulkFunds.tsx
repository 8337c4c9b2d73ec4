// Checked before it leaves (issue 35): a bulk plan's balance per currency against what
// goes (amounts plus the fees this desk knows), what is left, and how many rows are held
// beyond the balance (those rows say so in the list).
import { Alert, Stack, Text } from "@mantine/core";
import { useTranslation } from "react-i18next";
import { locale } from "../../i18n";
import { formatMoney } from "../../lib/format";
import type { BulkPlan } from "../../lib/types";

export function BulkFunds({ plan }: { plan: BulkPlan }) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  if (plan.funds.length === 0) return null;
  const short = plan.funds.some((f) => f.heldBeyondBalance > 0);
  return (
    <Alert
      color={short ? "yellow" : "gray"}
      variant="light"
      my="xs"
      title={t("funds.planTitle")}
      data-testid="bulk-funds"
    >
      <Stack gap={2}>
        {plan.funds.map((f) => {
          const m = (v: string | null) => formatMoney(v, f.currency, loc);
          const fees = f.feeKnown ? "" : ` (${t("funds.planFeesUnknown")})`;
          return (
            <Text
              size="sm"
              key={f.currency}
              data-testid={`bulk-funds-${f.currency}`}
              data-held={f.heldBeyondBalance}
            >
              {f.balance === null
                ? t("funds.planNoBalance", { currency: f.currency, total: m(f.total) }) + fees
                : `${t("funds.planLine", {
                    currency: f.currency,
                    total: m(f.total),
                    balance: m(f.balance),
                    left: m(f.left),
                    count: f.heldBeyondBalance,
                  })}${fees}${
                    f.fresh || f.ageSecs === null
                      ? ""
                      : ` · ${t("funds.age", { count: Math.floor(f.ageSecs / 60) })}`
                  }`}
            </Text>
          );
        })}
      </Stack>
    </Alert>
  );
}
