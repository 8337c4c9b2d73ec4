// What a command's answer refreshes comes from the one table of commands
// (`src-tauri/src/registry.rs` → `invalidates.ts`), and names real query keys.
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, renderHook, waitFor } from "@testing-library/react";
import type { ReactNode } from "react";
import { describe, expect, it } from "vitest";
import { commands } from "../bindings";
import { useCommandMutation } from "./invalidate";
import { type CommandName, invalidates } from "./invalidates";

/// Every feature's query key roots, read from its `keys.ts` (and the lock's hooks).
const keyModules = import.meta.glob(["../features/*/keys.ts", "../features/team/lockQueries.ts"], {
  eager: true,
}) as Record<string, Record<string, unknown>>;
const roots = new Set(
  Object.values(keyModules).flatMap((m) =>
    Object.values(m).flatMap((v) => {
      const all = (v as { all?: unknown } | null)?.all;
      return Array.isArray(all) && typeof all[0] === "string" ? [all[0]] : [];
    }),
  ),
);

function client() {
  return new QueryClient({
    defaultOptions: { queries: { retry: false }, mutations: { retry: false } },
  });
}

/// Queries of several features, each fresh, in `qc`.
function seed(qc: QueryClient) {
  const keys = [
    ["orders", "page", {}, 0],
    ["views", "list", "orders"],
    ["journal", "list", []],
    ["dashboard"],
    ["balances", "latest"],
    ["settings", "profiles"],
    ["team", "status"],
  ];
  for (const k of keys) qc.setQueryData(k, 1);
  return keys;
}

function stale(qc: QueryClient) {
  return qc
    .getQueryCache()
    .getAll()
    .filter((q) => q.state.isInvalidated)
    .map((q) => JSON.stringify(q.queryKey))
    .sort();
}

function run(command: CommandName, outcome: "ok" | "fail", evenOnError = false) {
  const qc = client();
  seed(qc);
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={qc}>{children}</QueryClientProvider>
  );
  const { result } = renderHook(
    () =>
      useCommandMutation(
        command,
        () => (outcome === "ok" ? Promise.resolve(1) : Promise.reject(new Error("refused"))),
        { evenOnError },
      ),
    { wrapper },
  );
  act(() => result.current.mutate());
  return { qc, result };
}

describe("the declared invalidation", () => {
  it("has an entry for every command of the bindings, and names only known query keys", () => {
    expect(Object.keys(invalidates).sort()).toEqual(Object.keys(commands).sort());
    expect(roots.size).toBeGreaterThan(10);
    for (const [command, caches] of Object.entries(invalidates)) {
      for (const c of caches as readonly string[]) {
        if (c === "*") continue;
        expect(roots, `${command}: ${c}`).toContain(c.split(".")[0]);
      }
    }
  });

  it("refreshes after a payout the lists that show money, and not the settings", () => {
    const caches: readonly string[] = invalidates.payoutCreate;
    for (const c of ["journal", "orders", "dashboard", "cards"]) expect(caches).toContain(c);
    expect(caches).not.toContain("settings");
    expect(caches).not.toContain("*");
  });

  it("refreshes what a succeeded command declares, and only that", async () => {
    const { qc, result } = run("viewSave", "ok");
    await waitFor(() => expect(result.current.isSuccess).toBe(true));
    expect(stale(qc)).toEqual([JSON.stringify(["views", "list", "orders"])]);
  });

  it("refreshes every query after a profile switch", async () => {
    const { qc, result } = run("profileSwitch", "ok");
    await waitFor(() => expect(result.current.isSuccess).toBe(true));
    expect(stale(qc)).toHaveLength(seed(client()).length);
  });

  it("refreshes nothing after a refusal, unless told the refusal changed something", async () => {
    const refused = run("sandboxSimulate", "fail");
    await waitFor(() => expect(refused.result.current.isError).toBe(true));
    expect(stale(refused.qc)).toEqual([]);

    const money = run("payoutCreate", "fail", true);
    await waitFor(() => expect(money.result.current.isError).toBe(true));
    await waitFor(() =>
      expect(stale(money.qc)).toEqual(
        [["dashboard"], ["journal", "list", []], ["orders", "page", {}, 0]]
          .map((k) => JSON.stringify(k))
          .sort(),
      ),
    );
  });
});
