import { fireEvent, screen, waitFor } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import { HorizonSetting, horizonDays } from "./Horizon";

const settings = { businessZone: "America/Mexico_City", changeHorizonDays: 120 };

function input() {
  return screen.getByTestId("reports-horizon") as HTMLInputElement;
}

describe("the change horizon setting", () => {
  beforeEach(() => {
    invoke.mockReset();
    invoke.mockImplementation((cmd: string, args: { set: typeof settings | null }) => {
      if (cmd === "report_settings") return Promise.resolve(args.set ?? settings);
      return Promise.reject(new Error(`unexpected ${cmd}`));
    });
  });

  it("takes whole days from 1 to 3650 only", () => {
    expect(horizonDays("1")).toBe(1);
    expect(horizonDays(" 3650 ")).toBe(3650);
    for (const bad of ["0", "3651", "-5", "1.5", "abc", "", "1e3"]) {
      expect(horizonDays(bad)).toBeNull();
    }
  });

  it("saves the days typed with the business zone kept as it was", async () => {
    renderUi(<HorizonSetting settings={settings} />);
    expect(input().value).toBe("120");
    const save = screen.getByTestId("reports-horizon-save") as HTMLButtonElement;
    // Nothing changed yet: nothing to save.
    expect(save.disabled).toBe(true);
    fireEvent.change(input(), { target: { value: "45" } });
    expect(save.disabled).toBe(false);
    fireEvent.click(save);
    await waitFor(() =>
      expect(invoke).toHaveBeenCalledWith("report_settings", {
        set: { businessZone: "America/Mexico_City", changeHorizonDays: 45 },
      }),
    );
  });

  it("names the field and its rule for days out of range, and sends nothing", () => {
    renderUi(<HorizonSetting settings={settings} />);
    for (const bad of ["0", "4000", "12.5"]) {
      fireEvent.change(input(), { target: { value: bad } });
      expect(
        screen.getByText("Change horizon (days): a whole number of days from 1 to 3650"),
      ).toBeTruthy();
      const save = screen.getByTestId("reports-horizon-save") as HTMLButtonElement;
      expect(save.disabled).toBe(true);
      fireEvent.submit(input().closest("form") as HTMLFormElement);
    }
    expect(invoke).not.toHaveBeenCalled();
  });

  it("shows the core's rule under the field when the core refuses the days", async () => {
    invoke.mockImplementation(() =>
      Promise.reject({
        code: "validation",
        field: "changeHorizonDays",
        rule: "must be 1 to 3650 days",
        message: "changeHorizonDays: must be 1 to 3650 days",
      }),
    );
    renderUi(<HorizonSetting settings={settings} />);
    fireEvent.change(input(), { target: { value: "30" } });
    fireEvent.click(screen.getByTestId("reports-horizon-save"));
    expect(await screen.findByText("must be 1 to 3650 days")).toBeTruthy();
  });
});
