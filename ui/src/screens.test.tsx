import { fireEvent, screen } from "@testing-library/react";
import { createMemoryRouter, matchRoutes, type RouteObject, RouterProvider } from "react-router";
import { describe, expect, it, vi } from "vitest";
import { screenActions } from "./features/palette/CommandPalette";
import i18n from "./i18n";
import { en } from "./i18n/en";
import { zh } from "./i18n/zh";
import { SCREENS, screenRoutes } from "./screens";
import { ScreenNav } from "./shell/Shell";
import { renderUi } from "./test/render";

const lookUp = (catalogue: object, key: string) =>
  key
    .split(".")
    .reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], catalogue);

describe("the screen registry", () => {
  it("names every screen once, by id and by path", () => {
    expect(new Set(SCREENS.map((s) => s.id)).size).toBe(SCREENS.length);
    expect(new Set(SCREENS.map((s) => s.path)).size).toBe(SCREENS.length);
    expect(SCREENS.map((s) => s.path)).toContain("/");
  });

  it("labels every screen in English and in Chinese", () => {
    for (const s of SCREENS) {
      const english = lookUp(en, s.label);
      const chinese = lookUp(zh, s.label);
      expect(typeof english, s.label).toBe("string");
      expect(typeof chinese, s.label).toBe("string");
      expect(chinese, s.label).not.toBe(english);
    }
  });

  it("routes every screen's path to that screen's own component", async () => {
    const routes: RouteObject[] = [{ path: "/", children: screenRoutes() }];
    expect(routes[0]?.children).toHaveLength(SCREENS.length);
    for (const s of SCREENS) {
      const matched = matchRoutes(routes, s.path);
      expect(
        matched?.map((m) => m.pathname),
        s.path,
      ).toEqual(s.path === "/" ? ["/", "/"] : ["/", s.path]);
      const route = matched?.at(-1)?.route;
      const load = route?.lazy as (() => Promise<RouteObject>) | undefined;
      const shown = load ? (await load()).Component : route?.Component;
      const expected = "Component" in s.page ? s.page.Component : await s.page.load();
      expect(typeof shown, s.path).toBe("function");
      expect(shown, s.path).toBe(expected);
    }
  });

  it("gives every screen a navigation entry that opens it", () => {
    const router = createMemoryRouter([{ path: "*", element: <ScreenNav /> }], {
      initialEntries: ["/elsewhere"],
    });
    renderUi(<RouterProvider router={router} />);
    for (const s of SCREENS) {
      const entry = screen.getByTestId(`nav-${s.id}`);
      expect(entry.textContent).toBe(lookUp(en, s.label));
      fireEvent.click(entry);
      expect(router.state.location.pathname).toBe(s.path);
    }
    expect(screen.getAllByRole("button")).toHaveLength(SCREENS.length);
  });

  it("gives every screen a palette entry that opens it", () => {
    const navigate = vi.fn();
    const actions = screenActions(i18n.t, navigate);
    expect(actions).toHaveLength(SCREENS.length);
    for (const s of SCREENS) {
      const action = actions.find((a) => a.id === `screen-${s.path}`);
      expect(action?.label, s.path).toBe(lookUp(en, s.label));
      action?.onClick?.({} as never);
      expect(navigate).toHaveBeenLastCalledWith(s.path);
    }
  });
});
