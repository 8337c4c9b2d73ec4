// The UI's layers, read from its source: IPC only in a feature's hook modules, and the
// shared component kit (`components/`) free of features, so a screen's calls can be
// found in one file and a shared widget can be used by any feature.
import { describe, expect, it } from "vitest";
import { invalidates } from "./lib/invalidates";

const sources = import.meta.glob(["./**/*.{ts,tsx}", "!./**/*.test.{ts,tsx}", "!./bindings.ts"], {
  query: "?raw",
  import: "default",
  eager: true,
}) as Record<string, string>;

/// A feature's hook modules: `features/<feature>/queries.ts` or `.../<name>Queries.ts`.
function isHookModule(path: string): boolean {
  return /^\.\/features\/[^/]+\/([a-z][A-Za-z]*Queries|queries)\.ts$/.test(path);
}

/// What in `text` reaches the backend: a value import of the bindings' `commands`, an
/// import of Tauri's API (`invoke`, channels, events), a call of `commands.x(...)`.
function ipcUses(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/import\s+(type\s+)?\{([^}]*)\}\s+from\s+"[./]*bindings"/g)) {
    const names = (m[2] ?? "").split(",").map((n) => n.trim());
    if (!m[1] && names.includes("commands")) found.push("imports commands");
  }
  for (const m of text.matchAll(/import\s+(type\s+)?[^;]*?from\s+"(@tauri-apps\/api[^"]*)"/g)) {
    if (!m[1]) found.push(`imports ${m[2]}`);
  }
  for (const m of text.matchAll(/\b(commands\.[A-Za-z]+)\s*\(/g)) found.push(`calls ${m[1]}`);
  return found;
}

/// The features (or the shell) a module imports.
function featureImports(text: string): string[] {
  return [...text.matchAll(/from\s+"((?:\.\.\/)+(?:features|shell)\/[^"]*)"/g)].map(
    (m) => m[1] ?? "",
  );
}

/// Each `...Mutation("name", ...)` of a hook module with the commands its function calls:
/// the name says what the answer makes stale, so it must be a command the call makes.
function namedMutations(text: string): { name: string; calls: string[] }[] {
  const starts = [...text.matchAll(/Mutation\(\s*"(\w+)"/g)];
  return starts.map((m, i) => {
    const end = starts[i + 1]?.index ?? text.length;
    const span = text.slice(m.index, end);
    return {
      name: m[1] ?? "",
      calls: [...span.matchAll(/commands\.(\w+)\(/g)].map((c) => c[1] ?? ""),
    };
  });
}

/// The commands each plain `useMutation(...)` of a module calls (up to the next hook).
function plainMutations(text: string): string[][] {
  const starts = [...text.matchAll(/\buseMutation\(/g)];
  return starts.map((m) => {
    const rest = text.slice((m.index ?? 0) + 1);
    const next = rest.search(/\n(export )?function /);
    const span = next < 0 ? rest : rest.slice(0, next);
    return [...span.matchAll(/commands\.(\w+)\(/g)].map((c) => c[1] ?? "");
  });
}

describe("the UI's layers", () => {
  it("reads the source", () => {
    expect(Object.keys(sources).length).toBeGreaterThan(100);
    expect(Object.keys(sources)).toContain("./features/orders/queries.ts");
  });

  it("calls the backend only from a feature's hook modules", () => {
    const outside = Object.entries(sources)
      .filter(([path]) => !isHookModule(path))
      .flatMap(([path, text]) => ipcUses(text).map((u) => `${path}: ${u}`));
    expect(outside).toEqual([]);
  });

  it("keeps the component kit free of features", () => {
    const imports = Object.entries(sources)
      .filter(([path]) => path.startsWith("./components/"))
      .flatMap(([path, text]) => featureImports(text).map((i) => `${path}: ${i}`));
    expect(imports).toEqual([]);
  });

  it("names, for each mutation's refresh, a command the mutation calls", () => {
    const named = Object.entries(sources)
      .filter(([path]) => isHookModule(path))
      .flatMap(([path, text]) => namedMutations(text).map((m) => ({ path, ...m })));
    expect(named.length).toBeGreaterThan(30);
    const wrong = named.filter((m) => !m.calls.includes(m.name));
    expect(wrong).toEqual([]);
  });

  it("leaves no command that declares stale caches to a mutation that refreshes none", () => {
    const declared = invalidates as Record<string, readonly string[]>;
    const silent = Object.entries(sources)
      .filter(([path]) => isHookModule(path))
      .flatMap(([path, text]) =>
        plainMutations(text)
          .flat()
          .filter((c) => (declared[c]?.length ?? 0) > 0)
          .map((c) => `${path}: ${c}`),
      );
    expect(silent).toEqual([]);
  });

  // The checks above pass on clean code; these show they catch what they are for.
  it("catches IPC and feature imports where they do not belong", () => {
    expect(ipcUses('import { commands } from "../bindings";')).toEqual(["imports commands"]);
    expect(ipcUses('import { type Entry, commands } from "../../bindings";')).toEqual([
      "imports commands",
    ]);
    expect(ipcUses('import type { commands } from "../bindings";')).toEqual([]);
    expect(ipcUses('import { invoke } from "@tauri-apps/api/core";')).toEqual([
      "imports @tauri-apps/api/core",
    ]);
    expect(ipcUses("void commands.sessionLock();")).toEqual(["calls commands.sessionLock"]);
    expect(featureImports('import { useAppStatus } from "../features/app/queries";')).toEqual([
      "../features/app/queries",
    ]);
    expect(
      namedMutations(
        'useCommandMutation("filterSave", () => unwrap(commands.filterDelete(n)));\n' +
          'useMoneyMutation("payoutCreate", (v) => unwrap(commands.payoutCreate(v)));',
      ),
    ).toEqual([
      { name: "filterSave", calls: ["filterDelete"] },
      { name: "payoutCreate", calls: ["payoutCreate"] },
    ]);
    expect(
      plainMutations(
        "function a() {\n  return useMutation({ mutationFn: () => unwrap(commands.filterSave(x)) });\n}\n" +
          "function b() {\n  return useQuery({ queryFn: () => unwrap(commands.orderDetail(x)) });\n}\n",
      ),
    ).toEqual([["filterSave"]]);
    expect(isHookModule("./features/team/adminQueries.ts")).toBe(true);
    expect(isHookModule("./features/reports/ReportsPage.tsx")).toBe(false);
    expect(isHookModule("./components/queries.ts")).toBe(false);
  });
});
