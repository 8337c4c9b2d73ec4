import {
  type CSSVariablesResolver,
  createTheme,
  Drawer,
  darken,
  MantineProvider,
  Modal,
  MultiSelect,
  Notification,
  Select,
  TagsInput,
} from "@mantine/core";
import { Notifications } from "@mantine/notifications";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useMemo } from "react";
import { useTranslation } from "react-i18next";
import { createHashRouter, RouterProvider } from "react-router";
import { Shell } from "./components/Shell";
import { dashboardQuery } from "./features/dashboard/queries";
import { screenRoutes } from "./screens";

// Text on tinted ("light") backgrounds is darkened until it reaches 4.5:1 (WCAG AA)
// in the light scheme; filled buttons use the ninth shade for the same reason.
const cssVariables: CSSVariablesResolver = (theme) => ({
  variables: {},
  light: {
    "--mantine-color-dimmed": "var(--mantine-color-gray-7)",
    // Field errors and red text: Mantine's red 6 reads 3.3:1 on white.
    "--mantine-color-error": "var(--mantine-color-red-9)",
    "--mantine-color-red-text": "var(--mantine-color-red-9)",
    "--mantine-primary-color-filled": "var(--mantine-color-teal-9)",
    "--mantine-primary-color-filled-hover": darken(theme.colors.teal?.[9] ?? "#087f5b", 0.1),
    ...Object.fromEntries(
      Object.entries(theme.colors).map(([name, shades]) => [
        `--mantine-color-${name}-light-color`,
        darken(shades[9] ?? "#000", name === "yellow" || name === "orange" ? 0.4 : 0.25),
      ]),
    ),
  },
  dark: {
    "--mantine-color-dimmed": "var(--mantine-color-dark-1)",
    "--mantine-primary-color-filled": "var(--mantine-color-teal-9)",
    "--mantine-primary-color-filled-hover": darken(theme.colors.teal?.[9] ?? "#087f5b", 0.1),
  },
});

/// The theme, with every close and clear button labelled in the user's language.
function useTheme() {
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

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: { retry: false, refetchOnWindowFocus: false, staleTime: 5_000 },
    mutations: { retry: false },
  },
});

// The first screen's figures are asked for at once, alongside the app's status, rather
// than after it.
if (window.location.hash === "" || window.location.hash === "#/") {
  void queryClient.prefetchQuery(dashboardQuery);
}

const router = createHashRouter([
  {
    path: "/",
    element: <Shell />,
    children: screenRoutes(),
  },
]);

export function App() {
  const theme = useTheme();
  return (
    <MantineProvider theme={theme} defaultColorScheme="auto" cssVariablesResolver={cssVariables}>
      <QueryClientProvider client={queryClient}>
        <Notifications position="bottom-right" />
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  );
}
