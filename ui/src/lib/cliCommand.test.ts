import { describe, expect, it } from "vitest";
import {
  balanceCommand,
  balanceHistoryCommand,
  bulkCommand,
  type CliCommand,
  cardMoveCommand,
  failuresCommand,
  lookupCommand,
  offsetText,
  ordersExportCommand,
  overviewCommand,
  payinCommand,
  payoutCardCommand,
  payoutClabeCommand,
  reconcileCommand,
  refundShowCommand,
  resendCommand,
  reviewSubmitCommand,
  shellQuote,
  statementCommand,
} from "./cliCommand";
// The expected lines, written from the README's syntax of `paydesk`; the CLI's test
// `copied_commands_parse` runs each through `sh` and the CLI's own parser.
import fixture from "./cliCommand.fixture.json";

const CLABE = "646180157000000004";
const CARD = "4111111111111111";
const CPF = "12345678909";

/// What a POSIX shell makes of a line, for the simple lines built here: words split on
/// spaces outside quotes, single quotes literal, "$VAR" replaced from `env`.
function shellWords(line: string, env: Record<string, string> = {}): string[] {
  const out: string[] = [];
  let cur: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (c === " ") {
      if (cur !== null) out.push(cur);
      cur = null;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      expect(end, `unclosed quote in ${line}`).toBeGreaterThan(i);
      cur = (cur ?? "") + line.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      const end = line.indexOf('"', i + 1);
      const inner = line.slice(i + 1, end);
      expect(inner).toMatch(/^\$[A-Z_]+$/);
      cur = (cur ?? "") + (env[inner.slice(1)] ?? "");
      i = end;
    } else if (c === "\\") {
      cur = (cur ?? "") + (line[i + 1] ?? "");
      i++;
    } else {
      expect("$`;&|<>(){}*?[]~#!\n".includes(c), `unquoted ${c} in ${line}`).toBe(false);
      cur = (cur ?? "") + c;
    }
  }
  if (cur !== null) out.push(cur);
  return out;
}

