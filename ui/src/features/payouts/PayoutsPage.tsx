import { Stack, Tabs, Title } from "@mantine/core";
import { useTranslation } from "react-i18next";
import { BulkPayouts } from "./BulkPayouts";
import { RecentPayouts } from "./RecentPayouts";
import { SinglePayout } from "./SinglePayout";

export function PayoutsPage() {
  const { t } = useTranslation();
  return (
    <Stack data-testid="screen-payouts">
      <Title order={2}>{t("payouts.title")}</Title>
      <Tabs defaultValue="card" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="card" data-testid="tab-card">
            {t("payouts.card")}
          </Tabs.Tab>
          <Tabs.Tab value="clabe" data-testid="tab-clabe">
            {t("payouts.clabeTab")}
          </Tabs.Tab>
          <Tabs.Tab value="bulk" data-testid="tab-bulk">
            {t("payouts.bulk")}
          </Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="card" pt="md">
          <SinglePayout kind="CARD" />
        </Tabs.Panel>
        <Tabs.Panel value="clabe" pt="md">
          <SinglePayout kind="CLABE" />
        </Tabs.Panel>
        <Tabs.Panel value="bulk" pt="md">
          <BulkPayouts />
        </Tabs.Panel>
      </Tabs>
      <RecentPayouts />
    </Stack>
  );
}
