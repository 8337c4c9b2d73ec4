import { describe, expect, it } from "vitest";
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
