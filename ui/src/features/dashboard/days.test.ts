import { describe, expect, it } from "vitest";
import type { DayFigures } from "../../lib/types";
import { ordersPerDay, periodDays, volumePerDay } from "./days";

const DAY = 86_400_000;
// 2026-11-26 15:00 UTC.
const NOW = Date.UTC(2026, 10, 26, 15);
const day = (y: number, m: number, d: number) => Date.UTC(y, m - 1, d);

const figures: DayFigures[] = [
  { day: day(2026, 11, 3), currency: "MXN", orders: 4, volume: "120.50" },
  { day: day(2026, 11, 3), currency: "USD", orders: 1, volume: "9.99" },
  { day: day(2026, 11, 20), currency: "MXN", orders: 2, volume: "10" },
];

describe("the dashboard's days", () => {
  it("are the 30 days up to today, each once, oldest first", () => {
    const days = periodDays([], NOW);
    expect(days).toHaveLength(30);
    expect(days[0]).toBe(day(2026, 10, 28));
    expect(days[29]).toBe(day(2026, 11, 26));
    for (let i = 1; i < days.length; i++) expect((days[i] ?? 0) - (days[i - 1] ?? 0)).toBe(DAY);
  });

  it("show a day without orders as 0 orders in every currency", () => {
    const rows = ordersPerDay(figures, ["MXN", "USD"], NOW);
    expect(rows).toHaveLength(30);
    const on = (d: number) => rows.find((r) => r.day === d)?.counts;
    expect(on(day(2026, 11, 3))).toEqual({ MXN: 4, USD: 1 });
    expect(on(day(2026, 11, 4))).toEqual({ MXN: 0, USD: 0 });
    expect(on(day(2026, 11, 20))).toEqual({ MXN: 2, USD: 0 });
    const total = rows.reduce((n, r) => n + (r.counts.MXN ?? 0) + (r.counts.USD ?? 0), 0);
    expect(total).toBe(7);
    expect(rows.every((r) => Object.values(r.counts).every(Number.isInteger))).toBe(true);
  });

  it("keep an older day the figures hold, and a currency's volume 0 on its empty days", () => {
    const old = [...figures, { day: day(2026, 10, 27), currency: "MXN", orders: 1, volume: "5" }];
    expect(periodDays(old, NOW)[0]).toBe(day(2026, 10, 27));
    const v = volumePerDay(figures, "USD", NOW);
    expect(v).toHaveLength(30);
    expect(v.filter((r) => r.volume !== "0")).toEqual([{ day: day(2026, 11, 3), volume: "9.99" }]);
  });
});
