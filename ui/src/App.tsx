import { createTheme, MantineProvider } from "@mantine/core";
import { DatesProvider } from "@mantine/dates";
import { Notifications } from "@mantine/notifications";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import "dayjs/locale/zh-cn";
import { useTranslation } from "react-i18next";
import { createHashRouter, RouterProvider } from "react-router";
import { Shell } from "./components/Shell";
import { BalancesPage } from "./features/balances/BalancesPage";
import { DashboardPage } from "./features/dashboard/DashboardPage";
import { OrdersPage } from "./features/orders/OrdersPage";
import { SettingsPage } from "./features/settings/SettingsPage";

const theme = createTheme({
  primaryColor: "teal",
  defaultRadius: "sm",
  fontFamily: "system-ui, -apple-system, 'Segoe UI', 'Noto Sans', 'Noto Sans CJK SC', sans-serif",
});

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: { retry: false, refetchOnWindowFocus: false, staleTime: 5_000 },
    mutations: { retry: false },
  },
});

const router = createHashRouter([
  {
    path: "/",
    element: <Shell />,
    children: [
      { index: true, element: <DashboardPage /> },
      { path: "orders", element: <OrdersPage /> },
      { path: "balances", element: <BalancesPage /> },
      { path: "settings", element: <SettingsPage /> },
    ],
  },
]);

export function App() {
  const { i18n } = useTranslation();
  return (
    <MantineProvider theme={theme} defaultColorScheme="auto">
      <DatesProvider settings={{ locale: i18n.language === "zh" ? "zh-cn" : "en" }}>
        <QueryClientProvider client={queryClient}>
          <Notifications position="bottom-right" />
          <RouterProvider router={router} />
        </QueryClientProvider>
      </DatesProvider>
    </MantineProvider>
  );
}
