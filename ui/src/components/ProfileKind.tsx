import { Badge, darken, useMantineTheme } from "@mantine/core";
import { useTranslation } from "react-i18next";
import type { Profile } from "../lib/types";

/// A profile's kind in a list: the built-in sandbox (no real money) or a live gateway.
export function ProfileKind({ profile }: { profile: Pick<Profile, "baseUrl"> }) {
  const { t } = useTranslation();
  const theme = useMantineTheme();
  const sandbox = profile.baseUrl === null;
  return (
    <Badge
      size="sm"
      // Orange darkened for white text's contrast (WCAG AA).
      color={sandbox ? darken(theme.colors.orange[9] ?? "#d9480f", 0.25) : "red.9"}
      variant={sandbox ? "filled" : "outline"}
      data-testid="profile-kind"
      data-kind={sandbox ? "sandbox" : "live"}
    >
      {sandbox ? t("app.sandbox") : t("app.live")}
    </Badge>
  );
}
