import { describe, expect, it } from "vitest";
import { calendarDays, pickedRange } from "./dateRange";

// Every range is local days, the end exclusive.
const day = (y: number, m: number, d: number) => new Date(y, m - 1, d).getTime();

describe("the orders' picked days", () => {
  it("turn days picked on the calendar into a range and back, the last day included", () => {
    const r = pickedRange("2026-11-02", "2026-11-04");
    expect(r).toEqual({ from: day(2026, 11, 2), to: day(2026, 11, 5) });
    expect(calendarDays(r)).toEqual(["2026-11-02", "2026-11-04"]);
    expect(pickedRange(null, null)).toEqual({ from: null, to: null });
  });
});
