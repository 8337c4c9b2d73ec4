import { useDebouncedValue } from "@mantine/hooks";
import { notifications } from "@mantine/notifications";
import { Spotlight, type SpotlightActionData, spotlight } from "@mantine/spotlight";
import { IconReceipt, IconSearch } from "@tabler/icons-react";
import type { TFunction } from "i18next";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";
import { toastError } from "../../components/ErrorAlert";
import { focusScreenSoon } from "../../components/useKeepFocus";
import { SCREENS } from "../../screens";
import { useFindOrder, usePaletteOrders } from "./queries";

export const openPalette = () => spotlight.open();

/// One action per registered screen, which opens it.
export function screenActions(t: TFunction, navigate: (path: string) => void) {
  return SCREENS.map(
    (s): SpotlightActionData => ({
      id: `screen-${s.path}`,
      label: t(s.label),
      group: t("palette.screens"),
      leftSection: <s.icon size={18} />,
      onClick: () => {
        navigate(s.path);
        focusScreenSoon();
      },
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
  const find = useFindOrder();
  const openOrder = (tradeNo: string) => navigate(`/orders?order=${encodeURIComponent(tradeNo)}`);
  // A number the cache does not hold is looked up before anything opens: an order that
  // does not exist is said not to, instead of opening and failing at the gateway.
  const lookUp = (number: string) =>
    find.mutate(number, {
      onSuccess: (tradeNo) => {
        if (tradeNo) {
          spotlight.close();
          openOrder(tradeNo);
        } else {
          notifications.show({ color: "yellow", message: t("palette.notFound", { number }) });
        }
      },
      onError: (e) => toastError(t, e),
    });

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
            label: t("palette.lookUp", { number: debounced }),
            group: t("palette.orders"),
            leftSection: <IconSearch size={18} />,
            closeSpotlightOnTrigger: false,
            onClick: () => lookUp(debounced),
          },
        ]
      : [];
  const q = query.trim().toLowerCase();
  const visibleScreens = screens.filter((a) => !q || String(a.label).toLowerCase().includes(q));

  // Enter runs the first action when none is highlighted (the orders arrive after the
  // query changes, and the highlight the palette gave then is gone): an order number
  // typed and Enter opens it.
  const first = orders[0] ?? visibleScreens[0];
  const onKeyDown = (event: React.KeyboardEvent<HTMLInputElement>) => {
    if (event.key !== "Enter" || !first) return;
    const dialog = event.currentTarget.closest("[role=dialog]") ?? document;
    if (dialog.querySelector("[data-selected]")) return;
    event.preventDefault();
    if (first.closeSpotlightOnTrigger !== false) spotlight.close();
    first.onClick?.(event as unknown as React.MouseEvent<HTMLButtonElement>);
  };

  return (
    <Spotlight
      actions={[...orders, ...visibleScreens]}
      filter={(_, actions) => actions}
      query={query}
      onQueryChange={setQuery}
      shortcut={["mod + K"]}
      // From anywhere, a text field with focus included: Ctrl+K types no letter there.
      tagsToIgnore={[]}
      triggerOnContentEditable
      nothingFound={t("palette.nothing")}
      searchProps={{
        leftSection: <IconSearch size={18} />,
        placeholder: t("palette.placeholder"),
        "aria-label": t("palette.placeholder"),
        onKeyDown,
      }}
      scrollable
      maxHeight={420}
    />
  );
}
