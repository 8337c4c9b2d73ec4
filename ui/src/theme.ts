import {
  Badge,
  type CSSVariablesResolver,
  createTheme,
  Drawer,
  darken,
  Modal,
  MultiSelect,
  Notification,
  Select,
  TagsInput,
} from "@mantine/core";
import { useMemo } from "react";
import { useTranslation } from "react-i18next";

// Text on tinted ("light") backgrounds is darkened until it reaches 4.5:1 (WCAG AA)
// in the light scheme; filled buttons use the ninth shade for the same reason. Disabled
// buttons stay readable (4.5:1) in both schemes: Mantine's grey on grey reads under 2.6:1.
export const cssVariables: CSSVariablesResolver = (theme) => ({
  variables: {},
  light: {
    "--mantine-color-dimmed": "var(--mantine-color-gray-7)",
    // Field errors and red text: Mantine's red 6 reads 3.3:1 on white.
    "--mantine-color-error": "var(--mantine-color-red-9)",
    "--mantine-color-red-text": "var(--mantine-color-red-9)",
    "--mantine-primary-color-filled": "var(--mantine-color-teal-9)",
    "--mantine-primary-color-filled-hover": darken(theme.colors.teal?.[9] ?? "#087f5b", 0.1),
    "--mantine-color-disabled-color": "var(--mantine-color-gray-7)",
    ...Object.fromEntries(
      Object.entries(theme.colors).map(([name, shades]) => [
        `--mantine-color-${name}-light-color`,
        darken(shades[9] ?? "#000", name === "yellow" || name === "orange" ? 0.4 : 0.25),
      ]),
    ),
  },
  dark: {
    "--mantine-color-dimmed": "var(--mantine-color-dark-1)",
    // Field errors: Mantine's dark default (red 8, #e03131) reads 3.2:1 on a dark
    // input (#2e2e2e); red 4 reads above 5.5:1 there and on the page.
    "--mantine-color-error": "var(--mantine-color-red-4)",
    "--mantine-primary-color-filled": "var(--mantine-color-teal-9)",
    "--mantine-primary-color-filled-hover": darken(theme.colors.teal?.[9] ?? "#087f5b", 0.1),
    // A danger button that is not filled (subtle, light) is red text: Mantine's dark
    // scheme draws it in red 0, all but white, so it no longer reads as danger.
    "--mantine-color-red-light-color": "var(--mantine-color-red-4)",
    "--mantine-color-disabled-color": "var(--mantine-color-dark-1)",
  },
});

/// The theme, with every close and clear button labelled in the user's language.
export function useTheme() {
  const { t } = useTranslation();
  return useMemo(() => {
    const close = { "aria-label": t("common.close") };
    const clear = { clearButtonProps: { "aria-label": t("common.clear") } };
    return createTheme({
      primaryColor: "teal",
      primaryShade: 9,
      autoContrast: true,
      defaultRadius: "sm",
      fontFamily:
        "system-ui, -apple-system, 'Segoe UI', 'Noto Sans', 'Noto Sans CJK SC', sans-serif",
      components: {
        // A badge is as wide as its word: in a squeezed table column Mantine lets it
        // shrink and cuts its label to an ellipsis ("已…" for both 已受理 and 已拒绝).
        Badge: Badge.extend({ styles: { root: { minWidth: "max-content" } } }),
        Modal: Modal.extend({ defaultProps: { closeButtonProps: close } }),
        Drawer: Drawer.extend({ defaultProps: { closeButtonProps: close } }),
        Notification: Notification.extend({ defaultProps: { closeButtonProps: close } }),
        Select: Select.extend({ defaultProps: clear }),
        MultiSelect: MultiSelect.extend({ defaultProps: clear }),
        TagsInput: TagsInput.extend({ defaultProps: clear }),
      },
    });
  }, [t]);
}
