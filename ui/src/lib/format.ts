// Money and dates for people. Amounts arrive as exact decimal strings and are never
// turned into floating point: the integer part is formatted as a BigInt (exact, with
// the locale's grouping and currency sign), the fraction is kept digit for digit.

const minorUnitsCache = new Map<string, number>();

// Intl's formatters, made once per locale and options: making one costs far more than
// formatting with it (a table of 500 rows made a thousand of them per render).
const numberFormats = new Map<string, Intl.NumberFormat>();
const dateFormats = new Map<string, Intl.DateTimeFormat>();

function numberFormat(locale: string, options: Intl.NumberFormatOptions = {}) {
  const key = `${locale}|${JSON.stringify(options)}`;
  let f = numberFormats.get(key);
  if (!f) {
    f = new Intl.NumberFormat(locale, options);
    numberFormats.set(key, f);
  }
  return f;
}

function dateFormat(locale: string, options: Intl.DateTimeFormatOptions) {
  const key = `${locale}|${JSON.stringify(options)}`;
  let f = dateFormats.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(locale, options);
    dateFormats.set(key, f);
  }
  return f;
}

/// The ISO 4217 minor units of a currency (2 when the runtime does not know it).
export function minorUnits(currency: string): number {
  const cached = minorUnitsCache.get(currency);
  if (cached !== undefined) return cached;
  let digits = 2;
  try {
    digits =
      new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions()
        .maximumFractionDigits ?? 2;
  } catch {
    digits = 2;
  }
  minorUnitsCache.set(currency, digits);
  return digits;
}

const DECIMAL = /^([+-]?)(\d+)(?:\.(\d+))?$/;

/// Formats a decimal string as money in `locale`, padded to the currency's minor units
/// (extra digits are kept, never rounded away). Text that is not a decimal is returned
/// as it came, so nothing the gateway sent is hidden.
export function formatMoney(amount: string | null | undefined, currency: string, locale: string) {
  if (amount === null || amount === undefined || amount === "") return "";
  const m = DECIMAL.exec(amount.trim());
  if (!m) return amount;
  const [, sign = "", int = "0", frac = ""] = m;
  const digits = Math.max(minorUnits(currency), frac.length);
  const fraction = frac.padEnd(digits, "0");
  let parts: Intl.NumberFormatPart[];
  try {
    parts = numberFormat(locale, {
      style: currency ? "currency" : "decimal",
      currency: currency || undefined,
      currencyDisplay: "code",
      minimumFractionDigits: 0,
      maximumFractionDigits: 0,
    }).formatToParts(BigInt(sign === "-" ? `-${int}` : int));
  } catch {
    return `${amount} ${currency}`.trim();
  }
  const decimalSep =
    numberFormat(locale)
      .formatToParts(1.5)
      .find((p) => p.type === "decimal")?.value ?? ".";
  const lastInt = parts.map((p) => p.type).lastIndexOf("integer");
  const out = parts.map((p) => p.value);
  if (fraction && lastInt >= 0) out.splice(lastInt + 1, 0, decimalSep + fraction);
  return out.join("").replace(/\u00a0/g, " ");
}

/// A date and time in the user's time zone (or `timeZone`), the zone after the time:
/// "2026-11-23 01:54:25 UTC" in every language, so dates read and sort alike.
export function formatDateTime(
  millis: number | null | undefined,
  locale: string,
  timeZone?: string,
) {
  if (millis === null || millis === undefined) return "";
  const p = dateParts(millis, locale, timeZone, true);
  return `${p.date} ${p.time}:${p.second} ${p.zone}`.trim();
}

/// A date and time to the minute in the user's time zone, without the zone (tables,
/// whose header names it once).
export function formatDateTimeShort(
  millis: number | null | undefined,
  locale: string,
  timeZone?: string,
) {
  if (millis === null || millis === undefined) return "";
  const p = dateParts(millis, locale, timeZone, false);
  return `${p.date} ${p.time}`;
}

