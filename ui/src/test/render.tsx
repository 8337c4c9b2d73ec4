import { MantineProvider } from "@mantine/core";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render, renderHook } from "@testing-library/react";
import type { ReactNode } from "react";
import "../i18n";

export function wrapper() {
  const client = new QueryClient({
    defaultOptions: { queries: { retry: false }, mutations: { retry: false } },
  });
  return ({ children }: { children: ReactNode }) => (
    <MantineProvider>
      <QueryClientProvider client={client}>{children}</QueryClientProvider>
    </MantineProvider>
  );
}

export function renderUi(ui: ReactNode) {
  return render(ui, { wrapper: wrapper() });
}

export function renderQueryHook<T>(hook: () => T) {
  return renderHook(hook, { wrapper: wrapper() });
}
