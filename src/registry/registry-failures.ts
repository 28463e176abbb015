/** Reasons of `ItemFailed` logs; the values are ITicketRegistry.ItemFailure's, in its order. */
export enum RegistryItemFailure {
  None = 0,
  EventExists = 1,
  EventUnknown = 2,
  TicketExists = 3,
  TicketUnknown = 4,
  TicketCheckedIn = 5,
  TicketNotCheckedIn = 6,
  TicketInvalidated = 7,
  TicketClaimed = 8,
  PriceNotRepresentable = 9,
  InvalidReceiver = 10,
  ResaleLimitReached = 11,
  InvalidEventIndex = 12,
  InvalidSerial = 13,
}
