// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ICustodialERC721} from "./token/ICustodialERC721.sol";

/**
 * @title ITicketRegistry
 * @notice The on-chain mirror of a ticketing service: events are registered, tickets are ERC-721
 * tokens, and every ticket action (sale, resale, check-in, invalidation, claim) is applied by an
 * operator in batches, in the order the operator sends them.
 *
 * Identifiers chosen by the service make every id known before its transaction is mined:
 * - `eventIndex` (non-zero, at most 2^40 - 1) numbers an event in this registry.
 * - `tokenId = eventIndex << 64 | serial` where `serial` (uint64, non-zero) numbers a ticket in its event.
 * - `eventKey = sha256(abi.encode(ticketeerId, eventId))` and `ticketeer = sha256(ticketeerId)`:
 *   the raw ids never go on chain, yet anyone who knows them can find and verify their records.
 * - `ticketHash = sha256(ticketId)`, recorded with the sale.
 *
 * Custody (ICustodialERC721): a sold ticket is held by keyless addresses that only this contract can
 * move: the event's custody address after the sale, and a fresh holder address after each resale.
 * After a claim the token belongs to the claimant's wallet like any ERC-721 token.
 */
interface ITicketRegistry is ICustodialERC721 {
    /// @notice The event details the service records on chain: what a ticket's metadata shows of its event.
    /// @dev Latitude and longitude are fixed-point with COORDINATE_DECIMALS (7) decimals. `organizer` is the
    /// organizing company's public name. `metadataHash` is the keccak-256 of the event's canonical off-chain
    /// metadata (its description and ticket image), zero when it has none: anyone holding that metadata can check it.
    struct EventDetails {
        string name;
        string currency;
        string shopUrl;
        string imageUrl;
        int32 latitude;
        int32 longitude;
        uint64 startTime;
        uint64 endTime;
        string organizer;
        bytes32 metadataHash;
    }

    /// @notice What the registry holds for one event.
    struct EventView {
        bytes32 eventKey;
        bytes32 ticketeer;
        bytes32 detailsHash;
        address custody;
        uint64 ticketsSold;
        uint64 ticketsInCustody;
        bool cancelled;
    }

    /// @notice What anyone can verify about one ticket. In `tickets`, a token never minted has a zero `holder`.
    /// @dev `invalidated` is the ticket's own invalidation; `eventCancelled` says its event was cancelled, which voids
    /// every one of its tickets, checked in or not, without a write per ticket.
    struct TicketView {
        uint64 eventIndex;
        uint64 serial;
        bytes32 eventKey;
        address holder;
        bool checkedIn;
        bool invalidated;
        bool claimed;
        uint32 resales;
        bool eventCancelled;
    }

    /// @notice Why an item of a batch was skipped. Values are stable: they are part of the ABI.
    enum ItemFailure {
        None,
        EventExists,
        EventUnknown,
        TicketExists,
        TicketUnknown,
        TicketCheckedIn,
        TicketNotCheckedIn,
        TicketInvalidated,
        TicketClaimed,
        PriceNotRepresentable,
        InvalidReceiver,
        ResaleLimitReached,
        InvalidEventIndex,
        InvalidSerial,
        EventCancelled
    }

    /// @dev The batch bytes end in the middle of an item, or an item has an unknown action code.
    error TicketRegistryMalformedBatch(uint256 offset);

    /// @dev No event is registered under `eventIndex`.
    error TicketRegistryEventUnknown(uint64 eventIndex);

    /// @notice An event was registered.
    /// @param eventIndex the event's number in this registry
    /// @param eventKey sha256(abi.encode(ticketeerId, eventId))
    /// @param ticketeer sha256(ticketeerId)
    /// @param custody the keyless address its tickets are minted to
    /// @param details the event fields the service records on chain
    event EventRegistered(uint64 indexed eventIndex, bytes32 indexed eventKey, bytes32 indexed ticketeer, address custody, EventDetails details);

    /// @notice An event's details were replaced.
    /// @param eventIndex the event's number in this registry
    /// @param eventKey sha256(abi.encode(ticketeerId, eventId))
    /// @param details the new details
    event EventUpdated(uint64 indexed eventIndex, bytes32 indexed eventKey, EventDetails details);

    /**
     * @notice An event was cancelled: every one of its tickets is void from now on. Its tickets can no longer be
     * sold, resold, checked in, invalidated or claimed (ItemFailure.EventCancelled); claimed tokens stay with their
     * holders and remain transferable.
     * @param eventIndex the event's number in this registry
     * @param eventKey sha256(abi.encode(ticketeerId, eventId))
     */
    event EventCancelled(uint64 indexed eventIndex, bytes32 indexed eventKey);

    /// @notice A ticket was sold: its token was minted to the event's custody address.
    /// @param tokenId the ticket's token
    /// @param ticketHash sha256(ticketId)
    /// @param price fixed-point with PRICE_DECIMALS (6) decimals, in the event's currency
    /// @param orderTime when the sale happened, in Unix seconds
    event TicketSold(uint256 indexed tokenId, bytes32 indexed ticketHash, uint96 price, uint64 orderTime);

    /// @notice A ticket was resold: its token moved to a fresh holder address (see the Transfer log).
    /// @param tokenId the ticket's token
    /// @param resales how many times the ticket has been resold, this resale included
    /// @param price fixed-point with PRICE_DECIMALS (6) decimals, in the event's currency
    /// @param orderTime when the resale happened, in Unix seconds
    event TicketResold(uint256 indexed tokenId, uint32 resales, uint96 price, uint64 orderTime);

