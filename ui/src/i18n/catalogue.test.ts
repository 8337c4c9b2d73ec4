import { describe, expect, it } from "vitest";
import { en } from "./en";
import { zh } from "./zh";

function keys(o: object, prefix = ""): string[] {
  return Object.entries(o).flatMap(([k, v]) =>
    typeof v === "string" ? [`${prefix}${k}`] : keys(v as object, `${prefix}${k}.`),
  );
}

function placeholders(s: string) {
  return [...s.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();
}

describe("the catalogues", () => {
  it("have the same keys and the same placeholders in every language", () => {
    const flat = (o: object) =>
      new Map(
        keys(o).map((k) => [
          k,
          k.split(".").reduce<unknown>((a, p) => (a as Record<string, unknown>)[p], o) as string,
        ]),
      );
    const e = flat(en);
    const z = flat(zh);
    expect([...z.keys()].sort()).toEqual([...e.keys()].sort());
    for (const [k, v] of e) {
      expect(placeholders(z.get(k) ?? ""), k).toEqual(placeholders(v));
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
