import { describe, expect, it } from "vitest";
import { periodDays } from "./period";

describe("a statement's periods", () => {
  const now = new Date(2026, 10, 25, 15, 30); // Wednesday 2026-11-25, local time

  it("compares a month with the month before, whatever their lengths", () => {
    expect(periodDays("month", now)).toEqual({
      from: "2026-11-01",
      to: "2026-11-30",
      previousFrom: "2026-10-01",
      previousTo: "2026-10-31",
    });
    expect(periodDays("lastMonth", new Date(2026, 2, 10))).toEqual({
      from: "2026-02-01",
      to: "2026-02-28",
      previousFrom: "2026-01-01",
      previousTo: "2026-01-31",
    });
    expect(periodDays("month", new Date(2026, 0, 5))?.previousFrom).toBe("2025-12-01");
  });

  it("takes weeks from Monday to Sunday, and days one by one", () => {
    expect(periodDays("week", now)).toEqual({
      from: "2026-11-23",
      to: "2026-11-29",
      previousFrom: "2026-11-16",
      previousTo: "2026-11-22",
    });
    expect(periodDays("day", now)).toEqual({
      from: "2026-11-25",
      to: "2026-11-25",
      previousFrom: "2026-11-24",
      previousTo: "2026-11-24",
    });
  });

  it("compares a custom period with as many days before it, and refuses one out of order", () => {
    expect(periodDays("custom", now, { from: "2026-11-10", to: "2026-11-19" })).toEqual({
      from: "2026-11-10",
      to: "2026-11-19",
      previousFrom: "2026-10-31",
      previousTo: "2026-11-09",
    });
    expect(periodDays("custom", now, { from: "2026-11-19", to: "2026-11-10" })).toBeNull();
    expect(periodDays("custom", now, { from: "2026-02-30", to: "2026-03-01" })).toBeNull();
  });
});
