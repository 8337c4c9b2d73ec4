import { IconFileTypePdf } from "@tabler/icons-react";
import { useEffect, useRef, useState } from "react";

/// The first page of a PDF, drawn small (pdf.js, loaded with the first PDF shown). The
/// bytes come from Rust as a `data:` URL; the upload itself never passes through here.
export function PdfThumb({
  dataUrl,
  label,
  size = 72,
}: {
  dataUrl: string;
  label: string;
  size?: number;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [state, setState] = useState<"drawing" | "drawn" | "failed">("drawing");

  useEffect(() => {
    let cancelled = false;
    (async () => {
      const pdfjs = await import("pdfjs-dist");
      const worker = await import("pdfjs-dist/build/pdf.worker.min.mjs?url");
      pdfjs.GlobalWorkerOptions.workerSrc = worker.default;
      const base64 = dataUrl.slice(dataUrl.indexOf(",") + 1);
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      // No eval: the window's content security policy forbids it.
      const doc = await pdfjs.getDocument({ data: bytes, isEvalSupported: false }).promise;
      try {
        const page = await doc.getPage(1);
        const base = page.getViewport({ scale: 1 });
        const viewport = page.getViewport({
          scale: (size * window.devicePixelRatio) / Math.max(base.width, base.height),
        });
        const c = canvas.current;
        if (cancelled || !c) return;
        c.width = Math.ceil(viewport.width);
        c.height = Math.ceil(viewport.height);
        await page.render({ canvas: c, viewport }).promise;
      } finally {
        await doc.destroy();
      }
      if (!cancelled) setState("drawn");
    })().catch(() => {
      if (!cancelled) setState("failed");
    });
    return () => {
      cancelled = true;
    };
  }, [dataUrl, size]);

  if (state === "failed") return <IconFileTypePdf size={size * 0.8} aria-label={label} />;
  return (
    <canvas
      ref={canvas}
      role="img"
      aria-label={label}
      data-testid="pdf-thumb"
      data-drawn={state === "drawn"}
      style={{
        maxWidth: size,
        maxHeight: size,
        border: "1px solid var(--mantine-color-default-border)",
      }}
    />
  );
}