const cases: Record<keyof typeof fixture, () => CliCommand> = {
  payoutClabe: () =>
    payoutClabeCommand({
      profile: "Acme Payroll",
      merOrderNo: "PO-20261127-0001",
      amount: " 1234.50 ",
      currency: "MXN",
      ipAddress: "",
      notifyUrl: "",
      purpose: { text: " March payroll ", reference: "INV-1042" },
    }),
  payoutBeneficiary: () =>
    payoutClabeCommand({
      profile: "main",
      merOrderNo: "PO-9",
      amount: "10.00",
      currency: "MXN",
      beneficiary: " rent ",
    }),
  requestPayoutBeneficiary: () =>
    payoutClabeCommand({
      profile: "team-mx",
      merOrderNo: "PO-10",
      amount: "20.00",
      currency: "MXN",
      beneficiary: "rent",
      request: true,
    }),
  payoutCard: () =>
    payoutCardCommand({
      profile: "main",
      merOrderNo: "PO-20261127-0002",
      amount: "25.00",
      currency: "USD",
      firstName: "Mary Ann",
      lastName: "O'Brien",
      countryCode: "US",
      city: "New York",
      postCode: "10001",
      beneficiaryType: "company",
    }),
  payinPix: () =>
    payinCommand({
      profile: "main",
      method: "PIX",
      merOrderNo: "PI-1",
      amount: "10.00",
      currency: "BRL",
      name: "João Silva",
    }),
  payinSepa: () =>
    payinCommand({
      profile: "main",
      method: "SEPA",
      merOrderNo: "PI-2",
      amount: "99.99",
      currency: "EUR",
      email: "ann@example.com",
      firstName: "Ann",
      lastName: "Lee",
    }),
  payinWechatV1: () =>
    payinCommand({
      profile: "main",
      method: "WECHAT_V1",
      merOrderNo: "PI-3",
      amount: "8",
      currency: "CNY",
      products: ["Tea; rm -rf ~"],
    }),
  cardTopUp: () =>
    cardMoveCommand({
      profile: "main",
      kind: "top_up",
      card: "APPLY-77",
      reference: "TU-1",
      amount: "50.00",
      currency: "USD",
    }),
  cardWithdraw: () =>
    cardMoveCommand({
      profile: "main",
      kind: "withdraw",
      card: "APPLY-77",
      reference: "WD-1",
      amount: "5.10",
      currency: "USD",
      purpose: { text: "Float for O'Hara", reference: "T-88" },
    }),
  bulk: () =>
    bulkCommand({
      profile: "main",
      file: "/home/ana/Payroll Nov.csv",
      includeHeld: true,
      purpose: { text: "Payroll November" },
    }),
  resendPayout: () => resendCommand({ profile: "main", id: 42, payout: true }),
  resendPayin: () => resendCommand({ profile: "main", id: 43, payout: false }),
  statement: () =>
    statementCommand({
      profile: "main",
      from: "2026-11-01",
      to: "2026-11-30",
      currency: "MXN",
      zone: "America/Mexico_City",
      path: "/tmp/Statement $HOME.pdf",
    }),
  ordersExport: () =>
    ordersExportCommand({
      profile: "main",
      filter: {
        from: Date.UTC(2026, 10, 1),
        to: Date.UTC(2026, 11, 1),
        states: [2, 5],
        currencies: ["MXN", "USD"],
        kinds: ["payout", "topUp"],
        search: "PO 1",
        minAmount: "10.00",
        sort: "amount",
        descending: true,
      },
      path: "/tmp/orders.csv",
      zone: "Asia/Shanghai",
      force: true,
    }),
  reconcile: () =>
    reconcileCommand({
      profile: "main",
      currency: "MXN",
      from: 1764201600000,
      to: 1764288000000,
      zone: "UTC",
    }),
  failures: () =>
    failuresCommand({
      profile: "main",
      from: "2026-11-21",
      to: "2026-11-27",
      zone: "Asia/Shanghai",
    }),
  lookup: () => lookupCommand({ profile: "main", askGateway: false, refresh: true }),
  balance: () => balanceCommand({ profile: "main", currencies: ["MXN", "USD"] }),
  balanceHistory: () => balanceHistoryCommand({ profile: "main", currency: "MXN" }),
  overview: () =>
    overviewCommand({
      profile: "main",
      target: "MXN",
      rates: [
        { currency: "USD", rate: "17.05" },
        { currency: "EUR", rate: " " },
      ],
    }),
  refundShow: () =>
    refundShowCommand({ profile: "main", tradeNo: " T2026112700001 ", refundNo: "R-1" }),
  reviewSubmit: () =>
    reviewSubmitCommand({
      profile: "main",
      tradeNo: "T2026112700001",
      info: [
        ["1", 'Invoice 55, "paid"'],
        ["2", "O'Hara"],
      ],
      files: [["21", "/home/ana/scans/pass port.png"]],
      reference: "RV-1",
    }),
  requestPayout: () =>
    payoutClabeCommand({
      profile: "team-mx",
      merOrderNo: "PO-7",
      amount: "300.00",
      currency: "MXN",
      ipAddress: "10.0.0.1",
      request: true,
    }),
  requestPayin: () =>
    payinCommand({
      profile: "team-mx",
      method: "SEPA",
      merOrderNo: "PI-7",
      amount: "12.00",
      currency: "EUR",
      firstName: "Ann",
      lastName: "Lee",
      request: true,
    }),
  requestTopUp: () =>
    cardMoveCommand({
      profile: "team-mx",
      kind: "top_up",
      card: "APPLY-77",
      reference: "TU-7",
      amount: "50.00",
      currency: "USD",
      request: true,
    }),
  requestBulk: () =>
    bulkCommand({
      profile: "team-mx",
      file: "/home/ana/Payroll Nov.csv",
      includeHeld: true,
      request: true,
    }),
};

