// The views menu on a team (issue 36): a shared view names its author; only its author,
// or an admin, is offered to change or delete it; saving offers to share.
import { cleanup, fireEvent, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import type { SavedView } from "./types";
import { ViewsMenu } from "./ViewsMenu";

const view = (id: number, name: string, owner: string, mine: boolean, shared: boolean) =>
  ({
    id,
    screen: "orders",
    name,
    spec: { orderFilter: null, fields: {}, dates: null, columns: [], sort: null },
    shared,
    owner,
    mine,
    from: null,
    to: null,
  }) as SavedView;

const MINE = view(1, "Mine", "vic", true, false);
const TEAM_WEEK = view(2, "Team week", "ann", false, true);
const VIEWS = [MINE, TEAM_WEEK];

function onTeamAs(roles: string[]) {
  invoke.mockReset();
  invoke.mockImplementation((cmd: string) => {
    if (cmd === "views_list") return Promise.resolve(VIEWS);
    if (cmd === "team_status")
      return Promise.resolve({
        user: "vic",
        roles,
        merNo: 10001,
        idleLockMinutes: 15,
        holdsKey: false,
        host: "db",
        port: 5432,
        database: "team",
        chainProblem: null,
      });
    return Promise.resolve(null);
  });
}

const open = async () => {
  fireEvent.click(screen.getByTestId("views-orders"));
  return screen.findAllByTestId("view-item");
};

describe("the views menu on a team", () => {
  afterEach(cleanup);
  beforeEach(() => {
    vi.spyOn(Element.prototype, "getBoundingClientRect").mockReturnValue(
      DOMRect.fromRect({ x: 10, y: 10, width: 100, height: 30 }),
    );
  });

  it("names a shared view's author and offers a viewer no change to it", async () => {
    onTeamAs(["viewer"]);
    renderUi(
      <ViewsMenu
        screen="orders"
        current={() => MINE.spec}
        selected={TEAM_WEEK}
        onSelect={() => {}}
      />,
    );
    await waitFor(() => expect(invoke.mock.calls.some(([c]) => c === "team_status")).toBe(true));
    const items = await open();
    expect(items.map((i) => i.getAttribute("data-name"))).toEqual(["Mine", "Team week"]);
    expect(items[1]?.textContent).toContain("ann");
    expect(screen.queryByTestId("view-update")).toBeNull();
    expect(screen.queryByTestId("view-delete")).toBeNull();
    // Saving a new view on a team offers to share it.
    fireEvent.click(screen.getByTestId("view-save-new"));
    expect(await screen.findByTestId("view-share")).toBeTruthy();
  });

  it("offers an admin to change or delete another's shared view", async () => {
    onTeamAs(["admin"]);
    renderUi(
      <ViewsMenu
        screen="orders"
        current={() => MINE.spec}
        selected={TEAM_WEEK}
        onSelect={() => {}}
      />,
    );
    await open();
    await waitFor(() => expect(screen.getByTestId("view-update")).toBeTruthy());
    expect(screen.getByTestId("view-delete").textContent).toContain("Team week");
  });
});
