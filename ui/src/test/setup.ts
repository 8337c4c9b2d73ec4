// jsdom lacks what Mantine measures with.
import { cleanup, configure } from "@testing-library/react";
import { afterEach, vi } from "vitest";

// On two busy cores a rendered form can take more than the library's 1 s to show what a
// test waits for (seen as a different ProfileForm test failing on different runs): wait up
// to 5 s, still far below a stuck test's time-out.
configure({ asyncUtilTimeout: 5000 });

// Each test starts on an empty page (no globals: Testing Library cannot do it itself).
afterEach(cleanup);

Object.defineProperty(window, "matchMedia", {
  writable: true,
  value: vi.fn().mockImplementation((query: string) => ({
    matches: false,
    media: query,
    onchange: null,
    addListener: vi.fn(),
    removeListener: vi.fn(),
    addEventListener: vi.fn(),
    removeEventListener: vi.fn(),
    dispatchEvent: vi.fn(),
  })),
});

class ResizeObserverStub {
  observe() {}
  unobserve() {}
  disconnect() {}
}
window.ResizeObserver = ResizeObserverStub;
window.HTMLElement.prototype.scrollIntoView = () => {};
