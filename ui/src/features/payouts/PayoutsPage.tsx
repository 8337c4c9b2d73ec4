import { Stack, Tabs, Title } from "@mantine/core";
import { type Dispatch, type SetStateAction, useState } from "react";
import { useTranslation } from "react-i18next";
import { useSearchParams } from "react-router";
import type { PayoutKind } from "../../lib/types";
import { BeneficiaryBook } from "../beneficiaries/BeneficiaryBook";
import { BulkPayouts } from "./BulkPayouts";
import { blankPayout, type PayoutDraft } from "./PayoutFields";
import { RecentPayouts } from "./RecentPayouts";
import { SinglePayout } from "./SinglePayout";

/// What was typed in each tab, held by the page: a hidden tab's panel is unmounted (so
/// each field's test id names one element on screen), and its fields are not lost with it.
function useDrafts(bulkFile: string) {
  const [drafts, setDrafts] = useState<Record<PayoutKind, PayoutDraft>>(() => ({
    CARD: blankPayout("CARD"),
    CLABE: blankPayout("CLABE"),
  }));
  const [bulkPath, setBulkPath] = useState(bulkFile);
  const draft = (kind: PayoutKind) => {
    const set: Dispatch<SetStateAction<PayoutDraft>> = (next) =>
      setDrafts((d) => ({ ...d, [kind]: typeof next === "function" ? next(d[kind]) : next }));
    return [drafts[kind], set] as const;
  };
  return { draft, bulk: [bulkPath, setBulkPath] as const };
}

export function PayoutsPage() {
  const { t } = useTranslation();
  // `?bulk=<file>`: a bulk run opened from elsewhere (the Dashboard's held rows), its
  // file checked again at once.
  const [params] = useSearchParams();
  const bulkFile = params.get("bulk") ?? "";
  const { draft, bulk } = useDrafts(bulkFile);
  return (
    <Stack data-testid="screen-payouts">
      <Title order={2}>{t("payouts.title")}</Title>
      <Tabs defaultValue={bulkFile ? "bulk" : "card"} keepMounted={false}>
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
          <Tabs.Tab value="beneficiaries" data-testid="tab-beneficiaries">
            {t("beneficiaries.title")}
          </Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="card" pt="md">
          <SinglePayout kind="CARD" draft={draft("CARD")} />
        </Tabs.Panel>
        <Tabs.Panel value="clabe" pt="md">
          <SinglePayout kind="CLABE" draft={draft("CLABE")} />
        </Tabs.Panel>
        <Tabs.Panel value="bulk" pt="md">
          <BulkPayouts path={bulk} checkNow={bulkFile !== ""} />
        </Tabs.Panel>
        <Tabs.Panel value="beneficiaries" pt="md">
          <BeneficiaryBook />
        </Tabs.Panel>
      </Tabs>
      <RecentPayouts />
    </Stack>
  );
}
