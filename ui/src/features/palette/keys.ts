/// The orders the command palette found for what was typed.
export const paletteKeys = {
  all: ["palette"] as const,
  search: (text: string) => ["palette", text] as const,
};
