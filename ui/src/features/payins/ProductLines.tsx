import { ActionIcon, Button, Card, Group, Text, TextInput } from "@mantine/core";
import { IconPlus, IconTrash } from "@tabler/icons-react";
import { useTranslation } from "react-i18next";
import type { ProductLine } from "../../lib/types";
import type { FieldsProps } from "./methods";

/// The products a wallet payin lists (at least one).
export function ProductLines({
  form,
  set,
  err,
  setProduct,
}: FieldsProps & { setProduct: (i: number, k: keyof ProductLine, v: string) => void }) {
  const { t } = useTranslation();
  return (
    <Card withBorder padding="xs">
      <Group justify="space-between" mb={4}>
        <Text size="sm" fw={500}>
          {t("payins.products")}
        </Text>
        <Button
          size="compact-xs"
          variant="default"
          leftSection={<IconPlus size={12} />}
          onClick={() =>
            set("products", [
              ...form.products,
              { name: "", price: "", quantity: "1", sku: "", url: "" },
            ])
          }
        >
          {t("payins.addProduct")}
        </Button>
      </Group>
      {form.products.map((p, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: product lines have no identity but their place
        <Group key={i} grow align="flex-start" gap="xs">
          <TextInput
            label={t("payins.productName")}
            required
            value={p.name}
            onChange={(e) => setProduct(i, "name", e.currentTarget.value)}
            error={err(`products[${i}].productName`, `productInfoList[${i}].productName`)}
            data-testid={`payin-product-${i}`}
          />
          <TextInput
            label={t("payins.price")}
            placeholder={t("payins.priceHint")}
            value={p.price}
            onChange={(e) => setProduct(i, "price", e.currentTarget.value)}
            error={err(`products[${i}].price`, `productInfoList[${i}].price`)}
          />
          <TextInput
            label={t("payins.quantity")}
            value={p.quantity}
            onChange={(e) => setProduct(i, "quantity", e.currentTarget.value)}
            error={err(`products[${i}].quantity`, `productInfoList[${i}].quantity`)}
          />
          <ActionIcon
            variant="subtle"
            mt={26}
            aria-label={t("payins.removeProduct")}
            disabled={form.products.length === 1}
            onClick={() =>
              set(
                "products",
                form.products.filter((_, j) => j !== i),
              )
            }
            style={{ flex: "0 0 auto" }}
          >
            <IconTrash size={16} />
          </ActionIcon>
        </Group>
      ))}
      {err("products", "productInfoList") &&
        !form.products.some((_, i) => err(`products[${i}]`, `productInfoList[${i}]`)) && (
          <Text c="red" size="sm">
            {err("products", "productInfoList")}
          </Text>
        )}
    </Card>
  );
}
