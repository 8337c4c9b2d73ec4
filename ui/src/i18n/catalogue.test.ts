import { describe, expect, it } from "vitest";
import i18n from ".";
import { en } from "./en";
import { zh } from "./zh";

function keys(o: object, prefix = ""): string[] {
  return Object.entries(o).flatMap(([k, v]) =>
    typeof v === "string" ? [`${prefix}${k}`] : keys(v as object, `${prefix}${k}.`),
  );
}

const flat = (o: object) =>
  new Map(
    keys(o).map((k) => [
      k,
      k.split(".").reduce<unknown>((a, p) => (a as Record<string, unknown>)[p], o) as string,
    ]),
  );

/// A placeholder's name, with or without a format (`{{count, number}}` is `count`).
function placeholders(s: string) {
  return [...s.matchAll(/\{\{(\w+)(?:,[^}]*)?\}\}/g)].map((m) => m[1]).sort();
}

const PLURAL = /_(zero|one|two|few|many|other)$/;
const base = (k: string) => k.replace(PLURAL, "");

/// Per key without its plural suffix, the plural forms a catalogue gives it.
function forms(o: object) {
  const out = new Map<string, string[]>();
  for (const k of keys(o)) {
    const m = PLURAL.exec(k);
    out.set(base(k), [...(out.get(base(k)) ?? []), ...(m?.[1] ? [m[1]] : [])]);
  }
  return out;
}

const LANGS = [
  { name: "en", catalogue: en, locale: "en-US" },
  { name: "zh", catalogue: zh, locale: "zh-CN" },
];

describe("the catalogues", () => {
  it("have the same keys and the same placeholders in every language", () => {
    const e = flat(en);
    const z = flat(zh);
    expect([...new Set([...z.keys()].map(base))].sort()).toEqual(
      [...new Set([...e.keys()].map(base))].sort(),
    );
    // Every form of a key, in every language, takes what the English `_other` takes.
    const wanted = new Map([...e].map(([k, v]) => [base(k), placeholders(v)]));
    for (const [k, v] of [...e, ...z]) {
      expect(placeholders(v), k).toEqual(wanted.get(base(k)));
    }
  });

  it("give a plural exactly the forms each language's plural rules pick from", () => {
    for (const { name, catalogue, locale } of LANGS) {
      const categories = new Intl.PluralRules(locale).resolvedOptions().pluralCategories;
      for (const [k, f] of forms(catalogue)) {
        if (f.length === 0) continue;
        expect(f.sort(), `${name}: ${k}`).toEqual([...categories].sort());
      }
    }
  });

  it("translate every text (no English left in Chinese but names and codes)", () => {
    const same = keys(zh).filter((k) => {
      const get = (o: object) =>
        k.split(".").reduce<unknown>((a, p) => (a as Record<string, unknown>)[p], o);
      return get(zh) === get(en);
    });
    expect(same.sort()).toEqual(["app.name"]);
  });
});

describe("counted texts", () => {
  const en_ = i18n.getFixedT("en");
  const zh_ = i18n.getFixedT("zh");

  it("say one thing in the singular and more in the plural, in English", () => {
    expect(en_("review.itemsAndFiles", { count: 1, files: "a.pdf" })).toBe(
      "1 information item; a.pdf",
    );
    expect(en_("review.itemsAndFiles", { count: 2, files: "a.pdf" })).toBe(
      "2 information items; a.pdf",
    );
    expect(en_("orders.rows", { count: 1 })).toBe("1 order");
    expect(en_("orders.rows", { count: 0 })).toBe("0 orders");
    expect(en_("orders.rows", { count: 1500 })).toBe("1,500 orders");
    expect(en_("payouts.bulkSend", { count: 1 })).toBe("Send 1 payout");
    expect(en_("activity.chainOk", { count: 1 })).toBe("Audit chain intact: 1 entry");
    expect(en_("orders.syncDone", { count: 1, changed: "0" })).toBe(
      "Sync finished: 1 order read, 0 changed",
    );
  });

  it("read the same for any count in Chinese", () => {
    expect(zh_("review.itemsAndFiles", { count: 1, files: "a.pdf" })).toBe("1 条信息；a.pdf");
    expect(zh_("orders.rows", { count: 1 })).toBe("1 笔订单");
    expect(zh_("orders.rows", { count: 1500 })).toBe("1,500 笔订单");
  });

  it("leave no English count before a plural noun without its forms", () => {
    // "{{count}} orders" with no `_one` would read "1 orders".
    for (const [k, v] of flat(en)) {
      if (PLURAL.test(k)) continue;
      expect(v, k).not.toMatch(
        /\{\{\w+(?:,[^}]*)?\}\} (orders|entries|items|payouts|rows|bytes)\b/,
      );
    }
  });
});
