// The `paydesk` command line equivalent to what the app does (issue 35, item 5): pure
// functions from a form's values or a report's parameters to one line for a POSIX shell
// (sh, bash, zsh). Never a secret, never a full account or card number: a CLABE is the
// shell variable "$CLABE" (the CLI takes it as an argument), a card number and a PIX
// payer's CPF are left out (the CLI asks for them without echo, or reads them from stdin).
// The syntax is the CLI's (crates/cli, README "The `paydesk` command");
// cliCommand.fixture.json holds expected lines that the CLI's own parser accepts (its
// test `copied_commands_parse`).

/// A note under a command: an i18n key (under `cliCommand.note`) and its values.
export interface CommandNote {
  key: string;
  values?: Record<string, string>;
}

/// A command line and what a person should know before running it.
export interface CliCommand {
  line: string;
  notes: CommandNote[];
}

/// One word of a command: a literal, or a shell variable that holds what the line must
/// never show.
type Word = string | { env: string };

/// Characters a word may hold and stay unquoted in any POSIX shell (no `=`, `~`, `%`:
/// zsh and some shells expand a word that starts with one).
const PLAIN = /^[A-Za-z0-9_@+:,./-]+$/;

/// One word for a POSIX shell: as it is when it holds only plain characters, else in
/// single quotes (inside which nothing is special), a single quote written `'\''`.
export function shellQuote(s: string): string {
  if (PLAIN.test(s)) return s;
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

function render(w: Word): string {
  return typeof w === "string" ? shellQuote(w) : `"$${w.env}"`;
}

/// `paydesk --profile NAME ...words`. The profile is always named: a script must not
/// depend on which profile happens to be active.
function line(profile: string, words: Word[]): string {
  return ["paydesk", "--profile", profile, ...words].map(render).join(" ");
}

/// `--flag value` when the value is not empty (after trimming), else nothing.
function opt(flag: string, value: string | null | undefined): Word[] {
  const v = value?.trim() ?? "";
  return v === "" ? [] : [flag, v];
}

/// A decimal amount as typed: trimmed; digits kept as they are (never through a float).
function amount(a: string): string {
  return a.trim();
}

/// Why the money moves (issue 35): the movement's purpose and its reference, as the
/// forms hold them (so a form's values carry them as they are).
export interface PurposeValues {
  purpose?: { text?: string; reference?: string } | null;
}

/// `--purpose TEXT` and the reference under `refFlag` (`--reference`, or `--purpose-ref`
/// where `--reference` is the command's own number), each when given.
function purposeWords(v: PurposeValues, refFlag = "--reference"): Word[] {
  return [...opt("--purpose", v.purpose?.text), ...opt(refFlag, v.purpose?.reference)];
}

export interface PayoutValues extends PurposeValues {
  profile: string;
  merOrderNo: string;
  amount: string;
  currency: string;
  ipAddress?: string;
  notifyUrl?: string;
  /// A team desk without the merchant key: the app makes a request for approval, and so
  /// does the command (`paydesk team request ...`).
  request?: boolean;
  /// A payee of the book chosen by nickname (issue 35): `--beneficiary NICK`, no account.
  beneficiary?: string;
}

/// `paydesk payout clabe`: the CLABE as "$CLABE" (the CLI takes it only as an argument).
/// As a team's request: `paydesk team request payout`.
export function payoutClabeCommand(v: PayoutValues): CliCommand {
  const requestPayee = v.beneficiary?.trim() ?? "";
  if (v.request) {
    return {
      line: line(v.profile, [
        "team",
        "request",
        "payout",
        "--amount",
        amount(v.amount),
        "--currency",
        v.currency,
        ...(requestPayee ? ["--beneficiary", requestPayee] : ["--clabe", { env: "CLABE" }]),
        ...opt("--mer-order-no", v.merOrderNo),
        ...purposeWords(v),
      ]),
      notes: requestPayee
        ? [{ key: "teamRequest" }]
        : [{ key: "clabeVariable" }, { key: "teamRequest" }],
    };
  }
  const payee = v.beneficiary?.trim() ?? "";
  return {
    line: line(v.profile, [
      "payout",
      "clabe",
      "--amount",
      amount(v.amount),
      "--currency",
      v.currency,
      ...(payee ? ["--beneficiary", payee] : ["--clabe", { env: "CLABE" }]),
      ...opt("--mer-order-no", v.merOrderNo),
      ...opt("--ip", v.ipAddress),
      ...opt("--notify-url", v.notifyUrl),
      ...purposeWords(v),
    ]),
    notes: payee ? [{ key: "sameNumber" }] : [{ key: "clabeVariable" }, { key: "sameNumber" }],
  };
}

export interface CardPayoutValues extends PayoutValues {
  firstName?: string;
  lastName?: string;
  countryCode?: string;
  addressLine?: string;
  addressLine2?: string;
  city?: string;
  state?: string;
  postCode?: string;
  beneficiaryType?: string;
  email?: string;
  mobile?: string;
}

/// `paydesk payout card`: no card number (the CLI reads it from stdin or asks for it).
export function payoutCardCommand(v: CardPayoutValues): CliCommand {
  const payee = v.beneficiary?.trim() ?? "";
  const notes: CommandNote[] = payee
    ? [{ key: "sameNumber" }]
    : [{ key: "cardStdin" }, { key: "sameNumber" }];
  const lacking = [v.email?.trim() ? "email" : null, v.mobile?.trim() ? "mobile" : null].filter(
    (x): x is string => x !== null,
  );
  if (lacking.length > 0) notes.push({ key: "notInCli", values: { fields: lacking.join(", ") } });
  const type = v.beneficiaryType?.trim() ?? "";
  return {
    line: line(v.profile, [
      "payout",
      "card",
      "--amount",
      amount(v.amount),
      "--currency",
      v.currency,
      // Required by the CLI even when empty, unless a payee of the book names them.
      ...(payee
        ? ["--beneficiary", payee]
        : ["--first-name", v.firstName?.trim() ?? "", "--last-name", v.lastName?.trim() ?? ""]),
      ...opt("--country", v.countryCode),
      ...opt("--address-line", v.addressLine),
      ...opt("--address-line2", v.addressLine2),
      ...opt("--city", v.city),
      ...opt("--state", v.state),
      ...opt("--post-code", v.postCode),
      ...(type === "" || type === "individual" ? [] : ["--beneficiary-type", type]),
      ...opt("--mer-order-no", v.merOrderNo),
      ...opt("--ip", v.ipAddress),
      ...opt("--notify-url", v.notifyUrl),
      ...purposeWords(v),
    ]),
    notes,
  };
}

export interface PayinValues extends PurposeValues {
  profile: string;
  /// The app's method name (`WECHAT_V1` is the CLI's `WECHAT-V1`).
  method: string;
  merOrderNo: string;
  amount: string;
  currency: string;
  email?: string;
  userId?: string;
  returnUrl?: string;
  ipAddress?: string;
  notifyUrl?: string;
  /// PIX: the payer's name.
  name?: string;
  /// SEPA: billing names (the CLI takes them as one `--name "First Last"`).
  firstName?: string;
  lastName?: string;
  vnBankId?: string;
  /// The product lines' names (the CLI sends one line, `--product`).
  products?: string[];
  productName?: string;
  /// A team desk without the merchant key: `paydesk team request payin`.
  request?: boolean;
}

/// `paydesk payin create`.
export function payinCommand(v: PayinValues): CliCommand {
  const method = v.method === "WECHAT_V1" ? "WECHAT-V1" : v.method;
  const notes: CommandNote[] = [{ key: "sameNumber" }];
  if (method === "PIX") notes.unshift({ key: "cpfStdin" });
  const name =
    method === "SEPA"
      ? [v.firstName?.trim() ?? "", v.lastName?.trim() ?? ""].filter((s) => s !== "").join(" ")
      : method === "PIX"
        ? (v.name ?? "")
        : "";
  const products = (v.products ?? []).map((p) => p.trim()).filter((p) => p !== "");
  const product = method === "VN_BANK" ? (v.productName?.trim() ?? "") : (products[0] ?? "").trim();
  if (products.length > 1) notes.push({ key: "oneProduct" });
  // The payer's browser, a wallet's product lines, GCash's terminal, VN bank's payment
  // method: the CLI sends fixed values of its own.
  if (["APPLE_PAY", "CASH_APP", "GCASH", "SEPA", "VN_BANK"].includes(method)) {
    notes.push({ key: "payinDefaults" });
  }
  if (v.request) notes.push({ key: "teamRequest" });
  const bank = v.vnBankId?.trim() ?? "";
  return {
    line: line(v.profile, [
      ...(v.request ? ["team", "request", "payin"] : ["payin", "create"]),
      "--method",
      method,
      "--amount",
      amount(v.amount),
      "--currency",
      v.currency,
      ...opt("--mer-order-no", v.merOrderNo),
      ...opt("--email", v.email),
      ...opt("--user-id", v.userId),
      ...opt("--return-url", v.returnUrl),
      ...opt("--ip", v.ipAddress),
      ...opt("--notify-url", v.notifyUrl),
      ...opt("--name", name),
      ...(method === "VN_BANK" && bank !== "" ? ["--vn-bank-id", bank] : []),
      ...opt("--product", product),
      ...purposeWords(v),
    ]),
    notes,
  };
}

export interface CardMoveValues extends PurposeValues {
  profile: string;
  kind: "top_up" | "withdraw";
  /// The card's application number (not a card number: the CLI's `--card`).
  card: string;
  reference: string;
  amount: string;
  currency: string;
  subMerNo?: string;
  remark?: string;
  /// A team desk without the merchant key: `paydesk team request top-up|withdraw`.
  request?: boolean;
}

/// `paydesk card topup` / `paydesk card withdraw`.
export function cardMoveCommand(v: CardMoveValues): CliCommand {
  if (v.request) {
    return {
      line: line(v.profile, [
        "team",
        "request",
        v.kind === "top_up" ? "top-up" : "withdraw",
        "--card",
        v.card.trim(),
        "--amount",
        amount(v.amount),
        "--currency",
        v.currency,
        ...opt("--reference", v.reference),
        ...purposeWords(v, "--purpose-ref"),
      ]),
      notes: [{ key: "teamRequest" }],
    };
  }
  const words: Word[] =
    v.kind === "top_up"
      ? [
          "card",
          "topup",
          "--card",
          v.card.trim(),
          "--amount",
          amount(v.amount),
          "--currency",
          v.currency,
          ...opt("--mer-order-no", v.reference),
          ...opt("--sub-mer-no", v.subMerNo),
          ...opt("--remark", v.remark),
          ...purposeWords(v),
        ]
      : [
          "card",
          "withdraw",
          "--card",
          v.card.trim(),
          "--amount",
          amount(v.amount),
          "--currency",
          v.currency,
          ...opt("--reference", v.reference),
          // `--reference` is the withdrawal's own number here.
          ...purposeWords(v, "--purpose-ref"),
        ];
  return { line: line(v.profile, words), notes: [{ key: "sameNumber" }] };
}

/// `paydesk payout bulk FILE`: the same file, checked, planned and sent as the app does.
export function bulkCommand(
  v: {
    profile: string;
    file: string;
    includeHeld?: boolean;
    /// A team desk without the merchant key: `paydesk team request bulk FILE`.
    request?: boolean;
  } & PurposeValues,
): CliCommand {
  if (v.request) {
    return {
      line: line(v.profile, ["team", "request", "bulk", v.file, ...purposeWords(v)]),
      notes: [{ key: "teamRequest" }],
    };
  }
  return {
    line: line(v.profile, [
      "payout",
      "bulk",
      v.file,
      ...(v.includeHeld ? ["--include-held"] : []),
      ...purposeWords(v),
    ]),
    notes: [{ key: "bulkAsks" }],
  };
}

/// `paydesk journal resend ID`: a payout's account as "$ACCOUNT" (it must be the
/// payout's own; the journal keeps it masked); a PIX payin's CPF from stdin.
export function resendCommand(v: { profile: string; id: number; payout: boolean }): CliCommand {
  return v.payout
    ? {
        line: line(v.profile, ["journal", "resend", String(v.id), "--account", { env: "ACCOUNT" }]),
        notes: [{ key: "accountVariable" }],
      }
    : { line: line(v.profile, ["journal", "resend", String(v.id)]), notes: [{ key: "cpfResend" }] };
}

/// `paydesk report statement`: the days, the zone, one currency or all, from the cache
/// as the app builds it (`--offline`).
export function statementCommand(v: {
  profile: string;
  from: string;
  to: string;
  currency?: string | null;
  zone: string;
  path: string;
  force?: boolean;
}): CliCommand {
  return {
    line: line(v.profile, [
      "report",
      "statement",
      "--from",
      v.from,
      "--to",
      v.to,
      ...opt("--currency", v.currency),
      ...opt("--tz", v.zone),
      "--out",
      v.path.trim() === "" ? "statement.xlsx" : v.path.trim(),
      ...(v.force ? ["--force"] : []),
      "--offline",
    ]),
    notes: [{ key: "offline" }],
  };
}

/// The app's orders filter, as far as the CLI's `FilterArgs` take it.
export interface OrdersFilterValues {
  from?: number | null;
  to?: number | null;
  movedFrom?: number | null;
  movedTo?: number | null;
  states?: number[];
  currencies?: string[];
  methods?: string[];
  kinds?: string[];
  unknownKind?: boolean;
  settles?: number[];
  reserveStatuses?: number[];
  refunded?: boolean | null;
  reasons?: string[] | null;
  messages?: string[] | null;
  minAmount?: string | null;
  maxAmount?: string | null;
  search?: string | null;
  sort?: string;
  descending?: boolean;
}

const DAY = 86_400_000;

/// A UTC day, YYYY-MM-DD, of UTC millis.
function utcDay(ms: number): string {
  return new Date(Math.floor(ms / DAY) * DAY).toISOString().slice(0, 10);
}

/// `+08:00` of minutes east of UTC.
export function offsetText(minutes: number): string {
  const sign = minutes < 0 ? "-" : "+";
  const m = Math.abs(Math.trunc(minutes));
  return `${sign}${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`;
}

const KIND: Record<string, string> = {
  payin: "payin",
  payout: "payout",
  topUp: "top-up",
  withdraw: "withdraw",
};
const SORT: Record<string, string> = {
  created: "created",
  amount: "amount",
  state: "state",
  tradeNo: "trade-no",
};

/// `paydesk orders export FILE [filters] --tz ZONE`. The CLI's `--from`/`--to` are whole
/// UTC days: a range that is not is widened to the UTC days it touches, and said so;
/// filters the CLI does not take are named. The zone goes by name: its daylight saving
/// is the CLI's and the app's to apply, per order, never computed here.
export function ordersExportCommand(v: {
  profile: string;
  filter: OrdersFilterValues;
  path: string;
  zone: string;
  force?: boolean;
}): CliCommand {
  const f = v.filter;
  const notes: CommandNote[] = [];
  const range: Word[] = [];
  if (f.from != null) range.push("--from", utcDay(f.from));
  if (f.to != null) range.push("--to", utcDay(f.to - 1));
  if ((f.from != null && f.from % DAY !== 0) || (f.to != null && f.to % DAY !== 0)) {
    notes.push({ key: "utcDays" });
  }
  const lacking = [
    f.movedFrom != null || f.movedTo != null ? "moved" : null,
    f.unknownKind ? "unknownKind" : null,
    f.settles?.length ? "settle" : null,
    f.reserveStatuses?.length ? "reserve" : null,
    f.refunded != null ? "refunded" : null,
    f.reasons != null ? "reasons" : null,
    f.messages != null ? "messages" : null,
  ].filter((x): x is string => x !== null);
  if (lacking.length > 0)
    notes.push({ key: "filtersNotInCli", values: { fields: lacking.join(", ") } });
  const list = (flag: string, xs: (string | number)[] | undefined | null): Word[] =>
    xs && xs.length > 0 ? [flag, xs.map(String).join(",")] : [];
  const sort = SORT[f.sort ?? "created"] ?? "created";
  return {
    line: line(v.profile, [
      "orders",
      "export",
      v.path.trim() === "" ? "orders.csv" : v.path.trim(),
      ...list("--state", f.states),
      ...list("--currency", f.currencies),
      ...list("--method", f.methods),
      ...list(
        "--kind",
        (f.kinds ?? []).map((k) => KIND[k] ?? k),
      ),
      ...opt("--search", f.search),
      ...opt("--min-amount", f.minAmount),
      ...opt("--max-amount", f.maxAmount),
      ...range,
      ...(sort === "created" ? [] : ["--sort", sort]),
      ...(f.descending ? ["--desc"] : []),
      ...opt("--tz", v.zone),
      ...(v.force ? ["--force"] : []),
    ]),
    notes,
  };
}

/// `paydesk report reconcile --currency C --from MILLIS --to MILLIS|now`.
export function reconcileCommand(v: {
  profile: string;
  currency: string;
  from?: number | null;
  to?: number | null;
  zone?: string | null;
}): CliCommand {
  return {
    line: line(v.profile, [
      "report",
      "reconcile",
      "--currency",
      v.currency,
      ...(v.from != null ? ["--from", String(v.from)] : []),
      ...(v.to != null ? ["--to", String(v.to)] : []),
      ...opt("--tz", v.zone),
      "--offline",
    ]),
    notes: [{ key: "offlineSnapshots" }],
  };
}

/// `paydesk report failures --from D --to D --tz Z` (from the cache, as the screen).
export function failuresCommand(v: {
  profile: string;
  from: string;
  to: string;
  zone?: string | null;
}): CliCommand {
  return {
    line: line(v.profile, [
      "report",
      "failures",
      "--from",
      v.from,
      "--to",
      v.to,
      ...opt("--tz", v.zone),
      "--offline",
    ]),
    notes: [{ key: "offline" }],
  };
}

/// `paydesk orders lookup --file F`: the numbers typed in the app go in a file, one a line.
export function lookupCommand(v: {
  profile: string;
  file?: string | null;
  askGateway: boolean;
  refresh: boolean;
}): CliCommand {
  const file = v.file?.trim() ?? "";
  return {
    line: line(v.profile, [
      "orders",
      "lookup",
      "--file",
      file === "" ? "numbers.txt" : file,
      ...(v.askGateway ? [] : ["--offline"]),
      ...(v.refresh && v.askGateway ? ["--refresh"] : []),
    ]),
    notes: file === "" ? [{ key: "numbersFile" }] : [],
  };
}

/// `paydesk balance [--currency C,D]`.
export function balanceCommand(v: { profile: string; currencies?: string[] }): CliCommand {
  const cs = (v.currencies ?? []).filter((c) => c.trim() !== "");
  return {
    line: line(v.profile, ["balance", ...(cs.length > 0 ? ["--currency", cs.join(",")] : [])]),
    notes: [],
  };
}

/// `paydesk balance history --currency C` (Balances → a currency's history; issue 32).
export function balanceHistoryCommand(v: { profile: string; currency: string }): CliCommand {
  return {
    line: line(v.profile, ["balance", "history", "--currency", v.currency.trim()]),
    notes: [],
  };
}

/// `paydesk overview [--to C --rate D=RATE ...]` (Balances → all profiles; issue 32): the
/// totals converted only at the rates given.
export function overviewCommand(v: {
  profile: string;
  target?: string | null;
  rates: { currency: string; rate: string }[];
}): CliCommand {
  const to = v.target?.trim() ?? "";
  const rates =
    to === ""
      ? []
      : v.rates
          .filter((r) => r.rate.trim() !== "")
          .flatMap((r) => ["--rate", `${r.currency.trim()}=${r.rate.trim()}`]);
  return { line: line(v.profile, ["overview", ...opt("--to", to), ...rates]), notes: [] };
}

/// `paydesk refund show --trade-no T [--refund-no R]` (Refunds → the V1 refund query).
export function refundShowCommand(v: {
  profile: string;
  tradeNo: string;
  refundNo?: string;
}): CliCommand {
  return {
    line: line(v.profile, [
      "refund",
      "show",
      "--trade-no",
      v.tradeNo.trim(),
      ...opt("--refund-no", v.refundNo),
    ]),
    notes: [],
  };
}

/// `paydesk review submit --trade-no T --info CODE=TEXT ... --file CODE=PATH ...
/// --reference R` (Review upload's confirmation; each pair one quoted word).
export function reviewSubmitCommand(v: {
  profile: string;
  tradeNo: string;
  info: [string, string][];
  files: [string, string][];
  reference?: string;
}): CliCommand {
  return {
    line: line(v.profile, [
      "review",
      "submit",
      "--trade-no",
      v.tradeNo.trim(),
      ...v.info.flatMap(([code, text]) => ["--info", `${code}=${text}`]),
      ...v.files.flatMap(([code, path]) => ["--file", `${code}=${path}`]),
      ...opt("--reference", v.reference),
    ]),
    notes: [{ key: "sameReference" }],
  };
}
