import { afterEach, describe, expect, it } from "vitest";
import i18n from "../i18n";
import { coreError, fieldError, fieldOf, IpcError, unwrap } from "./ipc";

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
