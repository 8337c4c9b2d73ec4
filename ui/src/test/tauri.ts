// A stand-in for `@tauri-apps/api/core` in unit tests: `invoke` is a mock each test
// programs; a Channel is a plain object whose `onmessage` the mock may call.
import { vi } from "vitest";

const core = vi.hoisted(() => {
  class Channel<T> {
    onmessage: (message: T) => void = () => {};
  }
  return { invoke: vi.fn(), Channel };
});

vi.mock("@tauri-apps/api/core", () => core);

export const invoke = core.invoke;
