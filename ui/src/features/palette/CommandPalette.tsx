import { useDebouncedValue } from "@mantine/hooks";
import { Spotlight, type SpotlightActionData, spotlight } from "@mantine/spotlight";
import { IconReceipt, IconSearch } from "@tabler/icons-react";
import type { TFunction } from "i18next";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";
import { SCREENS } from "../../screens";
import { usePaletteOrders } from "./queries";

export const openPalette = () => spotlight.open();

/// One action per registered screen, which opens it.
export function screenActions(t: TFunction, navigate: (path: string) => void) {
  return SCREENS.map(
    (s): SpotlightActionData => ({
      id: `screen-${s.path}`,
      label: t(s.label),
      group: t("palette.screens"),
      leftSection: <s.icon size={18} />,
      onClick: () => navigate(s.path),
    }),
  );
}

/// Ctrl/Cmd+K: jump to a screen, or open an order by (a fragment of) its number.
export function CommandPalette() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [query, setQuery] = useState("");
  const [debounced] = useDebouncedValue(query.trim(), 150);
  const matches = usePaletteOrders(debounced);
  const openOrder = (tradeNo: string) => navigate(`/orders?order=${encodeURIComponent(tradeNo)}`);

  const screens = screenActions(t, navigate);
  const orders: SpotlightActionData[] =
    debounced.length >= 3
      ? [
          ...(matches.data?.rows ?? []).map((o) => ({
            id: `order-${o.tradeNo}`,
            label: o.tradeNo,
            description: o.merOrderNo,
            group: t("palette.orders"),
            leftSection: <IconReceipt size={18} />,
            onClick: () => openOrder(o.tradeNo),
          })),
          {
            id: "open-typed",
            label: t("palette.openOrder", { tradeNo: debounced }),
            group: t("palette.orders"),
            leftSection: <IconSearch size={18} />,
            onClick: () => openOrder(debounced),
          },
        ]
      : [];
  const q = query.trim().toLowerCase();
  const visibleScreens = screens.filter((a) => !q || String(a.label).toLowerCase().includes(q));

  return (
    <Spotlight
      actions={[...visibleScreens, ...orders]}
      filter={(_, actions) => actions}
      query={query}
      onQueryChange={setQuery}
      shortcut={["mod + K"]}
      nothingFound={t("palette.nothing")}
      searchProps={{
        leftSection: <IconSearch size={18} />,
        placeholder: t("palette.placeholder"),
        "aria-label": t("palette.placeholder"),
      }}
      scrollable
      maxHeight={420}
    />
  );
}
