import { describe, expect, it } from "vitest";
import { calendarDays, pickedRange, presetOf, presetRange } from "./dateRange";

// 2026-11-23 15:30, local time: every range is local days, the end exclusive.
const now = new Date(2026, 10, 23, 15, 30);
const day = (y: number, m: number, d: number) => new Date(y, m - 1, d).getTime();

describe("the orders' date presets", () => {
  it("cover whole local days up to and including today", () => {
    expect(presetRange("today", now)).toEqual({ from: day(2026, 11, 23), to: day(2026, 11, 24) });
    expect(presetRange("last7", now)).toEqual({ from: day(2026, 11, 17), to: day(2026, 11, 24) });
    expect(presetRange("last30", now)).toEqual({ from: day(2026, 10, 25), to: day(2026, 11, 24) });
    expect(presetRange("month", now)).toEqual({ from: day(2026, 11, 1), to: day(2026, 12, 1) });
    // Across a year's end.
    expect(presetRange("month", new Date(2026, 11, 31))).toEqual({
      from: day(2026, 12, 1),
      to: day(2027, 1, 1),
    });
  });

  it("are recognised in a range set otherwise (a saved filter), and only then", () => {
    expect(presetOf(presetRange("last7", now), now)).toBe("last7");
    expect(presetOf({ from: null, to: null }, now)).toBeNull();
    expect(presetOf({ from: day(2026, 11, 2), to: day(2026, 11, 5) }, now)).toBeNull();
  });

  it("turn days picked on the calendar into a range and back, the last day included", () => {
    const r = pickedRange("2026-11-02", "2026-11-04");
    expect(r).toEqual({ from: day(2026, 11, 2), to: day(2026, 11, 5) });
    expect(calendarDays(r)).toEqual(["2026-11-02", "2026-11-04"]);
    expect(pickedRange(null, null)).toEqual({ from: null, to: null });
  });
});
