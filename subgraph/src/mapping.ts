// The handlers subgraph.yaml names, one per registry log.
export { handleEventCancelled, handleEventRegistered, handleEventUpdated } from "./events";
export {
  handleTicketResold,
  handleTicketSold,
  handleTicketsCheckedIn,
  handleTicketsInvalidated,
  handleTicketsMetadataUpdated,
  handleTransfer,
} from "./tickets";
export {
  handleApproval,
  handleApprovalForAll,
  handleBaseURIChanged,
  handleBatchMetadataUpdate,
  handleContractURIUpdated,
  handleItemFailed,
  handleMetadataUpdate,
  handlePaused,
  handleRoleAdminChanged,
  handleRoleGranted,
  handleRoleRevoked,
  handleUnpaused,
} from "./admin";
