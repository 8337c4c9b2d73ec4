import { MantineProvider } from "@mantine/core";
import { Notifications } from "@mantine/notifications";
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createHashRouter, RouterProvider } from "react-router";
import { dashboardQuery } from "./features/dashboard/queries";
import { IdleLock } from "./features/team/IdleLock";
import { lockOnError } from "./features/team/lock";
import { screenRoutes } from "./screens";
import { Shell } from "./shell/Shell";
import { cssVariables, useTheme } from "./theme";

export const queryClient = new QueryClient({
  // A team desk that locked itself refuses every command: any refusal shows the lock.
  queryCache: new QueryCache({ onError: lockOnError }),
  mutationCache: new MutationCache({ onError: lockOnError }),
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
        {/* Above the shell, mounted once: the lock covers the loader too (a desk that was
            locked when the app quit opens nothing until it is unlocked), and no screen's
            re-render takes a password being typed away. */}
        <IdleLock />
      </QueryClientProvider>
    </MantineProvider>
  );
}
