import {
  DEFAULT_THEME,
  darken,
  defaultCssVariablesResolver,
  mergeMantineTheme,
} from "@mantine/core";
import { describe, expect, it } from "vitest";
import { cssVariables } from "./theme";

const theme = mergeMantineTheme(DEFAULT_THEME, { primaryColor: "teal", primaryShade: 9 });
const ours = cssVariables(theme);
const mantine = defaultCssVariablesResolver(theme);

type Scheme = "light" | "dark";

/// A variable's colour in a scheme, ours over Mantine's, `var(...)` followed to a hex.
function color(scheme: Scheme, name: string): string {
  const v =
    (ours[scheme] as Record<string, string>)[name] ??
    (mantine[scheme] as Record<string, string>)[name] ??
    (mantine.variables as Record<string, string>)[name];
  if (!v) {
    const shade = /^--mantine-color-(\w+)-(\d)$/.exec(name);
    const hex = shade ? theme.colors[shade[1] as string]?.[Number(shade[2])] : undefined;
    if (!hex) throw new Error(`no ${name}`);
    return hex;
  }
  const ref = /^var\((--[\w-]+)\)$/.exec(v);
  return ref?.[1] ? color(scheme, ref[1]) : v;
}

/// WCAG relative luminance of "#rrggbb" or "rgba(r, g, b, a)".
function luminance(css: string) {
  const rgb = /^rgba?\((\d+),\s*(\d+),\s*(\d+)/.exec(css);
  const hex = css.replace("#", "");
  const channels = rgb
    ? [rgb[1], rgb[2], rgb[3]].map(Number)
    : [0, 2, 4].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
  const [r, g, b] = channels.map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * (r ?? 0) + 0.7152 * (g ?? 0) + 0.0722 * (b ?? 0);
}

function contrast(a: string, b: string) {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return ((hi ?? 0) + 0.05) / ((lo ?? 0) + 0.05);
}

const body = { light: "#ffffff", dark: theme.colors.dark[7] ?? "#242424" };

describe("the theme", () => {
  it("draws a danger button that is not filled in red in the dark scheme, readable", () => {
    const red = color("dark", "--mantine-color-red-light-color");
    expect(theme.colors.red).toContain(red);
    // Red to the eye, not a near-white tint of it (Mantine's dark default, red 0).
    const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(red.slice(i, i + 2), 16));
    expect((r ?? 0) - Math.max(g ?? 0, b ?? 0)).toBeGreaterThanOrEqual(80);
    expect(contrast(red, body.dark)).toBeGreaterThanOrEqual(4.5);
    // A red badge or alert keeps its text readable on its own tint.
    // (Mantine's dark tint of a colour: its ninth shade darkened by half.)
    const tint = darken(theme.colors.red[9] ?? "", 0.5);
    expect(contrast(red, tint)).toBeGreaterThanOrEqual(4.5);
  });

  it("writes field errors readably in the dark scheme and keeps light's red", () => {
    const error = color("dark", "--mantine-color-error");
    expect(theme.colors.red).toContain(error);
    // A field's error is written under the field, on the page or in a drawer (dark 7),
    // or in a dark input's own background (dark 6).
    for (const ground of [body.dark, theme.colors.dark[6] ?? "#2e2e2e"]) {
      expect(contrast(error, ground), ground).toBeGreaterThanOrEqual(4.5);
    }
    expect(color("light", "--mantine-color-error")).toBe(theme.colors.red[9]);
    expect(contrast(color("light", "--mantine-color-error"), body.light)).toBeGreaterThanOrEqual(
      4.5,
    );
  });

  it("keeps the danger button filled red in both schemes", () => {
    for (const scheme of ["light", "dark"] as const) {
      expect(theme.colors.red, scheme).toContain(color(scheme, "--mantine-color-red-filled"));
    }
  });

  it("writes a disabled button's label readably in both schemes", () => {
    for (const scheme of ["light", "dark"] as const) {
      const text = color(scheme, "--mantine-color-disabled-color");
      const ground = color(scheme, "--mantine-color-disabled");
      expect(contrast(text, ground), scheme).toBeGreaterThanOrEqual(4.5);
    }
  });
});
