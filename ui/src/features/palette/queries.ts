import { useMutation, useQuery } from "@tanstack/react-query";
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

/// The trade number of an order by its whole trade or order number: the cache first,
/// then the gateway's list; null when neither knows it.
export function useFindOrder() {
  return useMutation({
    mutationFn: (number: string) => unwrap(commands.orderFind(number)),
  });
}
