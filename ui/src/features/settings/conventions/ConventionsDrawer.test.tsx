import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import type { Conventions } from "../../../lib/types";
import { SANDBOX } from "../../../test/conventions";
import { renderUi } from "../../../test/render";
import { invoke } from "../../../test/tauri";
import { ConventionsDrawer } from "./ConventionsDrawer";

type Answer = (args: Record<string, unknown>) => unknown;

/// Answers each command by name; a command not listed fails the test.
function backend(answers: Record<string, Answer>) {
  invoke.mockImplementation(async (cmd: string, args: Record<string, unknown>) => {
    const a = answers[cmd];
    if (!a) throw new Error(`unexpected command ${cmd}`);
    return a(args);
  });
}

const calls = (cmd: string) => invoke.mock.calls.filter(([c]) => c === cmd).map(([, a]) => a);
const refused = (field: string, rule: string) => () =>
  Promise.reject({ code: "validation", field, rule });

// The drawer holds every member: rendering it takes seconds on a loaded machine.
describe("the conventions panel", { timeout: 30_000 }, () => {
  beforeEach(() => {
    invoke.mockReset();
  });

  it("shows every member with its explanation and saves the edited structure", async () => {
    backend({ conventions: () => SANDBOX, conventions_save: () => null });
    renderUi(<ConventionsDrawer profile="acme" onClose={() => {}} />);
    const panel = await screen.findByTestId("conventions-panel");
    expect(within(panel).getByText(/The IANA zone the gateway reads dateLimit in/)).toBeTruthy();
    expect(within(panel).getByText(/can pay twice/)).toBeTruthy();

    fireEvent.change(screen.getByTestId("conv-maxPageSize"), { target: { value: "100" } });
    const zone = screen.getByTestId("conv-timeZone");
    // Searched as typed (Mantine takes a change to an input without focus as autofill).
    act(() => zone.focus());
    fireEvent.click(zone);
    fireEvent.change(zone, { target: { value: "Asia/Shang" } });
    // (The list opens in a portal that jsdom counts as hidden behind the drawer.)
    fireEvent.click(await screen.findByRole("option", { name: "Asia/Shanghai", hidden: true }));
    // A state value added to payCode, and top-ups said to be missing from the list.
    fireEvent.click(screen.getByTestId("conv-states-tab-payCode"));
    fireEvent.click(await screen.findByTestId("conv-state-add-payCode"));
    const raws = within(screen.getByTestId("conv-states-payCode")).getAllByTestId("conv-state-raw");
    fireEvent.change(raws[raws.length - 1] as HTMLElement, { target: { value: "REVIEW" } });
    fireEvent.click(screen.getByTestId("conv-listShows-topUps"));
    expect(screen.getByTestId("conv-dirty")).toBeTruthy();
    fireEvent.click(screen.getByTestId("conv-save"));

    await waitFor(() => expect(calls("conventions_save")).toHaveLength(1));
    const [sent] = calls("conventions_save") as [{ profile: string; conventions: Conventions }];
    expect(sent.profile).toBe("acme");
    expect(sent.conventions).toEqual({
      ...SANDBOX,
      timeZone: "Asia/Shanghai",
      maxPageSize: 100,
      states: { ...SANDBOX.states, payCode: { ...SANDBOX.states.payCode, REVIEW: "pending" } },
      listShows: { ...SANDBOX.listShows, topUps: false },
    });
  });

  it("shows the backend's validation error on the member it names", async () => {
    backend({
      conventions: () => SANDBOX,
      conventions_save: refused("conventions.maxPageSize", "must be between 1 and 10000 orders"),
    });
    renderUi(<ConventionsDrawer profile="acme" onClose={() => {}} />);
    const size = await screen.findByTestId("conv-maxPageSize");
    fireEvent.change(size, { target: { value: "20000" } });
    fireEvent.click(screen.getByTestId("conv-save"));
    const error = await screen.findByText("must be between 1 and 10000 orders");
    expect(size.getAttribute("aria-invalid")).toBe("true");
    expect(size.getAttribute("aria-describedby")).toContain(error.id);
    // The line by the buttons names the member too (the field may be scrolled away).
    const line = screen.getByTestId("conv-save-error");
    expect(line.dataset.field).toBe("conventions.maxPageSize");
    expect(line.textContent).toBe(
      "Largest page (orders) (maxPageSize): must be between 1 and 10000 orders",
    );
    expect(screen.getByTestId("conv-timeZone").getAttribute("aria-invalid")).not.toBe("true");
    // Editing the field answers it until the next save.
    fireEvent.change(size, { target: { value: "1000" } });
    expect(screen.queryByText("must be between 1 and 10000 orders")).toBeNull();
  });

  it("shows a state field's error on its tab, and refuses a value listed twice", async () => {
    backend({
      conventions: () => SANDBOX,
      conventions_save: refused(
        "conventions.states.settle",
        'value " " must be 1 to 40 characters without control characters',
      ),
    });
    renderUi(<ConventionsDrawer profile="acme" onClose={() => {}} />);
    await screen.findByTestId("conventions-panel");
    // Listed twice: the panel says so and sends nothing.
    const raws = within(screen.getByTestId("conv-states-orderState")).getAllByTestId(
      "conv-state-raw",
    );
    fireEvent.change(raws[1] as HTMLElement, { target: { value: "0" } });
    fireEvent.click(screen.getByTestId("conv-save"));
    expect(await screen.findByText(/0 is listed twice/)).toBeTruthy();
    expect(calls("conventions_save")).toHaveLength(0);
    fireEvent.change(raws[1] as HTMLElement, { target: { value: "1" } });
    fireEvent.click(screen.getByTestId("conv-save"));
    // The backend's rule on `states.settle`: that field's tab is shown with it.
    expect(await screen.findByTestId("conv-states-error-settle")).toBeTruthy();
    expect(screen.getByTestId("conv-states-settle")).toBeTruthy();
  });

  it("imports a file: a mistake names the member, a good file shows what it sets, then saves", async () => {
    const file: Conventions = {
      ...SANDBOX,
      name: "acme-gw",
      timeZone: "America/Mexico_City",
      // A state field the file leaves out: none of its values known.
      states: { ...SANDBOX.states, settle: {} },
    };
    backend({
      conventions: () => SANDBOX,
      conventions_parse: ({ text }) =>
        String(text).includes("Mars")
          ? Promise.reject({
              code: "validation",
              field: "conventions.timeZone",
              rule: '"Mars/Base" is not an IANA time zone name',
            })
          : file,
      conventions_save: () => null,
    });
    renderUi(<ConventionsDrawer profile="acme" onClose={() => {}} />);
    fireEvent.click(await screen.findByTestId("conv-import-open"));
    const text = await screen.findByTestId("conv-import-text");
    fireEvent.change(text, { target: { value: '{"timeZone":"Mars/Base"}' } });
    fireEvent.click(screen.getByTestId("conv-import-read"));
    const error = await screen.findByTestId("conv-import-error");
    expect(error.textContent).toBe(
      'conventions.timeZone: "Mars/Base" is not an IANA time zone name',
    );
    expect(screen.queryByTestId("conv-import-save")).toBeNull();

    fireEvent.change(text, { target: { value: '{"timeZone":"America/Mexico_City"}' } });
    expect(screen.queryByTestId("conv-import-error")).toBeNull();
    fireEvent.click(screen.getByTestId("conv-import-read"));
    const sets = await screen.findByTestId("conv-import-sets");
    const members = [...sets.querySelectorAll("[data-member]")].map((r) =>
      r.getAttribute("data-member"),
    );
    expect(members).toEqual(["name", "states.settle", "timeZone"]);
    expect(
      within(sets.querySelector('[data-member="states.settle"]') as HTMLElement).getByText(
        "None: every value of it is shown raw",
      ),
    ).toBeTruthy();
    expect(within(sets).getByText("America/Mexico_City")).toBeTruthy();
    expect(within(sets).getByText("acme-gw")).toBeTruthy();
    fireEvent.click(screen.getByTestId("conv-import-save"));
    await waitFor(() => expect(calls("conventions_save")).toHaveLength(1));
    expect(calls("conventions_save")[0]).toEqual({ profile: "acme", conventions: file });
  });

  it("resets to the sandbox's reading after a confirmation", async () => {
    backend({
      conventions: () => ({ ...SANDBOX, name: "acme-gw", timeZone: "Asia/Shanghai" }),
      conventions_preset: () => SANDBOX,
      conventions_save: () => null,
    });
    renderUi(<ConventionsDrawer profile="acme" onClose={() => {}} />);
    fireEvent.click(await screen.findByTestId("conv-reset"));
    expect(calls("conventions_save")).toHaveLength(0);
    // The confirmation's button, after the drawer's own.
    await screen.findByText(/Replace the conventions of acme with the built-in sandbox's reading/);
    const buttons = screen.getAllByRole("button", { name: "Reset to the sandbox's reading" });
    fireEvent.click(buttons[buttons.length - 1] as HTMLElement);
    await waitFor(() => expect(calls("conventions_save")).toHaveLength(1));
    expect(calls("conventions_save")[0]).toEqual({ profile: "acme", conventions: SANDBOX });
  });
});
