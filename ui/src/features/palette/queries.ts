import { useQuery } from "@tanstack/react-query";
import { commands } from "../../bindings";
import { unwrap } from "../../lib/ipc";
import { EMPTY_FILTER } from "../orders/queries";
import { paletteKeys } from "./keys";

/// The first orders whose numbers contain `text`, once it is three characters long.
export function usePaletteOrders(text: string) {
  return useQuery({
    queryKey: paletteKeys.search(text),
    enabled: text.length >= 3,
    queryFn: () => unwrap(commands.ordersPage({ ...EMPTY_FILTER, search: text }, 0, 8)),
  });
}
