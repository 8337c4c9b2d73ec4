import { Card, Table, Text, Title } from "@mantine/core";
import { useTranslation } from "react-i18next";
import { useOrderCustomer } from "./queries";

/// The customer an order this desk made was for (its payer, or a card payout's
/// beneficiary), as the request it sent named them; nothing for an order only listed.
export function OrderCustomer({ tradeNo }: { tradeNo: string }) {
  const { t } = useTranslation();
  const q = useOrderCustomer(tradeNo);
  const c = q.data;
  if (!c) return null;
  const rows: [string, string | null][] = [
    [t("flows.customer.name"), c.name],
    [t("flows.customer.email"), c.email],
    [t("flows.customer.userId"), c.userId],
  ];
  return (
    <Card withBorder data-testid="order-customer">
      <Title order={3} size="h5" mb="xs">
        {t("flows.customer.title")}
      </Title>
      <Table>
        <Table.Tbody>
          {rows
            .filter(([, v]) => v)
            .map(([k, v]) => (
              <Table.Tr key={k}>
                <Table.Th w={180}>{k}</Table.Th>
                <Table.Td>{v}</Table.Td>
              </Table.Tr>
            ))}
        </Table.Tbody>
      </Table>
      <Text size="xs" c="dimmed" mt="xs">
        {t("flows.customer.source")}
      </Text>
    </Card>
  );
}