    /**
     * @notice A run of consecutive check-ins of one batch, packed to keep check-in cheap.
     * @dev A repeated check-in appears again; the ticket stays checked in.
     * @param records a sequence of 24-byte records: uint128 tokenId, uint64 orderTime (big-endian)
     */
    event TicketsCheckedIn(bytes records);

    /// @notice A run of consecutive invalidations of one batch.
    /// @param records packed as in TicketsCheckedIn
    event TicketsInvalidated(bytes records);

    /**
     * @notice A run of consecutive ticket metadata updates of one batch (or of sales with their metadata): the hash
     * of each ticket's canonical off-chain metadata, for anyone holding that metadata to check it. The hash lives
     * in this log only; the latest record of a token is its current hash.
     * @param records a sequence of 48-byte records: uint128 tokenId, bytes32 metadataHash (big-endian)
     */
    event TicketsMetadataUpdated(bytes records);

    /**
     * @notice An item of a batch was skipped; the other items were applied.
     * @param index position of the item in the batch, from 0
     * @param subject the item's tokenId, or its eventIndex for event items
     * @param reason why it was skipped
     */
    event ItemFailed(uint256 indexed index, uint256 indexed subject, ItemFailure indexed reason);

    /// @notice The base of every tokenURI changed.
    /// @param baseURI the new prefix
    event BaseURIChanged(string baseURI);

    /// @notice The collection's metadata URI changed (ERC-7572): indexers read `contractURI` again.
    event ContractURIUpdated();

    /**
     * @notice Applies a batch of actions in the order given. An item that cannot be applied is
     * skipped and reported by `ItemFailed`; the others apply.
     * @dev The batch format is documented in libraries/BatchReader.sol.
     *
     * Requirements:
     * - the caller has OPERATOR_ROLE (AccessControlUnauthorizedAccount);
     * - the registry is not paused (EnforcedPause);
     * - `batch` is well formed (TicketRegistryMalformedBatch); a malformed batch reverts as a whole.
     *
     * Emits EventRegistered, EventUpdated, EventCancelled, Transfer, TicketSold, TicketResold, TicketsCheckedIn,
     * TicketsInvalidated, TicketsMetadataUpdated and ItemFailed as the items require. A claim is the Transfer from a
     * custodial address (see isCustodial) to the claimant's wallet.
     *
     * Emits ERC-4906 BatchMetadataUpdate(fromTokenId, toTokenId) for what changes a token's metadata:
     * once per event of the batch, over the lowest to the highest token of that event its sales, resales,
     * check-ins, invalidations and claims changed (an item that changes nothing, such as a repeated
     * check-in or a skipped item, is left out), however the items alternate between up to eight events
     * (a ninth makes the oldest signal early); and once per event update or cancellation, over every token the
     * event can have (serials 1 to 2^64 - 1). A run of ticket metadata updates signals exactly the tokens it updated,
     * once per run: MetadataUpdate(tokenId) for a token alone, BatchMetadataUpdate(from, to) for consecutive tokens
     * updated in ascending order; a sale with its metadata is signalled as a sale.
     * @param batch the packed items
     */
    function execute(bytes calldata batch) external;

    /**
     * @notice Stops every operator write until `unpause`. Tokens their owners claimed stay transferable.
     *
     * Requirements:
     * - the caller has DEFAULT_ADMIN_ROLE (AccessControlUnauthorizedAccount);
     * - the registry is not paused (EnforcedPause).
     *
     * Emits Paused.
     */
    function pause() external;

    /**
     * @notice Lets operators write again.
     *
     * Requirements:
     * - the caller has DEFAULT_ADMIN_ROLE (AccessControlUnauthorizedAccount);
     * - the registry is paused (ExpectedPause).
     *
     * Emits Unpaused.
     */
    function unpause() external;

    /**
     * @notice Sets the prefix of every tokenURI (the tokenId in decimal follows it).
     *
     * Requirements: the caller has DEFAULT_ADMIN_ROLE (AccessControlUnauthorizedAccount).
     *
     * Emits BaseURIChanged and BatchMetadataUpdate for every token.
     * @param newBaseURI the new prefix
     */
    function setBaseURI(string calldata newBaseURI) external;

    /// @notice The prefix of every tokenURI.
    /// @return the prefix
    function baseURI() external view returns (string memory);

    /**
     * @notice Sets the address of the collection's metadata JSON (ERC-7572).
     *
     * Requirements: the caller has DEFAULT_ADMIN_ROLE (AccessControlUnauthorizedAccount).
     *
     * Emits ContractURIUpdated.
     * @param newContractURI the new address
     */
    function setContractURI(string calldata newContractURI) external;

    /// @notice The address of the collection's metadata JSON (ERC-7572): name, description, image, external_link.
    /// @return the address
    function contractURI() external view returns (string memory);

    /**
     * @notice The event registered under `eventIndex`.
     *
     * Requirements: the event is registered (TicketRegistryEventUnknown).
     * @param eventIndex the event's number in this registry
     * @return the event's record
     */
    function eventRecord(uint64 eventIndex) external view returns (EventView memory);

    /**
     * @notice The state of ticket `tokenId`.
     *
     * Requirements: the ticket was sold (ERC721NonexistentToken).
     * @param tokenId the ticket's token
     * @return the ticket's state
     */
    function ticket(uint256 tokenId) external view returns (TicketView memory);

    /**
     * @notice The state of each of `tokenIds`, in order, in one call (a metadata server reads a
     * neighbourhood of tokens at once). A token never minted is not an error here: its view has the
     * zero address as `holder`, no flags and no resales.
     * @param tokenIds the tokens, in any order
     * @return the state of each, in the order asked
     */
    function tickets(uint256[] calldata tokenIds) external view returns (TicketView[] memory);
}
