/**
 * Every action the service knows, one row each, keyed by its ledger kind: the name stored in
 * `chain_actions.kind` and carried by callbacks as `action`, which integrators match on
 * (docs/integrators/callbacks.md). Each row names the action in every other vocabulary: the
 * `POST /stream` names and the endpoints of its own that take it (fixed by the API), and the
 * registry batch item it is sent as (fixed by the contract: contracts/libraries/BatchReader.sol)
 * with its code and the gas the writer budgets for it (and, for a sale, the item it goes as when its
 * ticket carries metadata of its own: `withMetadata`). The lists the code matches on (the ledger's
 * kinds, the stream's names, the batch codes, the gas per item, the reconcile's kind of each item)
 * are derived from here; adding an action starts with a row (docs/architecture/adding-an-action.md).
 *
 * Gas: upper bounds of one item inside a batch, above the worst cases `npm run gas` measures
 * (contracts/gas-snapshot.json): a sale 7,600, a sale with its metadata hash 7,850, a resale of a ticket far from
 * others about 27,000, a claim to a new wallet 51,600, an event with 255-character strings 133,400, a metadata update
 * 64 serials from the previous one 5,550 (its ERC-4906 MetadataUpdate included).
 *
 * The rows' order is the order of the kinds in the OpenAPI document.
 */
export const ACTIONS = {
  newEvent: { stream: ["newEvent"], endpoints: ["POST /api/v1/events"], batch: { item: "registerEvent", code: 0x01, gas: 190_000 } },
  updateEvent: { stream: ["updateEvent"], endpoints: [], batch: { item: "updateEvent", code: 0x02, gas: 170_000 } },
  /** A ticket with metadata of its own (metadata-hash.ts hasTicketMetadata) is sold with its hash; any other as before. */
  sold: {
    stream: ["soldTicket"],
    endpoints: ["POST /api/v1/sold"],
    batch: { item: "sold", code: 0x03, gas: 9_500, withMetadata: { item: "soldWithMetadata", code: 0x0a, gas: 10_700 } },
  },
  resold: { stream: ["resoldTicket"], endpoints: ["POST /api/v1/resold"], batch: { item: "resold", code: 0x04, gas: 36_000 } },
  scanned: {
    stream: ["scannedTicket", "checkedInTicket"],
    endpoints: ["POST /api/v1/scanned", "POST /api/v1/checkedin"],
    batch: { item: "checkedIn", code: 0x05, gas: 3_000 },
  },
  invalidated: { stream: ["invalidatedTicket"], endpoints: ["POST /api/v1/invalidated"], batch: { item: "invalidated", code: 0x06, gas: 3_000 } },
  /** Records the hash of the ticket's new metadata; the registry tells wallets with ERC-4906. */
  updateTicket: { stream: ["updateTicket"], endpoints: [], batch: { item: "updateTicket", code: 0x09, gas: 8_000 } },
  claimed: { stream: ["claimedTicket"], endpoints: [], batch: { item: "claimed", code: 0x07, gas: 62_000 } },
  /** One write for the whole event, whatever the number of its tickets: they all read as cancelled from it. */
  cancelledEvent: { stream: ["cancelledEvent"], endpoints: ["POST /api/v1/events/{eventId}/cancel"], batch: { item: "cancelEvent", code: 0x08, gas: 20_000 } },
  /** Never accepted from an integrator: a claimed token's move between wallets, found in the registry's logs. */
  transferred: { stream: [], endpoints: [], batch: null },
} as const satisfies Record<string, ActionRow>;

interface BatchRow {
  item: string;
  code: number;
  gas: number;
}

interface ActionRow {
  stream: readonly string[];
  endpoints: readonly string[];
  batch: (BatchRow & { withMetadata?: BatchRow }) | null;
}

type Rows = typeof ACTIONS;
type BatchOf<Kind extends ActionKind> = NonNullable<Rows[Kind]["batch"]>;

/** A ledger kind (and a callback's `action`). */
export type ActionKind = keyof Rows;
/** A name `POST /stream` takes as an item's `action`. */
export type StreamActionName = Rows[ActionKind]["stream"][number];
/** An endpoint of its own that takes an action, by its route below `/api/v1`: what it records as the action's `requestedAs`. */
export type EndpointName = Rows[ActionKind]["endpoints"][number] extends infer Endpoint
  ? Endpoint extends `POST /api/v1/${infer Path}`
    ? LastSegment<Path>
    : never
  : never;
/** The last segment of a path: `events/{eventId}/cancel` → `cancel`. */
type LastSegment<Path extends string> = Path extends `${string}/${infer Rest}` ? LastSegment<Rest> : Path;
/** A registry batch item's name. */
export type BatchItemName = BatchOf<ActionKind>["item"] | WithMetadataItem<BatchOf<ActionKind>>;
type WithMetadataItem<Batch> = Batch extends { withMetadata: { item: infer Item extends string } } ? Item : never;

export const ACTION_KINDS = Object.keys(ACTIONS) as ActionKind[];

const BATCHED = ACTION_KINDS.flatMap((kind) => {
  const { batch } = ACTIONS[kind] as ActionRow;
  if (!batch) return [];
  const { withMetadata, ...main } = batch;
  return [main, ...(withMetadata ? [withMetadata] : [])].map((row) => ({ kind, ...row, item: row.item as BatchItemName }));
});

/** The batch item's code of each batch item name. */
export const BATCH_ITEM_CODE = Object.fromEntries(BATCHED.map((row) => [row.item, row.code])) as Record<BatchItemName, number>;
/** The gas the writer budgets for one item of each name inside a batch. */
export const BATCH_ITEM_GAS = Object.fromEntries(BATCHED.map((row) => [row.item, row.gas])) as Record<BatchItemName, number>;
/** The ledger kind each batch item name is sent for. */
export const KIND_OF_BATCH_ITEM = Object.fromEntries(BATCHED.map((row) => [row.item, row.kind])) as Record<BatchItemName, ActionKind>;
/** The batch item each ledger kind is sent as (a sale: without metadata); absent for a kind that never goes on chain. */
export const BATCH_ITEM_OF_KIND = Object.fromEntries(
  ACTION_KINDS.flatMap((kind) => {
    const { batch } = ACTIONS[kind] as ActionRow;
    return batch ? [[kind, batch.item]] : [];
  }),
) as Partial<Record<ActionKind, BatchItemName>>;
/** The ledger kind each stream name records. */
export const KIND_OF_STREAM_ACTION = Object.fromEntries(
  ACTION_KINDS.flatMap((kind) => (ACTIONS[kind] as ActionRow).stream.map((name) => [name, kind])),
) as Record<StreamActionName, ActionKind>;

/** Each endpoint name, for the controllers' routes and the `requestedAs` they record. */
export const ENDPOINT = Object.fromEntries(
  ACTION_KINDS.flatMap((kind) =>
    (ACTIONS[kind] as ActionRow).endpoints.map((endpoint) => {
      const name = endpoint.slice(endpoint.lastIndexOf("/") + 1);
      return [name, name];
    }),
  ),
) as { readonly [Name in EndpointName]: Name };
