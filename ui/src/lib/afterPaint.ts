import { useEffect, useState } from "react";

/// `false` until the frame after the component's first commit has been drawn, then
/// `true`: what is costly and secondary (a chart) waits for the figures beside it to be
/// on screen instead of delaying their first frame (issue 34: every screen under 100 ms).
export function useAfterFirstPaint(): boolean {
  const [painted, setPainted] = useState(false);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    // The frame is drawn after its requestAnimationFrame callbacks: a task queued from
    // one runs after that frame.
    const frame = requestAnimationFrame(() => {
      timer = setTimeout(() => setPainted(true), 0);
    });
    return () => {
      cancelAnimationFrame(frame);
      if (timer !== undefined) clearTimeout(timer);
    };
  }, []);
  return painted;
}
