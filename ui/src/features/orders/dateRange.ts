// The orders filter's days as picked on a calendar (a range relative to today is the
// desk's, resolved in the business's time zone: `features/views`). A range is local
// days, from the start of the first to the start of the day after the last (the
// filter's `to` is exclusive).

export interface Range {
  from: number | null;
  to: number | null;
}

/// The start of the local day `offset` days after `now`'s.
function dayStart(now: Date, offset = 0): number {
  return new Date(now.getFullYear(), now.getMonth(), now.getDate() + offset).getTime();
}

/// A local day as the calendar gives it ("2026-11-23"), or null.
export function parseDay(value: string | null): Date | null {
  if (!value) return null;
  const [y, m, d] = value.split("-").map(Number);
  if (!y || !m || !d) return null;
  return new Date(y, m - 1, d);
}

/// The local day of a day's start in millis, as the calendar takes it.
export function dayOf(ms: number | null): string | null {
  if (ms === null) return null;
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/// The days picked on the calendar as a range (the last day included).
export function pickedRange(from: string | null, to: string | null): Range {
  const start = parseDay(from);
  const end = parseDay(to);
  return {
    from: start ? start.getTime() : null,
    to: end ? dayStart(end, 1) : null,
  };
}

/// The calendar's days of a range (the day before the exclusive end).
export function calendarDays(range: Range): [string | null, string | null] {
  return [dayOf(range.from), range.to === null ? null : dayOf(dayStart(new Date(range.to), -1))];
}
