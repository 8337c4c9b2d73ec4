// The periods a statement is asked for, as days in the user's time zone (YYYY-MM-DD),
// each with the period it is compared with: the day before, the week before, the month
// before, or the same number of days before a custom period.

export type PeriodKind = "day" | "week" | "month" | "lastMonth" | "custom";

export interface Days {
  from: string;
  to: string;
  previousFrom: string;
  previousTo: string;
}

const pad = (n: number) => String(n).padStart(2, "0");

/// A local date as YYYY-MM-DD.
export function ymd(d: Date): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

function addDays(d: Date, n: number): Date {
  const c = new Date(d.getFullYear(), d.getMonth(), d.getDate());
  c.setDate(c.getDate() + n);
  return c;
}

function parse(s: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return null;
  const d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return ymd(d) === s ? d : null;
}

function month(year: number, month0: number): [Date, Date] {
  return [new Date(year, month0, 1), new Date(year, month0 + 1, 0)];
}

/// The days of `kind` around `now`, and of the period before; a custom period's days
/// are `custom` (null when they are not two days in order).
export function periodDays(
  kind: PeriodKind,
  now: Date,
  custom: { from: string; to: string } = { from: "", to: "" },
): Days | null {
  const today = new Date(now.getFullYear(), now.getMonth(), now.getDate());
  switch (kind) {
    case "day": {
      const y = addDays(today, -1);
      return { from: ymd(today), to: ymd(today), previousFrom: ymd(y), previousTo: ymd(y) };
    }
    case "week": {
      // Monday to Sunday.
      const monday = addDays(today, -((today.getDay() + 6) % 7));
      return {
        from: ymd(monday),
        to: ymd(addDays(monday, 6)),
        previousFrom: ymd(addDays(monday, -7)),
        previousTo: ymd(addDays(monday, -1)),
      };
    }
    case "month":
    case "lastMonth": {
      const shift = kind === "month" ? 0 : -1;
      const [a, b] = month(today.getFullYear(), today.getMonth() + shift);
      const [pa, pb] = month(today.getFullYear(), today.getMonth() + shift - 1);
      return { from: ymd(a), to: ymd(b), previousFrom: ymd(pa), previousTo: ymd(pb) };
    }
    case "custom": {
      const a = parse(custom.from);
      const b = parse(custom.to);
      if (!a || !b || b < a) return null;
      const days = Math.round((b.getTime() - a.getTime()) / 86_400_000) + 1;
      return {
        from: custom.from,
        to: custom.to,
        previousFrom: ymd(addDays(a, -days)),
        previousTo: ymd(addDays(a, -1)),
      };
    }
  }
}
