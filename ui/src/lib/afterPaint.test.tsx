import { act } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderQueryHook } from "../test/render";
import { useAfterFirstPaint } from "./afterPaint";

describe("useAfterFirstPaint", () => {
  it("is false at the first render and true once the next frame has been drawn", async () => {
    const { result } = renderQueryHook(() => useAfterFirstPaint());
    expect(result.current).toBe(false);
    await act(async () => {
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 5)));
    });
    expect(result.current).toBe(true);
  });
});
