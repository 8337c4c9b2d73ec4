import { useEffect, useRef } from "react";

/// Where focus goes when the element that had it is gone: the screen's result (a
/// receipt marks itself `data-focus-home`), else the screen's first heading, else the
/// main region.
export function focusHome() {
  const main = document.getElementById("main");
  if (!main) return;
  const target =
    main.querySelector<HTMLElement>("[data-focus-home]") ??
    main.querySelector<HTMLElement>("h2, h1, h3") ??
    main;
  if (!target.hasAttribute("tabindex")) target.setAttribute("tabindex", "-1");
  target.focus({ preventScroll: true });
}

/// After the palette opened a screen: once it has closed and given focus back to where
/// it was (the old screen's field, or a navigation link), focus moves into the screen
/// opened, where the user goes on working.
export function focusScreenSoon() {
  for (const ms of [250, 600]) {
    setTimeout(() => {
      if (!document.getElementById("main")?.contains(document.activeElement)) focusHome();
    }, ms);
  }
}

/// An element that can no longer hold focus: gone from the page, or disabled (a button
/// that sent something and now waits, which WebKit leaves by dropping focus).
const unusable = (e: Element) =>
  !e.isConnected ||
  ((e as HTMLButtonElement | HTMLInputElement).disabled === true &&
    !e.hasAttribute("data-loading"));

const lost = () => {
  const a = document.activeElement;
  return a === null || a === document.body || a === document.documentElement;
};

/// Focus stays where the user works. When the element with focus leaves the page (the
/// screen changed under the palette, a form gave way to its receipt, a dialog closed
/// onto a button that is gone), WebKit leaves focus on the page itself and the next Tab
/// starts again from the top of the window; here it moves to what took its place. A
/// click on nothing (the element is still there) is the user's choice and is left alone.
export function useKeepFocus(pathname: string) {
  const last = useRef<Element | null>(null);
  useEffect(() => {
    const onFocusIn = (e: FocusEvent) => {
      last.current = e.target instanceof Element ? e.target : null;
    };
    let queued = false;
    const check = () => {
      queued = false;
      const was = last.current;
      if (!was || !unusable(was) || !lost()) return;
      // Still sending (a button shows it is busy) and no result yet: wait for the result,
      // which the next change of the page brings.
      const main = document.getElementById("main");
      if (main?.querySelector("[data-loading]") && !main.querySelector("[data-focus-home]")) return;
      focusHome();
    };
    const observer = new MutationObserver(() => {
      if (queued || !last.current || !unusable(last.current)) return;
      queued = true;
      // After the dialog or the screen has finished giving focus back.
      setTimeout(check, 60);
    });
    document.addEventListener("focusin", onFocusIn);
    observer.observe(document.body, { childList: true, subtree: true });
    return () => {
      document.removeEventListener("focusin", onFocusIn);
      observer.disconnect();
    };
  }, []);

  const first = useRef(true);
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the screen changes
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const timer = setTimeout(() => {
      if (lost()) focusHome();
    }, 120);
    return () => clearTimeout(timer);
  }, [pathname]);
}
