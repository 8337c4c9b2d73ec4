// The bridge between the generated bindings and TanStack Query: a command's
// `{status: "error", error}` becomes a thrown `IpcError` carrying the core's error, so
// screens branch on `error.code`, never on message text.
import i18n from "../i18n";
import type { CoreError } from "./types";

export class IpcError extends Error {
  readonly core: CoreError;
  constructor(core: CoreError) {
    super(core.code);
    this.name = "IpcError";
    this.core = core;
  }
}

type Result<T> = { status: "ok"; data: T } | { status: "error"; error: CoreError };

export async function unwrap<T>(call: Promise<Result<T>>): Promise<T> {
  const r = await call;
  if (r.status === "error") throw new IpcError(r.error);
  return r.data;
}

/// The core error behind anything thrown (a framework failure becomes `internal`).
export function coreError(e: unknown): CoreError {
  if (e instanceof IpcError) return e.core;
  return { code: "internal", message: e instanceof Error ? e.message : String(e) };
}

/// A broken rule in the user's language: its message key (`rules.<key>`) translated with
/// its parameters when the catalogue has it, else the core's own (English) words.
export function brokenRuleText(c: {
  rule: string;
  ruleKey?: string | null;
  ruleParams?: Partial<Record<string, string>>;
}): string {
  const key = c.ruleKey ? `rules.${c.ruleKey}` : null;
  const given: Partial<Record<string, string>> = { ...c.ruleParams };
  // A rule quoting another (`Rule::quoting`): the quoted one in the same words first.
  const quoted = given.quoted;
  if (quoted && given.quotedKey) {
    const inner: Record<string, string> = {};
    for (const [k, v] of Object.entries(given)) {
      if (k.startsWith("quoted.") && v !== undefined) inner[k.slice("quoted.".length)] = v;
    }
    given[quoted] = brokenRuleText({
      rule: given[quoted] ?? "",
      ruleKey: given.quotedKey,
      ruleParams: inner,
    });
  }
  // A count picks a plural's form only as a number.
  const count = given.count;
  const params = { ...given, ...(count === undefined ? {} : { count: Number(count) }) };
  return key && i18n.exists(key, params) ? i18n.t(key, params) : c.rule;
}

/// The form field a validation error names, if any, with its rule in the user's language.
export function fieldOf(e: unknown): { field: string; rule: string } | null {
  const c = coreError(e);
  return c.code === "validation" ? { field: c.field, rule: brokenRuleText(c) } : null;
}

/// The rule a validation error states, when it names one of `fields` (or an item of
/// one, e.g. `products[0].price` for `products`): what a form shows under that field.
export function fieldError(e: unknown, ...fields: string[]): string | undefined {
  const f = fieldOf(e);
  if (!f) return undefined;
  return fields.some(
    (x) => f.field === x || f.field.startsWith(`${x}[`) || f.field.startsWith(`${x}.`),
  )
    ? f.rule
    : undefined;
}