describe("the paydesk command of an app action", () => {
  it("is the line the CLI's syntax gives, for every action and report", () => {
    expect(Object.keys(cases).sort()).toEqual(Object.keys(fixture).sort());
    for (const [name, make] of Object.entries(cases)) {
      expect(make().line, name).toBe(fixture[name as keyof typeof fixture]);
    }
  });

  it("names the profile, quoted when it has spaces or quotes", () => {
    for (const make of Object.values(cases)) {
      const words = shellWords(make().line);
      expect(words.slice(0, 2)).toEqual(["paydesk", "--profile"]);
    }
    const odd = `Ana's "live" desk`;
    const words = shellWords(balanceCommand({ profile: odd }).line);
    expect(words).toEqual(["paydesk", "--profile", odd, "balance"]);
  });

  it("quotes any text so that the shell gives it back unchanged, and runs nothing", () => {
    const hostile = [
      "",
      "plain",
      "two words",
      "it's",
      "''",
      `"$(rm -rf /)"`,
      "`id`",
      "a\\b",
      "$HOME",
      "x;y|z&w",
      "tab\there",
      "line\nbreak",
      "~root",
      "=ls",
      "*.csv",
      "-- --force",
      "émoji 💸",
    ];
    for (const s of hostile) {
      const q = shellQuote(s);
      // Single-quoted words hold their newline; split here only on spaces.
      expect(shellWords(`x ${q}`), JSON.stringify(s)).toEqual(["x", s]);
    }
    expect(shellQuote("")).toBe("''");
    expect(shellQuote("MXN")).toBe("MXN");
  });

  it("never shows a CLABE, a card number or a CPF, even when the form holds them", () => {
    const clabe = payoutClabeCommand({
      profile: "main",
      merOrderNo: "PO-9",
      amount: "1.00",
      currency: "MXN",
      // The form's values go in whole: the builder takes no account field at all.
      ...({ clabe: CLABE } as object),
    });
    const card = payoutCardCommand({
      profile: "main",
      merOrderNo: "PO-10",
      amount: "1.00",
      currency: "USD",
      firstName: "A",
      lastName: "B",
      ...({ cardNo: CARD } as object),
    });
    const pix = payinCommand({
      profile: "main",
      method: "PIX",
      merOrderNo: "PI-9",
      amount: "1.00",
      currency: "BRL",
      name: "P",
      ...({ socialSecurityNumber: CPF } as object),
    });
    const resend = resendCommand({ profile: "main", id: 7, payout: true });
    for (const c of [clabe, card, pix, resend]) {
      for (const secret of [CLABE, CARD, CPF, CLABE.slice(-10), CARD.slice(-8)]) {
        expect(c.line).not.toContain(secret);
      }
    }
    // The CLABE is the shell's variable, which the shell fills in: the command works.
    const filled = shellWords(clabe.line, { CLABE });
    expect(filled[filled.indexOf("--clabe") + 1]).toBe(CLABE);
    expect(clabe.notes.map((n) => n.key)).toContain("clabeVariable");
    // The card number and the CPF are read from stdin or asked for: not in the line.
    expect(shellWords(card.line)).not.toContain("--card-no");
    expect(card.notes.map((n) => n.key)).toContain("cardStdin");
    expect(shellWords(pix.line)).not.toContain("--ssn");
    expect(pix.notes.map((n) => n.key)).toContain("cpfStdin");
    // What the CLI fills in itself is said, for the methods that take such fields.
    expect(cases.payinSepa().notes.map((n) => n.key)).toContain("payinDefaults");
    expect(cases.payinWechatV1().notes.map((n) => n.key)).not.toContain("payinDefaults");
  });

  it("keeps amounts as the decimal strings typed, never through a number", () => {
    const big = "123456789012345678.99";
    const w = shellWords(
      payoutClabeCommand({ profile: "p", merOrderNo: "", amount: big, currency: "MXN" }).line,
    );
    expect(w[w.indexOf("--amount") + 1]).toBe(big);
    // No order number typed: none given, the CLI makes one.
    expect(w).not.toContain("--mer-order-no");
  });

  it("says what the CLI cannot express: filters it lacks, ranges not on UTC days", () => {
    const c = ordersExportCommand({
      profile: "p",
      filter: {
        from: Date.UTC(2026, 10, 1) - 8 * 3_600_000,
        to: Date.UTC(2026, 10, 2) - 8 * 3_600_000,
        refunded: true,
        reasons: ["R1"],
      },
      path: "",
      zone: "Asia/Kolkata",
    });
    const w = shellWords(c.line);
    expect(w[w.indexOf("--from") + 1]).toBe("2026-10-31");
    expect(w[w.indexOf("--to") + 1]).toBe("2026-11-01");
    expect(w[w.indexOf("--tz") + 1]).toBe("Asia/Kolkata");
    expect(c.notes.map((n) => n.key)).toEqual(["utcDays", "filtersNotInCli"]);
    expect(c.notes[1]?.values?.fields).toBe("refunded, reasons");
    expect(offsetText(0)).toBe("+00:00");
    expect(offsetText(345)).toBe("+05:45");
  });
});
