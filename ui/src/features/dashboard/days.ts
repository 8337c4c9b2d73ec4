import type { DayFigures } from "../../lib/types";

const DAY = 86_400_000;

/// The UTC days of the dashboard's period, oldest first: the 30 days up to `now`'s, and
/// any earlier day the figures hold. Every day is there, those without orders too: a
/// chart that skips empty days draws a quiet week as if it were not there.
export function periodDays(days: DayFigures[], now: number, length = 30): number[] {
  const today = Math.floor(now / DAY) * DAY;
  let first = today - (length - 1) * DAY;
  for (const d of days) first = Math.min(first, Math.floor(d.day / DAY) * DAY);
  const out: number[] = [];
  for (let day = first; day <= today; day += DAY) out.push(day);
  return out;
}

/// Orders per day and currency over every day of the period: whole counts, 0 where a
/// day had none.
export function ordersPerDay(
  days: DayFigures[],
  currencies: string[],
  now: number,
): { day: number; counts: Record<string, number> }[] {
  const byDay = new Map<number, Record<string, number>>();
  for (const d of days) {
    const key = Math.floor(d.day / DAY) * DAY;
    const row = byDay.get(key) ?? {};
    row[d.currency] = (row[d.currency] ?? 0) + d.orders;
    byDay.set(key, row);
  }
  return periodDays(days, now).map((day) => {
    const have = byDay.get(day) ?? {};
    return { day, counts: Object.fromEntries(currencies.map((c) => [c, have[c] ?? 0])) };
  });
}

/// One currency's volume per day over every day of the period ("0" where none).
export function volumePerDay(
  days: DayFigures[],
  currency: string,
  now: number,
): { day: number; volume: string }[] {
  const byDay = new Map<number, string>();
  for (const d of days) {
    if (d.currency === currency) byDay.set(Math.floor(d.day / DAY) * DAY, d.volume);
  }
  return periodDays(days, now).map((day) => ({ day, volume: byDay.get(day) ?? "0" }));
}
