// Every screen of the desk, declared once: the router's routes, the navigation and the
// command palette are all read from this list, so a screen cannot be reachable in one
// and missing from another.
import {
  IconArrowBackUp,
  IconBell,
  IconCash,
  IconChecklist,
  IconCoins,
  IconCreditCard,
  IconFileUpload,
  IconHistory,
  IconLayoutDashboard,
  IconListDetails,
  IconListSearch,
  IconReportMoney,
  IconSend,
  IconSettings,
  IconUsersGroup,
  type TablerIcon,
} from "@tabler/icons-react";
import type { ComponentType } from "react";
import type { RouteObject } from "react-router";
import { DashboardPage } from "./features/dashboard/DashboardPage";
import { SettingsPage } from "./features/settings/SettingsPage";
import type { en } from "./i18n/en";

/// A screen's name: a key of the catalogues' `nav` section, checked when compiling.
export type ScreenLabel = `nav.${Exclude<keyof typeof en.nav, "main">}`;

/// Where a screen's component comes from: at hand (the first screen painted, and the
/// settings, which the shell shows even when the desk failed to open), or loaded the
/// first time the screen is opened, so the first paint parses only what it shows.
type Page = { Component: ComponentType } | { load: () => Promise<ComponentType> };

export interface Screen {
  /// Names the screen's navigation entry (`nav-<id>`) and its `screen-<id>` root.
  id: string;
  path: string;
  label: ScreenLabel;
  icon: TablerIcon;
  page: Page;
}

function lazy<M extends Record<string, unknown>>(load: () => Promise<M>, name: keyof M): Page {
  return { load: async () => (await load())[name] as ComponentType };
}

export const SCREENS: readonly Screen[] = [
  {
    id: "dashboard",
    path: "/",
    label: "nav.dashboard",
    icon: IconLayoutDashboard,
    page: { Component: DashboardPage },
  },
  {
    id: "orders",
    path: "/orders",
    label: "nav.orders",
    icon: IconListDetails,
    page: lazy(() => import("./features/orders/OrdersPage"), "OrdersPage"),
  },
  {
    id: "lookup",
    path: "/lookup",
    label: "nav.lookup",
    icon: IconListSearch,
    page: lazy(() => import("./features/lookup/LookupPage"), "LookupPage"),
  },
  {
    id: "payins",
    path: "/payins",
    label: "nav.payins",
    icon: IconCash,
    page: lazy(() => import("./features/payins/PayinsPage"), "PayinsPage"),
  },
  {
    id: "payouts",
    path: "/payouts",
    label: "nav.payouts",
    icon: IconSend,
    page: lazy(() => import("./features/payouts/PayoutsPage"), "PayoutsPage"),
  },
  {
    id: "approvals",
    path: "/approvals",
    label: "nav.approvals",
    icon: IconChecklist,
    page: lazy(() => import("./features/team/ApprovalsPage"), "ApprovalsPage"),
  },
  {
    id: "team",
    path: "/team",
    label: "nav.team",
    icon: IconUsersGroup,
    page: lazy(() => import("./features/team/TeamPage"), "TeamPage"),
  },
  {
    id: "refunds",
    path: "/refunds",
    label: "nav.refunds",
    icon: IconArrowBackUp,
    page: lazy(() => import("./features/refunds/RefundsPage"), "RefundsPage"),
  },
  {
    id: "cards",
    path: "/cards",
    label: "nav.cards",
    icon: IconCreditCard,
    page: lazy(() => import("./features/cards/CardsPage"), "CardsPage"),
  },
  {
    id: "review",
    path: "/review",
    label: "nav.review",
    icon: IconFileUpload,
    page: lazy(() => import("./features/review/ReviewPage"), "ReviewPage"),
  },
  {
    id: "events",
    path: "/events",
    label: "nav.events",
    icon: IconBell,
    page: lazy(() => import("./features/events/EventsPage"), "EventsPage"),
  },
  {
    id: "balances",
    path: "/balances",
    label: "nav.balances",
    icon: IconCoins,
    page: lazy(() => import("./features/balances/BalancesPage"), "BalancesPage"),
  },
  {
    id: "reports",
    path: "/reports",
    label: "nav.reports",
    icon: IconReportMoney,
    page: lazy(() => import("./features/reports/ReportsPage"), "ReportsPage"),
  },
  {
    id: "activity",
    path: "/activity",
    label: "nav.activity",
    icon: IconHistory,
    page: lazy(() => import("./features/activity/ActivityPage"), "ActivityPage"),
  },
  {
    id: "settings",
    path: "/settings",
    label: "nav.settings",
    icon: IconSettings,
    page: { Component: SettingsPage },
  },
];

/// The routes under the shell, one per screen (the dashboard is the index).
export function screenRoutes(): RouteObject[] {
  return SCREENS.map((s): RouteObject => {
    const { page } = s;
    const shown =
      "Component" in page
        ? { Component: page.Component }
        : { lazy: async () => ({ Component: await page.load() }) };
    return s.path === "/" ? { index: true, ...shown } : { path: s.path.slice(1), ...shown };
  });
}