function dateParts(millis: number, locale: string, timeZone: string | undefined, zone: boolean) {
  const parts = dateFormat(locale, {
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
    timeZone,
    ...(zone ? { timeZoneName: "short" as const } : {}),
  }).formatToParts(new Date(millis));
  const get = (type: Intl.DateTimeFormatPartTypes) =>
    parts.find((x) => x.type === type)?.value ?? "";
  return {
    date: `${get("year")}-${get("month")}-${get("day")}`,
    time: `${get("hour")}:${get("minute")}`,
    second: get("second"),
    zone: get("timeZoneName"),
  };
}

/// A day (for the UTC day buckets of the charts).
export function formatDay(millis: number, locale: string) {
  return dateFormat(locale, {
    month: "2-digit",
    day: "2-digit",
    timeZone: "UTC",
  }).format(new Date(millis));
}

/// This machine's time zone by name (`Asia/Shanghai`), as the desk takes a zone: the
/// desk applies each moment's daylight saving itself; empty when the system names none
/// (the desk then uses the profile's business zone).
export function machineZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone ?? "";
}

/// The local zone's name and offset, e.g. "Asia/Shanghai (UTC+08:00)"; a zone that is
/// UTC itself is said once, "UTC".
export function timeZoneLabel(
  offsetMinutes = -new Date().getTimezoneOffset(),
  name: string | undefined = Intl.DateTimeFormat().resolvedOptions().timeZone,
) {
  const sign = offsetMinutes < 0 ? "-" : "+";
  const abs = Math.abs(offsetMinutes);
  const hh = String(Math.floor(abs / 60)).padStart(2, "0");
  const mm = String(abs % 60).padStart(2, "0");
  const offset = `UTC${sign}${hh}:${mm}`;
  if (!name || /^(Etc\/)?(UTC|UCT|GMT|Zulu|Universal|Greenwich)$/i.test(name)) {
    return offsetMinutes === 0 ? "UTC" : offset;
  }
  return `${name} (${offset})`;
}

/// A count in the locale (counts are integers well below 2^53).
export function formatCount(n: number, locale: string) {
  return numberFormat(locale).format(n);
}

/// Turns a decimal string into a number for a chart's axis only, never for arithmetic.
export function chartValue(amount: string): number {
  const n = Number(amount);
  return Number.isFinite(n) ? n : 0;
}

/// How long ago, from an age in seconds, in the locale's words ("5 minutes ago").
export function formatAge(seconds: number, locale: string) {
  const s = Math.max(0, Math.round(seconds));
  const rtf = new Intl.RelativeTimeFormat(locale, { numeric: "always" });
  if (s < 60) return rtf.format(-s, "second");
  if (s < 3_600) return rtf.format(-Math.floor(s / 60), "minute");
  if (s < 86_400) return rtf.format(-Math.floor(s / 3_600), "hour");
  return rtf.format(-Math.floor(s / 86_400), "day");
}

/// A UTC day, "2026-11-23": the date of an order the gateway's list gives without a time
/// (it is never shown as a midnight).
export function formatUtcDay(millis: number | null | undefined) {
  if (millis === null || millis === undefined) return "";
  return new Date(millis).toISOString().slice(0, 10);
}

/// A length of time in the locale's short units, to the two largest that matter: "45 sec",
/// "2 min", "1 hr 5 min", "2 days 3 hr"; "1小时5分钟" in Chinese. Minutes are rounded, so
/// an estimate does not pretend to the second once it is over a minute.
export function formatDuration(seconds: number, locale: string) {
  const s = Math.max(0, Math.round(seconds));
  const unit = (n: number, u: "second" | "minute" | "hour" | "day") =>
    new Intl.NumberFormat(locale, { style: "unit", unit: u, unitDisplay: "short" }).format(n);
  const two = (big: string, small: string | null) =>
    small === null
      ? big
      : new Intl.ListFormat(locale, { type: "unit", style: "narrow" }).format([big, small]);
  if (s < 60) return unit(s, "second");
  const minutes = Math.round(s / 60);
  if (minutes < 60) return unit(minutes, "minute");
  if (minutes < 24 * 60) {
    const m = minutes % 60;
    return two(unit(Math.floor(minutes / 60), "hour"), m > 0 ? unit(m, "minute") : null);
  }
  const hours = Math.round(s / 3_600);
  const h = hours % 24;
  return two(unit(Math.floor(hours / 24), "day"), h > 0 ? unit(h, "hour") : null);
}
