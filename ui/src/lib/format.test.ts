import { describe, expect, it } from "vitest";
import {
  formatAge,
  formatDateTime,
  formatDateTimeShort,
  formatDuration,
  formatMoney,
  minorUnits,
  timeZoneLabel,
} from "./format";

describe("formatMoney", () => {
  it("pads to the currency's minor units and groups digits", () => {
    expect(formatMoney("1234567.5", "USD", "en-US")).toBe("USD 1,234,567.50");
    expect(formatMoney("100", "JPY", "en-US")).toBe("JPY 100");
    expect(formatMoney("12.345", "KWD", "en-US")).toBe("KWD 12.345");
  });

  it("keeps every digit of amounts too large or too precise for a float", () => {
    expect(formatMoney("90071992547409931.01", "EUR", "en-US")).toBe(
      "EUR 90,071,992,547,409,931.01",
    );
    expect(formatMoney("0.1234", "USD", "en-US")).toBe("USD 0.1234");
  });

  it("formats negatives and other locales", () => {
    expect(formatMoney("-5.1", "USD", "en-US")).toBe("-USD 5.10");
    expect(formatMoney("1234.5", "CNY", "zh-CN")).toBe("CNY 1,234.50");
  });

  it("returns text that is not a decimal unchanged, and nothing for empty", () => {
    expect(formatMoney("N/A", "USD", "en-US")).toBe("N/A");
    expect(formatMoney("", "USD", "en-US")).toBe("");
    expect(formatMoney(null, "USD", "en-US")).toBe("");
  });

  it("knows minor units", () => {
    expect(minorUnits("USD")).toBe(2);
    expect(minorUnits("JPY")).toBe(0);
    expect(minorUnits("BHD")).toBe(3);
  });
});

describe("dates", () => {
  it("write the zone after the time, in every language", () => {
    const at = Date.UTC(2026, 10, 23, 1, 54, 25);
    expect(formatDateTime(at, "en-US", "UTC")).toBe("2026-11-23 01:54:25 UTC");
    expect(formatDateTime(at, "zh-CN", "UTC")).toBe("2026-11-23 01:54:25 UTC");
    expect(formatDateTimeShort(at, "zh-CN", "UTC")).toBe("2026-11-23 01:54");
    expect(formatDateTime(Date.UTC(2026, 10, 23, 0, 5, 0), "en-US", "UTC")).toBe(
      "2026-11-23 00:05:00 UTC",
    );
    expect(formatDateTime(null, "en-US")).toBe("");
  });

  it("labels the offset, and a zone that is UTC once", () => {
    expect(timeZoneLabel(480, "Asia/Shanghai")).toBe("Asia/Shanghai (UTC+08:00)");
    expect(timeZoneLabel(-330, "America/Somewhere")).toBe("America/Somewhere (UTC-05:30)");
    expect(timeZoneLabel(0, "UTC")).toBe("UTC");
    expect(timeZoneLabel(0, "Etc/UTC")).toBe("UTC");
  });
});

describe("formatAge", () => {
  it("says how long ago in the largest whole unit", () => {
    expect(formatAge(42, "en-US")).toBe("42 seconds ago");
    expect(formatAge(300, "en-US")).toBe("5 minutes ago");
    expect(formatAge(7_300, "en-US")).toBe("2 hours ago");
    expect(formatAge(3 * 86_400 + 5, "en-US")).toBe("3 days ago");
  });
});

describe("formatDuration", () => {
  it("says a time left in the two largest units that matter, in both languages", () => {
    expect(formatDuration(0, "en-US")).toBe("0 sec");
    expect(formatDuration(45.4, "en-US")).toBe("45 sec");
    expect(formatDuration(130, "en-US")).toBe("2 min");
    expect(formatDuration(3_599, "en-US")).toBe("1 hr");
    expect(formatDuration(3_900, "en-US")).toBe("1 hr 5 min");
    expect(formatDuration(2 * 86_400 + 3 * 3_600 + 60, "en-US")).toBe("2 days 3 hr");
    expect(formatDuration(86_400, "en-US")).toBe("1 day");
    expect(formatDuration(130, "zh-CN")).toBe("2分钟");
    expect(formatDuration(3_900, "zh-CN")).toBe("1小时5分钟");
    expect(formatDuration(-5, "en-US")).toBe("0 sec");
  });
});
