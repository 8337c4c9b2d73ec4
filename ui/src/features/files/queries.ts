import { commands } from "../../bindings";
import { unwrap } from "../../lib/ipc";

/// The system's save dialog (opened by Rust) on the suggested file: the path chosen,
/// null when cancelled. The dialog itself asks before replacing a file.
export const saveAs = (format: "csv" | "xlsx" | "pdf", suggested: string) =>
  unwrap(commands.exportSaveAs(format, suggested));

/// Whether a file is at `path` already.
export const fileExists = (path: string) => unwrap(commands.fileExists(path));
