import { Anchor, Card, Table, Title } from "@mantine/core";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { ErrorAlert } from "../../components/ErrorAlert";
import { locale } from "../../i18n";
import { formatDateTimeShort } from "../../lib/format";
import { entrySummary } from "../../lib/summary";
import type { Entry } from "../../lib/types";
import { EntryDrawer } from "../money/EntryDrawer";
import { useJournalList } from "../money/queries";
import { JournalBadge } from "../money/ReceiptView";

/// The payouts this desk sent lately, as the journal has them.
export function RecentPayouts() {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const list = useJournalList(["v2.payout", "v1.payout"]);
  const [open, setOpen] = useState<Entry | null>(null);
  return (
    <Card withBorder>
      <Title order={4} mb="xs">
        {t("payouts.recent")}
      </Title>
      {list.error && <ErrorAlert error={list.error} />}
      <Table.ScrollContainer minWidth={600}>
        <Table data-testid="payout-journal">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t("payouts.when")}</Table.Th>
              <Table.Th>{t("payouts.status")}</Table.Th>
              <Table.Th>{t("payouts.summary")}</Table.Th>
              <Table.Th>{t("payouts.merOrderNo")}</Table.Th>
              <Table.Th>{t("receipt.tradeNo")}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {(list.data ?? []).map((e) => (
              <Table.Tr
                key={e.id}
                data-mer-order-no={e.merOrderNo}
                data-testid="journal-row"
                style={{ cursor: "pointer" }}
                onClick={() => setOpen(e)}
              >
                <Table.Td>{formatDateTimeShort(e.updatedAt, loc)}</Table.Td>
                <Table.Td>
                  <JournalBadge status={e.status} />
                </Table.Td>
                <Table.Td>{entrySummary(e, t, loc)}</Table.Td>
                <Table.Td>
                  <Anchor
                    component="button"
                    type="button"
                    size="sm"
                    onClick={(ev) => {
                      ev.stopPropagation();
                      setOpen(e);
                    }}
                    data-testid="journal-open"
                  >
                    {e.merOrderNo}
                  </Anchor>
                </Table.Td>
                <Table.Td>{e.tradeNo ?? ""}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <EntryDrawer entry={open} onClose={() => setOpen(null)} />
    </Card>
  );
}
