import {
  ActionIcon,
  AppShell,
  Badge,
  Button,
  Center,
  darken,
  Group,
  Loader,
  NavLink,
  Stack,
  Text,
  Title,
  Tooltip,
  useMantineTheme,
} from "@mantine/core";
import { IconSearch } from "@tabler/icons-react";
import { useLayoutEffect } from "react";
import { useTranslation } from "react-i18next";
import { Outlet, useLocation, useNavigate } from "react-router";
import { ErrorAlert } from "../components/ErrorAlert";
import { useKeepFocus } from "../components/useKeepFocus";
import { AlertInbox } from "../features/alerts/AlertInbox";
import { useAppStatus, useNotificationWatch } from "../features/app/queries";
import { FirstRunSync } from "../features/dashboard/FirstRun";
import { CommandPalette, openPalette } from "../features/palette/CommandPalette";
import { SettingsPage } from "../features/settings/SettingsPage";
import { useTeamStatus } from "../features/team/queries";
import { SCREENS } from "../screens";
import { MissingSecrets, missingSecretOf } from "./MissingSecrets";

/// One entry per registered screen, the current one marked.
export function ScreenNav() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  return SCREENS.map((s) => (
    <NavLink
      key={s.path}
      label={t(s.label)}
      leftSection={<s.icon size={18} />}
      active={location.pathname === s.path}
      onClick={() => navigate(s.path)}
      component="button"
      data-testid={`nav-${s.id}`}
    />
  ));
}

function ModeBanner() {
  const { t } = useTranslation();
  const theme = useMantineTheme();
  const { data } = useAppStatus();
  if (!data) return null;
  return (
    <Group gap="xs" data-testid="mode-banner" wrap="nowrap">
      <Tooltip label={data.sandbox ? t("app.sandboxHint") : t("app.liveHint")}>
        <Badge
          color={data.sandbox ? darken(theme.colors.orange[9] ?? "#d9480f", 0.25) : "gray"}
          variant={data.sandbox ? "filled" : "outline"}
          size="lg"
          data-testid="mode-badge"
          data-mode={data.sandbox ? "sandbox" : "live"}
        >
          {data.sandbox ? t("app.sandbox") : t("app.live")}
        </Badge>
      </Tooltip>
      <Text size="sm" data-testid="banner-profile" data-profile={data.profile.name}>
        {t("app.profile", { name: data.profile.name })}
      </Text>
      <Text size="sm" c="dimmed" data-testid="banner-merchant">
        {t("app.merchant", { merNo: data.profile.merNo })}
      </Text>
      <TeamMember />
    </Group>
  );
}

/// The sandbox's full-width strip above everything (as a test mode is shown): no real
/// money moves. A live profile has none: its header stays neutral.
const STRIP = 22;
function SandboxStrip({ profile }: { profile: string }) {
  const { t } = useTranslation();
  const theme = useMantineTheme();
  return (
    <Center
      h={STRIP}
      bg={darken(theme.colors.orange[9] ?? "#d9480f", 0.25)}
      c="white"
      data-testid="sandbox-strip"
      role="note"
    >
      <Text size="xs" fw={700} c="white">
        {t("mode.sandboxStrip", { profile })}
      </Text>
    </Center>
  );
}

/// On a team desk: the member (database user) and the roles the database gave them, and
/// whether this desk holds the merchant key.
function TeamMember() {
  const { t } = useTranslation();
  const team = useTeamStatus().data;
  if (!team) return null;
  const roles = team.roles.map((r) => t(`team.role.${r}`)).join(", ");
  return (
    <Tooltip
      label={t(team.holdsKey ? "team.bannerSignerHint" : "team.bannerNoKeyHint", {
        host: team.host,
        database: team.database,
      })}
      multiline
      w={320}
    >
      <Badge
        variant="outline"
        size="lg"
        data-testid="banner-member"
        data-roles={team.roles.join(",")}
      >
        {t("team.banner", { user: team.user, roles })}
        {team.holdsKey ? "" : ` · ${t("team.noKeyShort")}`}
      </Badge>
    </Tooltip>
  );
}

/// Every screen opens at its top: the page scrolls as a whole (the window, shared by all
/// screens), so without this a screen opened from far down another one starts far down.
/// Within a screen (a drawer's order in the address) the position stays.
function useScreensOpenAtTop(pathname: string) {
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the screen changes
  useLayoutEffect(() => {
    window.scrollTo(0, 0);
  }, [pathname]);
}

/// Refreshes what a notification changed, while the desk is open.
function NotificationWatch() {
  useNotificationWatch();
  return null;
}

export function Shell() {
  const { t } = useTranslation();
  const status = useAppStatus();
  const navigate = useNavigate();
  const location = useLocation();
  useScreensOpenAtTop(location.pathname);
  useKeepFocus(location.pathname);

  const sandbox = status.data?.sandbox === true;
  const missing = missingSecretOf(status.error);
  if (missing) return <MissingSecrets message={missing} onRetry={() => status.refetch()} />;

  if (status.isPending) {
    return (
      <Center h="100vh">
        <Stack align="center">
          <Loader />
          <Text>{t("app.loading")}</Text>
        </Stack>
      </Center>
    );
  }

  return (
    <AppShell
      header={{ height: sandbox ? 56 + STRIP : 56 }}
      navbar={{ width: 180, breakpoint: 0 }}
      padding="md"
    >
      <a href="#main" className="skip-link">
        {t("app.skipToContent")}
      </a>
      <AppShell.Header>
        {sandbox && status.data ? <SandboxStrip profile={status.data.profile.name} /> : null}
        <Group h={56} px="md" justify="space-between" wrap="nowrap">
          <Group gap="md" wrap="nowrap">
            <Title order={1} size="h4">
              {t("app.name")}
            </Title>
            <ModeBanner />
          </Group>
          <Group gap="sm" wrap="nowrap">
            <AlertInbox enabled={status.data !== undefined} />
            <Tooltip label={t("app.palette")}>
              <ActionIcon
                variant="default"
                size="lg"
                onClick={openPalette}
                aria-label={t("app.palette")}
                data-testid="palette-button"
              >
                <IconSearch size={18} />
              </ActionIcon>
            </Tooltip>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" component="nav" aria-label={t("nav.main")}>
        <ScreenNav />
      </AppShell.Navbar>
      <AppShell.Main id="main">
        {status.isError ? (
          <Stack>
            <ErrorAlert error={status.error} title={t("app.startFailed")} />
            <Group>
              <Button onClick={() => status.refetch()}>{t("app.retry")}</Button>
            </Group>
            {location.pathname === "/settings" ? <SettingsPage /> : null}
            {location.pathname !== "/settings" ? (
              <Button variant="subtle" onClick={() => navigate("/settings")}>
                {t("app.openSettings")}
              </Button>
            ) : null}
          </Stack>
        ) : (
          <Outlet />
        )}
      </AppShell.Main>
      <CommandPalette />
      {status.data ? <NotificationWatch /> : null}
      <FirstRunSync />
    </AppShell>
  );
}
