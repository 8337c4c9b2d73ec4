import { MantineProvider } from "@mantine/core";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render, screen, waitFor } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import i18n from "../../i18n";
import type { ReviewSubmission } from "../../lib/types";
import { invoke } from "../../test/tauri";
import { useTheme } from "../../theme";
import { ReviewHistory } from "./ReviewHistory";

function Themed({ children }: { children: ReactNode }) {
  return <MantineProvider theme={useTheme()}>{children}</MantineProvider>;
}

const submission = (id: number, outcome: string): ReviewSubmission => ({
  id,
  reference: `RV-${id}`,
  tradeNo: "T1",
  infoCount: 1,
  files: "id.png",
  outcome,
  at: Date.UTC(2026, 10, 23, 1, 54, 25),
  queued: false,
  evidence: [
    {
      name: "id.png",
      fileType: "21",
      suffix: ".png",
      mediaType: "image/png",
      size: 1234,
      sha256: `${id}`.repeat(64).slice(0, 64),
    },
  ],
});

describe("the review submissions, in Chinese", () => {
  beforeEach(async () => {
    await i18n.changeLanguage("zh");
    invoke.mockReset();
    invoke.mockResolvedValue([submission(1, "accepted"), submission(2, "rejected")]);
  });
  afterEach(async () => {
    await i18n.changeLanguage("en");
  });

  it("tell an accepted outcome from a rejected one, in whole words never cut short", async () => {
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <Themed>
        <QueryClientProvider client={client}>
          <ReviewHistory tradeNo="" />
        </QueryClientProvider>
      </Themed>,
    );
    await waitFor(() => expect(screen.getAllByTestId("review-outcome")).toHaveLength(2));
    const [accepted, rejected] = screen.getAllByTestId("review-outcome");
    expect(accepted?.textContent).toBe("已受理");
    expect(rejected?.textContent).toBe("已拒绝");
    // Each file sent, with the SHA-256 of its bytes.
    const evidence = screen.getAllByTestId("review-evidence");
    expect(evidence.map((e) => e.getAttribute("data-sha256"))).toEqual([
      "1".repeat(64),
      "2".repeat(64),
    ]);
    expect(evidence[0]?.textContent).toContain("1".repeat(64));
    expect(evidence[0]?.textContent).toContain("image/png");
    // A badge is never narrower than its word, so its label is never cut to "已…".
    for (const badge of [accepted, rejected]) {
      expect(badge?.style.minWidth).toBe("max-content");
    }
  });
});
