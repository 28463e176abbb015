// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {IERC165} from "@openzeppelin/contracts/utils/introspection/IERC165.sol";
import {IERC4906} from "@openzeppelin/contracts/interfaces/IERC4906.sol";

import {ITicketRegistry} from "./ITicketRegistry.sol";
import {BatchReader} from "./libraries/BatchReader.sol";
import {TicketFlags} from "./libraries/TicketFlags.sol";
import {TicketIds} from "./libraries/TicketIds.sol";
import {CustodialERC721} from "./token/CustodialERC721.sol";

/**
 * @title TicketRegistry
 * @notice ERC-721 registry of a ticketing service's events and tickets. See ITicketRegistry.
 *
 * This contract holds the batch dispatch and the rules of each item; token ownership, custody and
 * ERC-721 live in CustodialERC721, the per-ticket bit layout in TicketFlags, the wire format in BatchReader.
 *
 * Storage is laid out for cheap batches: a sale writes no per-ticket slot of its own (its ticket's
 * flags share a slot with 63 neighbours), ownership is derived from the tokenId and a packed resale
 * counter until a claim gives the token an explicit owner, and custodial balances are computed.
 */
contract TicketRegistry is ITicketRegistry, CustodialERC721, IERC4906, AccessControl, Pausable {
    using BatchReader for bytes;

    // ------------------------------------------------------------------------------------------
    // Constants
    // ------------------------------------------------------------------------------------------

    /// @notice Role of the service's signers: the only accounts that write events and tickets.
    bytes32 public constant OPERATOR_ROLE = keccak256("OPERATOR_ROLE");

    /// @notice Decimals of on-chain prices: 12.5 in the event's currency is 12_500_000.
    uint8 public constant PRICE_DECIMALS = 6;

    /// @notice Decimals of on-chain latitude and longitude: 52.3731 degrees is 523_731_000.
    uint8 public constant COORDINATE_DECIMALS = 7;

    /// @dev ERC-165 id of ERC-4906, fixed by EIP-4906: the interface declares only events, so
    /// type(IERC4906).interfaceId would be zero.
    bytes4 private constant _INTERFACE_ID_ERC4906 = 0x49064906;

    /// @dev A wire price's top byte is its decimal places, the low 120 bits its digits (see BatchReader).
    uint256 private constant _PRICE_DIGITS_MASK = (1 << 120) - 1;

    /// @dev 10^k for k = 0 to PRICE_DECIMALS, 24 bits each from the lowest: a shift and a mask scale a price where a
    /// checked EXP cost a sale or resale about 40 gas more.
    uint256 private constant _POWERS_OF_TEN = 0x0F4240_0186A0_002710_0003E8_000064_00000A_000001;
    uint256 private constant _POWER_OF_TEN_MASK = 0xFFFFFF;

    /// @dev The flags that refuse an invalidation of a ticket sold (see _applyRecord); only the first refuses a check-in.
    uint256 private constant _REFUSING_INVALIDATION = TicketFlags.BITMASK_INVALIDATED | TicketFlags.BITMASK_CHECKED_IN;

    /// @dev Every flag a resale or a claim tests (see _movableByOperator and _claimed).
    uint256 private constant _OPERATOR_MOVE_FLAGS = TicketFlags.BITMASK_MINTED | _REFUSING_INVALIDATION | TicketFlags.BITMASK_CLAIMED;

    // ------------------------------------------------------------------------------------------
    // Storage
    // ------------------------------------------------------------------------------------------

    struct EventRecord {
        bytes32 key;
        bytes32 ticketeer;
        bytes32 detailsHash;
        EventCustody custody; // tickets sold, and those that left the custody address
    }

    string private _baseTokenURI;

    string private _contractURI;

    mapping(uint64 eventIndex => EventRecord) private _events;

    constructor(
        address admin,
        string memory name_,
        string memory symbol_,
        string memory baseURI_,
        string memory contractURI_
    ) CustodialERC721(name_, symbol_) {
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _baseTokenURI = baseURI_;
        _contractURI = contractURI_;
    }

    // ------------------------------------------------------------------------------------------
    // Batches
    // ------------------------------------------------------------------------------------------

    /// @inheritdoc ITicketRegistry
    /// @dev Every ticket's flags are read and written through one FlagWord for the whole batch, which also
    /// collects the changed tokens for the ERC-4906 signals (see CustodialERC721.FlagWord).
    function execute(bytes calldata batch) external onlyRole(OPERATOR_ROLE) whenNotPaused {
        FlagWord memory flags = _openFlagWord();
        uint256 offset;
        uint256 index;
        while (offset < batch.length) {
            uint8 action = uint8(batch.word(offset, 1));
            if (action == BatchReader.CHECKED_IN || action == BatchReader.INVALIDATED) {
                (offset, index) = _applyRecordRun(batch, offset, index, action, flags);
                continue;
            }
            if (action == BatchReader.SOLD) {
                (offset, index) = _applySaleRun(batch, offset, index, flags);
                continue;
            }
            // Tested after sales and check-ins, whose runs it would cost a test each; an item alone pays for it.
            if (action >= BatchReader.UPDATE_TICKET) {
                (offset, index) = _applyMetadataItemsRun(batch, offset, index, action, flags);
                continue;
            }
            (uint256 next, uint256 subject, ItemFailure failure) = _applyItem(batch, offset, action, flags);
            if (failure != ItemFailure.None) emit ItemFailed(index, subject, failure);
            offset = next;
            unchecked {
                ++index;
            }
        }
        _closeFlagWord(flags);
    }

    /// @dev Applies the run of ticket metadata updates or of sales with their metadata starting at `offset`; reverts
    /// on an unknown action code.
    function _applyMetadataItemsRun(bytes calldata batch, uint256 offset, uint256 index, uint8 action, FlagWord memory flags)
        private
        returns (uint256, uint256)
    {
        if (action == BatchReader.UPDATE_TICKET) return _applyMetadataRun(batch, offset, index, flags);
        if (action == BatchReader.SOLD_WITH_METADATA) return _applySaleWithMetadataRun(batch, offset, index, flags);
        revert TicketRegistryMalformedBatch(offset);
    }

    /// @dev Applies the event, resale, claim or cancellation item at `offset`; reverts on an unknown action code.
    function _applyItem(bytes calldata batch, uint256 offset, uint8 action, FlagWord memory flags)
        private
        returns (uint256 next, uint256 subject, ItemFailure failure)
    {
        if (action == BatchReader.RESOLD) return _resold(batch, offset, flags);
        if (action == BatchReader.CLAIMED) return _claimed(batch, offset, flags);
        if (action == BatchReader.REGISTER_EVENT) return _registerEvent(batch, offset);
        if (action == BatchReader.UPDATE_EVENT) return _updateEvent(batch, offset);
        if (action == BatchReader.CANCEL_EVENT) return _cancelEvent(batch, offset, flags);
        revert TicketRegistryMalformedBatch(offset);
    }

    // ------------------------------------------------------------------------------------------
    // Event items
    // ------------------------------------------------------------------------------------------

    /// @dev Registers an event under an unused, non-zero index with a non-zero key.
    function _registerEvent(bytes calldata batch, uint256 offset)
        private
        returns (uint256 next, uint256 subject, ItemFailure failure)
    {
        batch.ensure(offset, 1 + 8 + 32 + 32);
        uint64 eventIndex = uint64(batch.word(offset + 1, 8));
        bytes32 eventKey = bytes32(batch.word(offset + 9, 32));
        bytes32 ticketeer = bytes32(batch.word(offset + 41, 32));
        EventDetails memory details;
        (details, next) = batch.details(offset + 73);
        subject = eventIndex;
        if (eventIndex == 0 || eventIndex > TicketIds.MAX_EVENT_INDEX || eventKey == 0) {
            return (next, subject, ItemFailure.InvalidEventIndex);
        }
        EventRecord storage record = _events[eventIndex];
        if (record.key != 0) return (next, subject, ItemFailure.EventExists);
        record.key = eventKey;
        record.ticketeer = ticketeer;
        record.detailsHash = keccak256(abi.encode(details));
        emit EventRegistered(eventIndex, eventKey, ticketeer, _custodyAddress(eventIndex), details);
    }

    /// @dev Replaces the details of a registered event, which every one of its tokens shows.
    function _updateEvent(bytes calldata batch, uint256 offset)
        private
        returns (uint256 next, uint256 subject, ItemFailure failure)
    {
        batch.ensure(offset, 1 + 8);
        uint64 eventIndex = uint64(batch.word(offset + 1, 8));
        EventDetails memory details;
        (details, next) = batch.details(offset + 9);
        subject = eventIndex;
        EventRecord storage record = _events[eventIndex];
        bytes32 eventKey = record.key;
        if (eventKey == 0) return (next, subject, ItemFailure.EventUnknown);
        record.detailsHash = keccak256(abi.encode(details));
        emit EventUpdated(eventIndex, eventKey, details);
        emit BatchMetadataUpdate(TicketIds.tokenId(eventIndex, 1), TicketIds.tokenId(eventIndex, type(uint64).max));
    }

    /**
     * @dev Cancels a registered event in one write, whatever the number of its tickets: every one of them reads as
     * cancelled from then on (the `tickets` view, and the flags every later item of this batch and others tests).
     */
    function _cancelEvent(bytes calldata batch, uint256 offset, FlagWord memory flags)
        private
        returns (uint256 next, uint256 subject, ItemFailure failure)
    {
        batch.ensure(offset, BatchReader.CANCEL_EVENT_SIZE);
        next = offset + BatchReader.CANCEL_EVENT_SIZE;
        uint64 eventIndex = uint64(batch.word(offset + 1, 8));
        subject = eventIndex;
        bytes32 eventKey = _events[eventIndex].key;
        if (eventKey == 0) return (next, subject, ItemFailure.EventUnknown);
        if (_eventCancelled(eventIndex)) return (next, subject, ItemFailure.EventCancelled);
        _cancelEventTokens(eventIndex, flags);
        emit EventCancelled(eventIndex, eventKey);
        emit BatchMetadataUpdate(TicketIds.tokenId(eventIndex, 1), TicketIds.tokenId(eventIndex, type(uint64).max));
    }

    // ------------------------------------------------------------------------------------------
    // Ticket items: minting (sales), resales and claims
    // ------------------------------------------------------------------------------------------

    /// @dev The event the sales of a run are of, while consecutive sales share it.
    struct SaleEvent {
        uint64 eventIndex; // 0 before the run's first sale: no event has index 0
        bool open; // registered and not cancelled: its tickets can be sold
        address custody;
        uint64 sold; // minted in this run and not yet counted in the event's custody
    }

    /// @dev Applies the run of sales starting at `offset`; returns where the next run starts. The event's record
    /// is read and written once per run, the tickets' flag words once per batch, rather than once per ticket.
    function _applySaleRun(bytes calldata batch, uint256 offset, uint256 index, FlagWord memory flags)
        private
        returns (uint256, uint256)
    {
        SaleEvent memory sale;
        do {
            batch.ensure(offset, BatchReader.SOLD_SIZE);
            uint256 tokenId = batch.word(offset + 1, 16);
            ItemFailure failure = _sold(batch, offset, tokenId, sale, flags);
            if (failure != ItemFailure.None) emit ItemFailed(index, tokenId, failure);
            unchecked {
                offset += BatchReader.SOLD_SIZE;
                ++index;
            }
        } while (offset < batch.length && batch.word(offset, 1) == BatchReader.SOLD);
        _countSold(sale);
        return (offset, index);
    }

    /// @dev A sale mints the ticket into its event's custody; its minted flag is its only per-ticket storage.
    function _sold(bytes calldata batch, uint256 offset, uint256 tokenId, SaleEvent memory sale, FlagWord memory flags)
        private
        returns (ItemFailure)
    {
        uint64 eventIndex = TicketIds.eventIndexOf(tokenId);
        if (eventIndex != sale.eventIndex) _switchSaleEvent(sale, eventIndex);
        if (!sale.open) return _events[eventIndex].key == 0 ? ItemFailure.EventUnknown : ItemFailure.EventCancelled;
        if (TicketIds.serialOf(tokenId) == 0) return ItemFailure.InvalidSerial;
        (uint96 price, bool representable) = _price(batch.word(offset + 49, 16));
        if (!representable) return ItemFailure.PriceNotRepresentable;
        if (!_mintToCustody(tokenId, sale.custody, flags)) return ItemFailure.TicketExists;
        unchecked {
            ++sale.sold;
        }
        emit TicketSold(tokenId, bytes32(batch.word(offset + 17, 32)), price, uint64(batch.word(offset + 65, 8)));
        return ItemFailure.None;
    }

    /// @dev Counts the sales of the event `sale` held, then holds event `eventIndex`.
    function _switchSaleEvent(SaleEvent memory sale, uint64 eventIndex) private {
        _countSold(sale);
        sale.eventIndex = eventIndex;
        sale.open = _events[eventIndex].key != 0 && !_eventCancelled(eventIndex);
        sale.custody = _custodyAddress(eventIndex);
    }

    /// @dev Counts the sales minted since the last count into their event's custody.
    function _countSold(SaleEvent memory sale) private {
        if (sale.sold == 0) return;
        _countMinted(sale.eventIndex, sale.sold);
        sale.sold = 0;
    }

    /// @dev A resale moves a ticket in custody to the fresh keyless holder of its next resale count.
    function _resold(bytes calldata batch, uint256 offset, FlagWord memory flags)
        private
        returns (uint256 next, uint256 tokenId, ItemFailure failure)
    {
        batch.ensure(offset, BatchReader.RESOLD_SIZE);
        next = offset + BatchReader.RESOLD_SIZE;
        tokenId = batch.word(offset + 1, 16);
        failure = _movableByOperator(_flagsAt(flags, tokenId));
        if (failure != ItemFailure.None) return (next, tokenId, failure);
        (uint96 price, bool representable) = _price(batch.word(offset + 17, 16));
        if (!representable) return (next, tokenId, ItemFailure.PriceNotRepresentable);
        uint256 resales = _resalesOf(tokenId);
        if (resales == TicketFlags.BITMASK_RESALES) return (next, tokenId, ItemFailure.ResaleLimitReached);

        _moveToNextHolder(tokenId, resales, flags);
        emit TicketResold(tokenId, uint32(resales + 1), price, uint64(batch.word(offset + 33, 8)));
    }

    /// @dev A claim hands a checked-in ticket from custody to the claimant's wallet.
    function _claimed(bytes calldata batch, uint256 offset, FlagWord memory flags)
        private
        returns (uint256 next, uint256 tokenId, ItemFailure failure)
    {
        batch.ensure(offset, BatchReader.CLAIMED_SIZE);
        next = offset + BatchReader.CLAIMED_SIZE;
        tokenId = batch.word(offset + 1, 16);
        address to = address(uint160(batch.word(offset + 17, 20)));
        uint256 ticketFlags = _flagsAt(flags, tokenId);
        // One test lets the common case through: sold, checked in, and nothing that refuses a claim.
        if (ticketFlags & _OPERATOR_MOVE_FLAGS != TicketFlags.BITMASK_MINTED | TicketFlags.BITMASK_CHECKED_IN) {
            return (next, tokenId, _ticketRefusal(ticketFlags, TicketFlags.BITMASK_CHECKED_IN));
        }
        if (!_isWallet(to)) return (next, tokenId, ItemFailure.InvalidReceiver);
        _releaseToWallet(tokenId, to, flags);
    }

    /// @dev Why an operator may not move a ticket with flags `flags` now, or None.
    function _movableByOperator(uint256 flags) private pure returns (ItemFailure) {
        // One test lets the common case through: sold, and nothing that refuses a move.
        if (flags & _OPERATOR_MOVE_FLAGS == TicketFlags.BITMASK_MINTED) return ItemFailure.None;
        return _ticketRefusal(flags, 0);
    }

    /**
     * @dev Why a resale (`checkedIn` 0) or a claim (`checkedIn` TicketFlags.BITMASK_CHECKED_IN) of a ticket with
     * `flags` is refused, in the order the rules test: its event cancelled, unknown, invalidated, claimed, then
     * checked in for a resale and not checked in for a claim.
     */
    function _ticketRefusal(uint256 flags, uint256 checkedIn) private pure returns (ItemFailure) {
        if (flags == TicketFlags.CANCELLED_EVENT_FLAGS) return ItemFailure.EventCancelled;
        if (flags & TicketFlags.BITMASK_MINTED == 0) return ItemFailure.TicketUnknown;
        if (flags & TicketFlags.BITMASK_INVALIDATED != 0) return ItemFailure.TicketInvalidated;
        if (flags & TicketFlags.BITMASK_CLAIMED != 0) return ItemFailure.TicketClaimed;
        return checkedIn == 0 ? ItemFailure.TicketCheckedIn : ItemFailure.TicketNotCheckedIn;
    }

    // ------------------------------------------------------------------------------------------
    // Check-ins and invalidations: one log per run of consecutive items of the same action
    // ------------------------------------------------------------------------------------------

    /// @dev Applies the run of `action` items starting at `offset`; returns where the next run starts.
    function _applyRecordRun(bytes calldata batch, uint256 offset, uint256 index, uint8 action, FlagWord memory flags)
        private
        returns (uint256, uint256)
    {
        (bytes memory records, uint256 recordsEnd) =
            _allocateRecords(batch.length - offset, BatchReader.RECORD_ITEM_SIZE, BatchReader.RECORD_SIZE);
        uint256 length;
        bool checkIn = action == BatchReader.CHECKED_IN;
        do {
            batch.ensure(offset, BatchReader.RECORD_ITEM_SIZE);
            uint256 tokenId = batch.word(offset + 1, 16);
            ItemFailure failure = _applyRecord(tokenId, checkIn, flags);
            if (failure == ItemFailure.None) {
                uint256 record = (tokenId << 128) | (batch.word(offset + 17, 8) << 64);
                // Assembly: one word into the records buffer, without a bounds check per record.
                // solhint-disable-next-line no-inline-assembly
                assembly ("memory-safe") {
                    mstore(add(add(records, 0x20), length), record)
                }
                // Bounded by the records buffer, which _allocateRecords sized from the batch's length.
                unchecked {
                    length += BatchReader.RECORD_SIZE;
                }
            } else {
                emit ItemFailed(index, tokenId, failure);
            }
            unchecked {
                offset += BatchReader.RECORD_ITEM_SIZE;
                ++index;
            }
        } while (offset < batch.length && batch.word(offset, 1) == action);
        _emitRecords(records, recordsEnd, length, action);
        return (offset, index);
    }

    /// @dev Checks in (`checkIn`) or invalidates `tokenId`, through the run's flag word `flags`.
    function _applyRecord(uint256 tokenId, bool checkIn, FlagWord memory flags) private returns (ItemFailure) {
        uint256 ticketFlags = _flagsAt(flags, tokenId);
        // One test lets the common case through: a ticket sold, of an event not cancelled, not invalidated, and for
        // an invalidation not checked in either. A repeated check-in succeeds and changes nothing.
        uint256 refusing = checkIn ? TicketFlags.BITMASK_INVALIDATED : _REFUSING_INVALIDATION;
        if (ticketFlags & (TicketFlags.BITMASK_MINTED | refusing) != TicketFlags.BITMASK_MINTED) {
            return _recordRefusal(ticketFlags);
        }
        if (checkIn) {
            if (ticketFlags & TicketFlags.BITMASK_CHECKED_IN == 0) _addFlagsAt(flags, tokenId, TicketFlags.BITMASK_CHECKED_IN);
        } else {
            _addFlagsAt(flags, tokenId, TicketFlags.BITMASK_INVALIDATED);
        }
        return ItemFailure.None;
    }

    /// @dev Why a check-in or an invalidation of a ticket with `ticketFlags` is refused, in the order the rules test.
    function _recordRefusal(uint256 ticketFlags) private pure returns (ItemFailure) {
        // A cancelled event's tickets can be neither checked in nor invalidated: they already are void.
        if (ticketFlags == TicketFlags.CANCELLED_EVENT_FLAGS) return ItemFailure.EventCancelled;
        if (ticketFlags & TicketFlags.BITMASK_MINTED == 0) return ItemFailure.TicketUnknown;
        // Only a ticket neither checked in nor invalidated before can be invalidated; an invalid one cannot be checked in.
        if (ticketFlags & TicketFlags.BITMASK_INVALIDATED != 0) return ItemFailure.TicketInvalidated;
        return ItemFailure.TicketCheckedIn;
    }

    /// @dev Room for every record of `recordSize` bytes the rest of the batch could hold in items of `itemSize`, plus
    /// a spare word: records are written as whole words. Returns the buffer and the free memory pointer just after it.
    function _allocateRecords(uint256 remainingBytes, uint256 itemSize, uint256 recordSize)
        private
        pure
        returns (bytes memory records, uint256 end)
    {
        uint256 capacity = (remainingBytes / itemSize) * recordSize;
        // Assembly: a buffer Solidity would zero word by word.
        // solhint-disable-next-line no-inline-assembly
        assembly ("memory-safe") {
            records := mload(0x40)
            end := add(records, add(capacity, 0x40))
            mstore(0x40, end)
        }
    }

    /// @dev Emits the run's log (of its `action`) and frees its buffer (`end` is the free memory pointer just after it), unless the
    /// run allocated memory after it that must outlive the run: a flag word's parked events, allocated when a run's
    /// tickets first move between events. Freed regardless, later runs and logs would write over them.
    function _emitRecords(bytes memory records, uint256 end, uint256 length, uint8 action) private {
        uint256 free;
        // Assembly: the log's length set after the run, in place.
        // solhint-disable-next-line no-inline-assembly
        assembly ("memory-safe") {
            free := mload(0x40)
            mstore(records, length)
        }
        if (length != 0) {
            if (action == BatchReader.CHECKED_IN) emit TicketsCheckedIn(records);
            else if (action == BatchReader.INVALIDATED) emit TicketsInvalidated(records);
            else emit TicketsMetadataUpdated(records);
        }
        // Assembly: the run's buffer handed back to the allocator.
        // solhint-disable-next-line no-inline-assembly
        assembly ("memory-safe") {
            switch eq(free, end)
            case 1 { mstore(0x40, records) }
            default { mstore(0x40, free) }
        }
    }

    // ------------------------------------------------------------------------------------------
    // Ticket metadata: one TicketsMetadataUpdated log per run of consecutive items of the same action
    // ------------------------------------------------------------------------------------------

    /// @dev The tokens of a metadata update run not yet signalled (ERC-4906): `from` to `to`, none while `to` is 0.
    struct PendingSignal {
        uint256 from;
        uint256 to;
    }

    /**
     * @dev Applies the run of ticket metadata updates starting at `offset`; returns where the next run starts. The
     * hashes go into the run's log only: no storage slot is written for them.
     */
    function _applyMetadataRun(bytes calldata batch, uint256 offset, uint256 index, FlagWord memory flags)
        private
        returns (uint256, uint256)
    {
        (bytes memory records, uint256 recordsEnd) =
            _allocateRecords(batch.length - offset, BatchReader.UPDATE_TICKET_SIZE, BatchReader.METADATA_RECORD_SIZE);
        uint256 length;
        PendingSignal memory signal;
        do {
            batch.ensure(offset, BatchReader.UPDATE_TICKET_SIZE);
            uint256 tokenId = batch.word(offset + 1, 16);
            ItemFailure failure = _metadataUpdatable(_flagsAt(flags, tokenId));
            if (failure == ItemFailure.None) {
                length = _writeMetadataRecord(records, length, tokenId, batch.word(offset + 17, 32));
                _extendSignal(signal, tokenId);
            } else {
                emit ItemFailed(index, tokenId, failure);
            }
            unchecked {
                offset += BatchReader.UPDATE_TICKET_SIZE;
                ++index;
            }
        } while (offset < batch.length && batch.word(offset, 1) == BatchReader.UPDATE_TICKET);
        _emitRecords(records, recordsEnd, length, BatchReader.UPDATE_TICKET);
        _signal(signal);
        return (offset, index);
    }

    /// @dev Applies the run of sales with their metadata starting at `offset`: each exactly a sale (see _sold), whose
    /// tokens the batch signals as it signals sales, plus its record in the run's TicketsMetadataUpdated log.
    function _applySaleWithMetadataRun(bytes calldata batch, uint256 offset, uint256 index, FlagWord memory flags)
        private
        returns (uint256, uint256)
    {
        (bytes memory records, uint256 recordsEnd) =
            _allocateRecords(batch.length - offset, BatchReader.SOLD_WITH_METADATA_SIZE, BatchReader.METADATA_RECORD_SIZE);
        uint256 cursor;
        // solhint-disable-next-line no-inline-assembly
        assembly ("memory-safe") {
            cursor := add(records, 0x20)
        }
        SaleEvent memory sale;
        do {
            batch.ensure(offset, BatchReader.SOLD_WITH_METADATA_SIZE);
            uint256 tokenId = batch.word(offset + 1, 16);
            // Assembly: the record written at the cursor before the sale is known to stand, kept only if it does:
            // a branch and a call per sale cost more than the budget of its hash allows.
            // solhint-disable-next-line no-inline-assembly
            assembly ("memory-safe") {
                mstore(cursor, shl(128, tokenId))
                mstore(add(cursor, 16), calldataload(add(batch.offset, add(offset, 73))))
            }
            ItemFailure failure = _sold(batch, offset, tokenId, sale, flags);
            if (failure == ItemFailure.None) {
                unchecked {
                    cursor += BatchReader.METADATA_RECORD_SIZE;
                }
            } else {
                emit ItemFailed(index, tokenId, failure);
            }
            unchecked {
                offset += BatchReader.SOLD_WITH_METADATA_SIZE;
                ++index;
            }
        } while (offset < batch.length && batch.word(offset, 1) == BatchReader.SOLD_WITH_METADATA);
        uint256 length;
        // solhint-disable-next-line no-inline-assembly
        assembly ("memory-safe") {
            length := sub(cursor, add(records, 0x20))
        }
        _countSold(sale);
        _emitRecords(records, recordsEnd, length, BatchReader.SOLD_WITH_METADATA);
        return (offset, index);
    }

    /// @dev Why the metadata of a ticket with `ticketFlags` cannot be updated, or None: it must have been sold, and
    /// its event not cancelled. Invalidated, checked-in and claimed tickets keep metadata that may change.
    function _metadataUpdatable(uint256 ticketFlags) private pure returns (ItemFailure) {
        if (ticketFlags & TicketFlags.BITMASK_MINTED != 0) return ItemFailure.None;
        return ticketFlags == TicketFlags.CANCELLED_EVENT_FLAGS ? ItemFailure.EventCancelled : ItemFailure.TicketUnknown;
    }

    /// @dev Appends the 48-byte record (tokenId, metadataHash) at `length` in `records`; returns the new length.
    function _writeMetadataRecord(bytes memory records, uint256 length, uint256 tokenId, uint256 metadataHash)
        private
        pure
        returns (uint256)
    {
        // Assembly: two words into the records buffer, the hash over the tokenId word's zero low half, without a
        // bounds check per record; _allocateRecords sized the buffer from the batch's length.
        // solhint-disable-next-line no-inline-assembly
        assembly ("memory-safe") {
            let at := add(add(records, 0x20), length)
            mstore(at, shl(128, tokenId))
            mstore(add(at, 16), metadataHash)
        }
        unchecked {
            return length + BatchReader.METADATA_RECORD_SIZE;
        }
    }

    /// @dev Adds `tokenId` to the run's pending signal: the next token of an ascending range extends it, any other
    /// signals the range held and starts another.
    function _extendSignal(PendingSignal memory signal, uint256 tokenId) private {
        uint256 to = signal.to;
        // Tokens have at most 128 bits: to + 1 cannot overflow; a minted token is never 0, the empty mark.
        unchecked {
            if (to != 0 && tokenId == to + 1) {
                signal.to = tokenId;
                return;
            }
        }
        _signal(signal);
        signal.from = tokenId;
        signal.to = tokenId;
    }

    /// @dev Tells marketplaces and wallets the pending tokens' metadata changed (ERC-4906), if there are any.
    function _signal(PendingSignal memory signal) private {
        uint256 to = signal.to;
        if (to == 0) return;
        if (signal.from == to) emit MetadataUpdate(to);
        else emit BatchMetadataUpdate(signal.from, to);
    }

    // ------------------------------------------------------------------------------------------
    // Views
    // ------------------------------------------------------------------------------------------

    /// @inheritdoc ITicketRegistry
    function baseURI() external view returns (string memory) {
        return _baseTokenURI;
    }

    /// @inheritdoc ITicketRegistry
    function contractURI() external view returns (string memory) {
        return _contractURI;
    }

    /// @inheritdoc ITicketRegistry
    function eventRecord(uint64 eventIndex) external view returns (EventView memory) {
        EventRecord storage record = _events[eventIndex];
        if (record.key == 0) revert TicketRegistryEventUnknown(eventIndex);
        return EventView({
            eventKey: record.key,
            ticketeer: record.ticketeer,
            detailsHash: record.detailsHash,
            custody: _custodyAddress(eventIndex),
            ticketsSold: record.custody.minted,
            ticketsInCustody: record.custody.minted - record.custody.released,
            cancelled: record.custody.cancelled
        });
    }

    /// @inheritdoc ITicketRegistry
    function ticket(uint256 tokenId) external view returns (TicketView memory) {
        return _ticketView(tokenId, _requireOwned(tokenId));
    }

    /// @inheritdoc ITicketRegistry
    function tickets(uint256[] calldata tokenIds) external view returns (TicketView[] memory views) {
        views = new TicketView[](tokenIds.length);
        for (uint256 i; i < tokenIds.length; ++i) {
            uint256 tokenId = tokenIds[i];
            views[i] = _ticketView(tokenId, _ownerOf(tokenId));
        }
    }

    /// @dev What anyone can verify about `tokenId`, owned by `holder` (zero if never minted).
    function _ticketView(uint256 tokenId, address holder) private view returns (TicketView memory) {
        uint256 flags = _flagsOf(tokenId);
        uint64 eventIndex = TicketIds.eventIndexOf(tokenId);
        return TicketView({
            eventIndex: eventIndex,
            serial: TicketIds.serialOf(tokenId),
            // A number above 128 bits names no ticket: its truncated event index must not lend it an event's key.
            eventKey: tokenId >> 128 == 0 ? _events[eventIndex].key : bytes32(0),
            holder: holder,
            checkedIn: flags & TicketFlags.BITMASK_CHECKED_IN != 0,
            invalidated: flags & TicketFlags.BITMASK_INVALIDATED != 0,
            claimed: flags & TicketFlags.BITMASK_CLAIMED != 0,
            resales: uint32(_resalesOf(tokenId)),
            eventCancelled: tokenId >> 128 == 0 && _eventCancelled(eventIndex)
        });
    }

    /// @inheritdoc IERC165
    function supportsInterface(bytes4 interfaceId)
        public
        view
        override(CustodialERC721, AccessControl, IERC165)
        returns (bool)
    {
        return interfaceId == _INTERFACE_ID_ERC4906 || super.supportsInterface(interfaceId);
    }

    // ------------------------------------------------------------------------------------------
    // Administration
    // ------------------------------------------------------------------------------------------

    /// @inheritdoc ITicketRegistry
    function pause() external onlyRole(DEFAULT_ADMIN_ROLE) {
        _pause();
    }

    /// @inheritdoc ITicketRegistry
    function unpause() external onlyRole(DEFAULT_ADMIN_ROLE) {
        _unpause();
    }

    /// @inheritdoc ITicketRegistry
    function setBaseURI(string calldata newBaseURI) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _baseTokenURI = newBaseURI;
        emit BaseURIChanged(newBaseURI);
        emit BatchMetadataUpdate(0, type(uint256).max);
    }

    /// @inheritdoc ITicketRegistry
    function setContractURI(string calldata newContractURI) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _contractURI = newContractURI;
        emit ContractURIUpdated();
    }

    // ------------------------------------------------------------------------------------------
    // Hooks of CustodialERC721
    // ------------------------------------------------------------------------------------------

    /// @dev An event exists once registered; events are never removed.
    function _eventExists(uint64 eventIndex) internal view override returns (bool) {
        return _events[eventIndex].key != 0;
    }

    /// @dev An event's custody counters are part of its record.
    function _eventCustody(uint64 eventIndex) internal view override returns (EventCustody storage) {
        return _events[eventIndex].custody;
    }

    /// @dev The prefix set by the constructor and setBaseURI.
    function _baseURI() internal view override returns (string memory) {
        return _baseTokenURI;
    }

    /// @dev What tokens show changed: marketplaces and wallets read their metadata again (ERC-4906).
    function _tokensChanged(uint256 fromTokenId, uint256 toTokenId) internal override {
        emit BatchMetadataUpdate(fromTokenId, toTokenId);
    }

    // ------------------------------------------------------------------------------------------
    // Helpers
    // ------------------------------------------------------------------------------------------

    /// @dev Converts a wire price to PRICE_DECIMALS fixed point; false if it is not exactly representable.
    function _price(uint256 encoded) private pure returns (uint96 price, bool representable) {
        uint256 scale = encoded >> 120;
        uint256 digits = encoded & _PRICE_DIGITS_MASK;
        uint256 value;
        if (scale <= PRICE_DECIMALS) {
            // digits < 2^120 and the factor <= 10^6: no overflow.
            unchecked {
                value = digits * ((_POWERS_OF_TEN >> (24 * (PRICE_DECIMALS - scale))) & _POWER_OF_TEN_MASK);
            }
        } else if (scale - PRICE_DECIMALS > 36) {
            // 10**37 exceeds any 120-bit digits: only a zero survives the division exactly.
            value = digits;
            if (digits != 0) return (0, false);
        } else {
            uint256 divisor = 10 ** (scale - PRICE_DECIMALS);
            if (digits % divisor != 0) return (0, false);
            value = digits / divisor;
        }
        if (value > type(uint96).max) return (0, false);
        return (uint96(value), true);
    }
}
