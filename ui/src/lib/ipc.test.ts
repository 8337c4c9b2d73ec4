import { afterEach, describe, expect, it } from "vitest";
import i18n from "../i18n";
import { brokenRuleText, coreError, fieldError, fieldOf, IpcError, unwrap } from "./ipc";

describe("unwrap", () => {
  it("answers the data of an ok result", async () => {
    await expect(unwrap(Promise.resolve({ status: "ok" as const, data: 42 }))).resolves.toBe(42);
  });

  it("throws the core error of an error result, code intact", async () => {
    const error = { code: "validation" as const, field: "clabe", rule: "check digit is wrong" };
    const thrown = await unwrap(Promise.resolve({ status: "error" as const, error })).catch(
      (e: unknown) => e,
    );
    expect(thrown).toBeInstanceOf(IpcError);
    expect(coreError(thrown)).toEqual(error);
    expect(fieldOf(thrown)).toEqual({ field: "clabe", rule: "check digit is wrong" });
  });

  it("reads anything else thrown as an internal error with no field", () => {
    expect(coreError(new Error("boom"))).toEqual({ code: "internal", message: "boom" });
    expect(fieldOf("boom")).toBeNull();
  });
});

describe("fieldError", () => {
  const invalid = (field: string) =>
    new IpcError({ code: "validation", field, rule: "must be greater than zero" });

  it("puts a rule under the field it names, or under the list an item belongs to", () => {
    expect(fieldError(invalid("sourceAmount"), "sourceAmount")).toBe("must be greater than zero");
    expect(fieldError(invalid("products[1].price"), "products")).toBe("must be greater than zero");
    expect(fieldError(invalid("browser.userAgent"), "browser")).toBe("must be greater than zero");
  });

  it("leaves other fields and other errors alone", () => {
    expect(fieldError(invalid("sourceAmountX"), "sourceAmount")).toBeUndefined();
    expect(fieldError(invalid("clabe"), "cardNo", "sourceAmount")).toBeUndefined();
    expect(
      fieldError(new IpcError({ code: "not_sent", message: "refused" }), "clabe"),
    ).toBeUndefined();
  });
});

// As the core sends a CLABE whose check digit is wrong, and an amount of zero.
const clabe = new IpcError({
  code: "validation",
  field: "clabe",
  rule: "check digit is wrong (expected 1)",
  ruleKey: "clabeCheckDigit",
  ruleParams: { expected: "1" },
});
const amount = new IpcError({
  code: "validation",
  field: "amount",
  rule: "must be greater than zero, got 0",
  ruleKey: "amountPositive",
  ruleParams: { got: "0" },
});

afterEach(async () => {
  await i18n.changeLanguage("en");
});

describe("a rule the core states with a message key", () => {
  it("is shown in Chinese in a Chinese window, with the values it names", async () => {
    await i18n.changeLanguage("zh");
    expect(fieldError(clabe, "clabe")).toBe("校验位不正确（应为 1）");
    expect(fieldError(amount, "amount")).toBe("必须大于零，收到的是 0");
    const card = new IpcError({
      code: "validation",
      field: "cardNo",
      rule: "fails the Luhn check digit",
      ruleKey: "cardLuhn",
    });
    expect(fieldError(card, "cardNo")).toBe("未通过 Luhn 校验位检查");
  });

  it("is the core's own English words in an English window", () => {
    expect(fieldError(clabe, "clabe")).toBe("check digit is wrong (expected 1)");
    expect(fieldOf(amount)?.rule).toBe("must be greater than zero, got 0");
  });

  // As the core sends a profile form's problem and a bulk file's row error.
  const taken = { field: "name", rule: "is already taken", ruleKey: "nameTaken" };
  const repeated = {
    line: 4,
    field: "merOrderNo",
    rule: "PO-7 is already used on line 2; each row needs its own",
    ruleKey: "orderNoRepeated",
    ruleParams: { orderNo: "PO-7", line: "2" },
    value: "PO-7",
  };
  const pageSize = new IpcError({
    code: "validation",
    field: "sync.pageSize",
    rule: "must be between 1 and 100 orders",
    ruleKey: "pageSizeRange",
    ruleParams: { count: "100" },
  });

  it("of a profile, a setting or a bulk row is in Chinese in a Chinese window", async () => {
    await i18n.changeLanguage("zh");
    expect(brokenRuleText(taken)).toBe("已被使用");
    expect(brokenRuleText(repeated)).toBe("PO-7 已在第 2 行使用；每行都需要自己的订单号");
    expect(fieldError(pageSize, "sync")).toBe("必须在 1 到 100 笔订单之间");
  });

  it("of a profile, a setting or a bulk row reads as the core's English in English", () => {
    for (const r of [taken, repeated, coreError(pageSize) as typeof taken]) {
      expect(brokenRuleText(r)).toBe(r.rule);
    }
  });

  // A team batch refused for its first bad row: the row's own rule quoted (`Rule::quoting`).
  const batch = {
    rule: "3 row(s) have errors; the first, line 4: account check digit is wrong (expected 1)",
    ruleKey: "batchRowErrors",
    ruleParams: {
      rows: "3",
      line: "4",
      field: "account",
      rule: "check digit is wrong (expected 1)",
      quoted: "rule",
      quotedKey: "clabeCheckDigit",
      "quoted.expected": "1",
    },
  };

  it("words a quoted rule in the window's language too", async () => {
    await i18n.changeLanguage("zh");
    expect(brokenRuleText(batch)).toBe(
      "3 行有错误；第一处在第 4 行：account 校验位不正确（应为 1）",
    );
    await i18n.changeLanguage("en");
    expect(brokenRuleText(batch)).toBe(batch.rule);
  });

  it("falls back to the core's words when the catalogue has no such key", async () => {
    await i18n.changeLanguage("zh");
    const e = new IpcError({
      code: "validation",
      field: "x",
      rule: "a rule of a newer core",
      ruleKey: "notInTheCatalogue",
    });
    expect(fieldOf(e)?.rule).toBe("a rule of a newer core");
  });
});
