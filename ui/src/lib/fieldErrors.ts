import { useState } from "react";
import { fieldError } from "./ipc";

export interface FieldErrors {
  /// The failure, unless it named a field edited since.
  error: unknown;
  /// The rule broken by one of `fields`, as `fieldError` finds it.
  err: (...fields: string[]) => string | undefined;
  /// Says that `fields` (names as `err` takes them) were edited.
  edited: (...fields: string[]) => void;
}

/// A form's last failure as its fields show it. The rule a validation error states stays
/// under its field (and in the form's line naming it) until that field is edited, then
/// it is gone: the backend checks the new value at the next submit, and a failure then
/// shows again. Editing another field leaves it where it is.
export function useFieldErrors(failure: unknown): FieldErrors {
  // The failure whose field has been edited since it came back.
  const [answered, setAnswered] = useState<unknown>(null);
  const error = failure && failure !== answered ? failure : null;
  return {
    error,
    err: (...fields) => fieldError(error, ...fields),
    edited: (...fields) => {
      if (error && fieldError(error, ...fields) !== undefined) setAnswered(error);
    },
  };
}
