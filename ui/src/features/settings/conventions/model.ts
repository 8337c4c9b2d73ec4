// The conventions as the panel edits them: rows with ids where the user adds and removes
// rows (state values, kind rules), turned back into the structure the backend checks.
import type { Conventions, KindRule, Meaning, StateField } from "../../../lib/types";

/// The state fields, in the order `StateField::ALL` (crates/gateway/src/dictionary.rs).
export const STATE_FIELDS: StateField[] = [
  "payCode",
  "orderState",
  "refundState",
  "queryStatus",
  "settle",
  "rollingReserveStatus",
];

/// The meanings a state value may have (`MEANINGS` in crates/gateway/src/conventions.rs).
export const MEANINGS: Meaning[] = [
  "created",
  "pending",
  "processing",
  "submitted",
  "success",
  "failed",
  "closed",
  "refunded",
  "partly_refunded",
  "charged_back",
  "not_settled",
  "settled",
  "held",
  "released",
];

/// The operations a refusal status may be given for (`OPERATION_NAMES` in
/// crates/gateway/src/conventions.rs; the backend refuses any other name).
export const OPERATION_NAMES = [
  "v2.payment",
  "v1.payment",
  "v1.payment.vn_bank",
  "v2.payout",
  "v1.payout",
  "v2.card.topUp",
  "v1.card.withdraw",
  "v1.submit.transferOrder",
  "v2.order.query",
  "v2.order.queryOrderList",
  "v2.balance.query",
] as const;

export const ORDER_KINDS: KindRule["kind"][] = ["payin", "payout", "topUp", "withdraw"];

export interface StateRow {
  id: number;
  raw: string;
  meaning: Meaning;
}

export interface RuleRow extends KindRule {
  id: number;
}

export interface Draft extends Omit<Conventions, "states" | "kindRules"> {
  states: Record<StateField, StateRow[]>;
  kindRules: RuleRow[];
}

let next = 0;
/// A row id, unique in this window.
export const rowId = () => ++next;

export function toDraft(c: Conventions): Draft {
  const states = Object.fromEntries(
    STATE_FIELDS.map((f) => [
      f,
      Object.entries(c.states[f] ?? {}).map(([raw, meaning]) => ({ id: rowId(), raw, meaning })),
    ]),
  ) as Record<StateField, StateRow[]>;
  return {
    ...c,
    states,
    kindRules: c.kindRules.map((r) => ({ ...r, id: rowId() })),
  };
}

export function fromDraft(d: Draft): Conventions {
  const states: Conventions["states"] = {};
  for (const f of STATE_FIELDS) {
    states[f] = Object.fromEntries(d.states[f].map((r) => [r.raw.trim(), r.meaning]));
  }
  const refusalStatuses = Object.fromEntries(
    Object.entries(d.refusalStatuses).filter(([, s]) => s.length > 0),
  );
  return {
    ...d,
    states,
    kindRules: d.kindRules.map(({ prefix, kind }) => ({ prefix, kind })),
    refusalStatuses,
  };
}

/// The raw values given twice in one state field (the second would silently replace
/// the first): the field and the value.
export function duplicateState(d: Draft): { field: StateField; raw: string } | null {
  for (const field of STATE_FIELDS) {
    const seen = new Set<string>();
    for (const r of d.states[field]) {
      const raw = r.raw.trim();
      if (seen.has(raw)) return { field, raw };
      seen.add(raw);
    }
  }
  return null;
}

/// The IANA zone names the select offers: the engine's list where it has one, "UTC"
/// always (some engines leave it out), and the value in use even if neither names it.
export function timeZones(current: string): string[] {
  const listed =
    typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
  const rest = [...new Set([...listed, current])].filter((z) => z && z !== "UTC").sort();
  return ["UTC", ...rest];
}

/// The members of `c` a file's `next` would change, each with its new value in short.
export function changes(c: Conventions, next: Conventions): { member: string; value: string }[] {
  const out: { member: string; value: string }[] = [];
  const keys = Object.keys(next) as (keyof Conventions)[];
  for (const k of keys) {
    if (k === "states") {
      for (const f of STATE_FIELDS) {
        const a = c.states[f] ?? {};
        const b = next.states[f] ?? {};
        if (JSON.stringify(a) !== JSON.stringify(b)) {
          out.push({
            member: `states.${f}`,
            value: Object.entries(b)
              .map(([raw, m]) => `${raw} → ${m}`)
              .join(", "),
          });
        }
      }
    } else if (JSON.stringify(c[k]) !== JSON.stringify(next[k])) {
      const v = next[k];
      out.push({ member: k, value: typeof v === "string" ? v : JSON.stringify(v) });
    }
  }
  return out;
}
