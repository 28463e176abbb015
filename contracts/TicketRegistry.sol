// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {Strings} from "@openzeppelin/contracts/utils/Strings.sol";
import {IERC165} from "@openzeppelin/contracts/utils/introspection/IERC165.sol";
import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";
import {IERC721Metadata} from "@openzeppelin/contracts/token/ERC721/extensions/IERC721Metadata.sol";
import {IERC721Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {IERC4906} from "@openzeppelin/contracts/interfaces/IERC4906.sol";
import {ERC721Utils} from "@openzeppelin/contracts/token/ERC721/utils/ERC721Utils.sol";

import {ITicketRegistry} from "./ITicketRegistry.sol";
import {BatchReader} from "./libraries/BatchReader.sol";
import {TicketIds} from "./libraries/TicketIds.sol";

/**
 * @title TicketRegistry
 * @notice ERC-721 registry of a ticketing service's events and tickets. See ITicketRegistry.
 *
 * Storage is laid out for cheap batches: a sale writes no per-ticket slot of its own (its ticket's
 * flags share a slot with 63 neighbours), ownership is derived from the tokenId and a packed resale
 * counter until a claim gives the token an explicit owner, and custodial balances are computed.
 */
contract TicketRegistry is ITicketRegistry, IERC721Metadata, IERC4906, IERC721Errors, AccessControl, Pausable {
    using BatchReader for bytes;

    /// @notice Role of the service's signers: the only accounts that write events and tickets.
    bytes32 public constant OPERATOR_ROLE = keccak256("OPERATOR_ROLE");

    /// @notice Decimals of on-chain prices: 12.5 in the event's currency is 12_500_000.
    uint8 public constant PRICE_DECIMALS = 6;

    /// @notice Decimals of on-chain latitude and longitude: 52.3731 degrees is 523_731_000.
    uint8 public constant COORDINATE_DECIMALS = 7;

    // ------------------------------------------------------------------------------------------
    // Storage
    // ------------------------------------------------------------------------------------------

    struct EventRecord {
        bytes32 key;
        bytes32 ticketeer;
        bytes32 detailsHash;
        uint64 sold;
        uint64 released; // tickets that left the custody address (first resale or claim)
    }

    /// @dev Four flag bits per ticket, 64 tickets per slot, keyed by tokenId >> 6.
    uint256 private constant _MINTED = 1;
    uint256 private constant _CHECKED_IN = 2;
    uint256 private constant _INVALIDATED = 4;
    uint256 private constant _CLAIMED = 8;

    /// @dev A price's top byte is its decimal places, the low 120 bits its digits.
    uint256 private constant _PRICE_DIGITS_MASK = (1 << 120) - 1;

    uint160 private immutable _custodyMask;

    string private _name;
    string private _symbol;
    string private _baseTokenURI;

    mapping(uint64 eventIndex => EventRecord) private _events;
    mapping(uint256 flagBucket => uint256) private _ticketFlags;
    /// @dev Eight uint32 resale counters per slot, keyed by tokenId >> 3.
    mapping(uint256 resaleBucket => uint256) private _resaleCounters;
    /// @dev Set only when a claim hands a token to a wallet.
    mapping(uint256 tokenId => address) private _owners;
    /// @dev Balances of wallets; custodial balances are computed.
    mapping(address owner => uint256) private _balances;
    mapping(uint256 tokenId => address) private _tokenApprovals;
    mapping(address owner => mapping(address operator => bool)) private _operatorApprovals;

    constructor(address admin, string memory name_, string memory symbol_, string memory baseURI_) {
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _name = name_;
        _symbol = symbol_;
        _baseTokenURI = baseURI_;
        _custodyMask = uint160(uint256(keccak256(abi.encode(block.chainid, address(this), "TicketRegistry.custody"))));
    }

    // ------------------------------------------------------------------------------------------
    // Batches
    // ------------------------------------------------------------------------------------------

    /// @inheritdoc ITicketRegistry
    function execute(bytes calldata batch) external onlyRole(OPERATOR_ROLE) whenNotPaused {
        uint256 offset;
        uint256 index;
        while (offset < batch.length) {
            uint8 action = uint8(batch.word(offset, 1));
            if (action == BatchReader.CHECKED_IN || action == BatchReader.INVALIDATED) {
                (offset, index) = _applyRecordRun(batch, offset, index, action);
                continue;
            }
            (uint256 next, uint256 subject, ItemFailure failure) = _applyItem(batch, offset, action);
            if (failure != ItemFailure.None) emit ItemFailed(index, subject, failure);
            offset = next;
            unchecked {
                ++index;
            }
        }
    }

    function _applyItem(bytes calldata batch, uint256 offset, uint8 action)
        private
        returns (uint256 next, uint256 subject, ItemFailure failure)
    {
        if (action == BatchReader.SOLD) return _sold(batch, offset);
        if (action == BatchReader.RESOLD) return _resold(batch, offset);
        if (action == BatchReader.CLAIMED) return _claimed(batch, offset);
        if (action == BatchReader.REGISTER_EVENT) return _registerEvent(batch, offset);
        if (action == BatchReader.UPDATE_EVENT) return _updateEvent(batch, offset);
        revert TicketRegistryMalformedBatch(offset);
    }

    // ------------------------------------------------------------------------------------------
    // Event items
    // ------------------------------------------------------------------------------------------

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
        if (eventIndex == 0 || eventKey == 0) return (next, subject, ItemFailure.InvalidEventIndex);
        EventRecord storage record = _events[eventIndex];
        if (record.key != 0) return (next, subject, ItemFailure.EventExists);
        record.key = eventKey;
        record.ticketeer = ticketeer;
        record.detailsHash = keccak256(abi.encode(details));
        emit EventRegistered(eventIndex, eventKey, ticketeer, _custodyAddress(eventIndex), details);
    }

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
    }

    // ------------------------------------------------------------------------------------------
    // Ticket items
    // ------------------------------------------------------------------------------------------

    function _sold(bytes calldata batch, uint256 offset)
        private
        returns (uint256 next, uint256 tokenId, ItemFailure failure)
    {
        batch.ensure(offset, BatchReader.SOLD_SIZE);
        next = offset + BatchReader.SOLD_SIZE;
        tokenId = batch.word(offset + 1, 16);
        uint64 eventIndex = TicketIds.eventIndexOf(tokenId);
        EventRecord storage record = _events[eventIndex];
        if (record.key == 0) return (next, tokenId, ItemFailure.EventUnknown);
        if (TicketIds.serialOf(tokenId) == 0) return (next, tokenId, ItemFailure.InvalidSerial);
        (uint96 price, bool representable) = _price(batch.word(offset + 49, 16));
        if (!representable) return (next, tokenId, ItemFailure.PriceNotRepresentable);
        if (!_markMinted(tokenId)) return (next, tokenId, ItemFailure.TicketExists);

        unchecked {
            ++record.sold;
        }
        emit Transfer(address(0), _custodyAddress(eventIndex), tokenId);
        emit TicketSold(tokenId, bytes32(batch.word(offset + 17, 32)), price, uint64(batch.word(offset + 65, 8)));
    }

    /// @dev Sets the minted flag, the only per-ticket storage of a sale; false if it was already set.
    function _markMinted(uint256 tokenId) private returns (bool) {
        (uint256 bucket, uint256 shift) = _flagPosition(tokenId);
        uint256 word = _ticketFlags[bucket];
        if ((word >> shift) & _MINTED != 0) return false;
        _ticketFlags[bucket] = word | (_MINTED << shift);
        return true;
    }

    function _resold(bytes calldata batch, uint256 offset)
        private
        returns (uint256 next, uint256 tokenId, ItemFailure failure)
    {
        batch.ensure(offset, BatchReader.RESOLD_SIZE);
        next = offset + BatchReader.RESOLD_SIZE;
        tokenId = batch.word(offset + 1, 16);
        failure = _movableByOperator(tokenId);
        if (failure != ItemFailure.None) return (next, tokenId, failure);
        (uint96 price, bool representable) = _price(batch.word(offset + 17, 16));
        if (!representable) return (next, tokenId, ItemFailure.PriceNotRepresentable);
        uint256 resales = _resalesOf(tokenId);
        if (resales == type(uint32).max) return (next, tokenId, ItemFailure.ResaleLimitReached);

        _moveToNextHolder(tokenId, resales);
        emit TicketResold(tokenId, uint32(resales + 1), price, uint64(batch.word(offset + 33, 8)));
    }

    /// @dev A resale: the token moves to the fresh keyless holder of its next resale count.
    function _moveToNextHolder(uint256 tokenId, uint256 resales) private {
        address from = _leaveCustody(tokenId, resales);
        _setResales(tokenId, resales + 1);
        emit Transfer(from, _holderAddress(tokenId, resales + 1), tokenId);
    }

    function _claimed(bytes calldata batch, uint256 offset)
        private
        returns (uint256 next, uint256 tokenId, ItemFailure failure)
    {
        batch.ensure(offset, BatchReader.CLAIMED_SIZE);
        next = offset + BatchReader.CLAIMED_SIZE;
        tokenId = batch.word(offset + 1, 16);
        address to = address(uint160(batch.word(offset + 17, 20)));
        uint256 flags = _flagsOf(tokenId);
        if (flags & _MINTED == 0) return (next, tokenId, ItemFailure.TicketUnknown);
        if (flags & _INVALIDATED != 0) return (next, tokenId, ItemFailure.TicketInvalidated);
        if (flags & _CLAIMED != 0) return (next, tokenId, ItemFailure.TicketClaimed);
        if (flags & _CHECKED_IN == 0) return (next, tokenId, ItemFailure.TicketNotCheckedIn);
        if (!_isWallet(to)) return (next, tokenId, ItemFailure.InvalidReceiver);

        address from = _leaveCustody(tokenId, _resalesOf(tokenId));
        _setFlags(tokenId, _CLAIMED);
        _owners[tokenId] = to;
        unchecked {
            ++_balances[to];
        }
        emit Transfer(from, to, tokenId);
    }

    /// @dev Why an operator may not move `tokenId` now, or None.
    function _movableByOperator(uint256 tokenId) private view returns (ItemFailure) {
        uint256 flags = _flagsOf(tokenId);
        if (flags & _MINTED == 0) return ItemFailure.TicketUnknown;
        if (flags & _INVALIDATED != 0) return ItemFailure.TicketInvalidated;
        if (flags & _CLAIMED != 0) return ItemFailure.TicketClaimed;
        if (flags & _CHECKED_IN != 0) return ItemFailure.TicketCheckedIn;
        return ItemFailure.None;
    }

    /// @dev The token's current custodial holder; counts it out of its event's custody on its first move.
    function _leaveCustody(uint256 tokenId, uint256 resales) private returns (address from) {
        if (resales != 0) return _holderAddress(tokenId, resales);
        uint64 eventIndex = TicketIds.eventIndexOf(tokenId);
        unchecked {
            ++_events[eventIndex].released;
        }
        return _custodyAddress(eventIndex);
    }

    /// @dev Converts a wire price to PRICE_DECIMALS fixed point; false if it is not exactly representable.
    function _price(uint256 encoded) private pure returns (uint96 price, bool representable) {
        uint256 scale = encoded >> 120;
        uint256 digits = encoded & _PRICE_DIGITS_MASK;
        uint256 value;
        if (scale <= PRICE_DECIMALS) {
            value = digits * 10 ** (PRICE_DECIMALS - scale);
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

    // ------------------------------------------------------------------------------------------
    // Check-ins and invalidations: one log per run of consecutive items of the same action
    // ------------------------------------------------------------------------------------------

    /// @dev Applies the run of `action` items starting at `offset`; returns where the next run starts.
    function _applyRecordRun(bytes calldata batch, uint256 offset, uint256 index, uint8 action)
        private
        returns (uint256, uint256)
    {
        bytes memory records = _allocateRecords(batch.length - offset);
        uint256 length;
        bool checkIn = action == BatchReader.CHECKED_IN;
        do {
            batch.ensure(offset, BatchReader.RECORD_ITEM_SIZE);
            uint256 tokenId = batch.word(offset + 1, 16);
            ItemFailure failure = checkIn ? _checkIn(tokenId) : _invalidate(tokenId);
            if (failure == ItemFailure.None) {
                uint256 record = (tokenId << 128) | (batch.word(offset + 17, 8) << 64);
                assembly ("memory-safe") {
                    mstore(add(add(records, 0x20), length), record)
                }
                length += BatchReader.RECORD_SIZE;
            } else {
                emit ItemFailed(index, tokenId, failure);
            }
            unchecked {
                offset += BatchReader.RECORD_ITEM_SIZE;
                ++index;
            }
        } while (offset < batch.length && batch.word(offset, 1) == action);
        _emitRecords(records, length, checkIn);
        return (offset, index);
    }

    function _checkIn(uint256 tokenId) private returns (ItemFailure) {
        (uint256 bucket, uint256 shift) = _flagPosition(tokenId);
        uint256 word = _ticketFlags[bucket];
        uint256 flags = word >> shift;
        if (flags & _MINTED == 0) return ItemFailure.TicketUnknown;
        if (flags & _INVALIDATED != 0) return ItemFailure.TicketInvalidated;
        if (flags & _CHECKED_IN == 0) _ticketFlags[bucket] = word | (_CHECKED_IN << shift);
        return ItemFailure.None;
    }

    function _invalidate(uint256 tokenId) private returns (ItemFailure) {
        (uint256 bucket, uint256 shift) = _flagPosition(tokenId);
        uint256 word = _ticketFlags[bucket];
        uint256 flags = word >> shift;
        if (flags & _MINTED == 0) return ItemFailure.TicketUnknown;
        if (flags & _CHECKED_IN != 0) return ItemFailure.TicketCheckedIn;
        if (flags & _INVALIDATED != 0) return ItemFailure.TicketInvalidated;
        _ticketFlags[bucket] = word | (_INVALIDATED << shift);
        return ItemFailure.None;
    }

    /// @dev Room for every record the rest of the batch could hold, plus a spare word: records are written as whole words.
    function _allocateRecords(uint256 remainingBytes) private pure returns (bytes memory records) {
        uint256 capacity = (remainingBytes / BatchReader.RECORD_ITEM_SIZE) * BatchReader.RECORD_SIZE;
        assembly ("memory-safe") {
            records := mload(0x40)
            mstore(0x40, add(records, add(capacity, 0x40)))
        }
    }

    /// @dev Emits the run's log and frees its buffer: nothing else is allocated while a run is applied.
    function _emitRecords(bytes memory records, uint256 length, bool checkIn) private {
        assembly ("memory-safe") {
            mstore(records, length)
        }
        if (length != 0) {
            if (checkIn) emit TicketsCheckedIn(records);
            else emit TicketsInvalidated(records);
        }
        assembly ("memory-safe") {
            mstore(0x40, records)
        }
    }

    // ------------------------------------------------------------------------------------------
    // ERC-721
    // ------------------------------------------------------------------------------------------

    /// @inheritdoc IERC721
    function balanceOf(address owner) public view returns (uint256) {
        if (owner == address(0)) revert ERC721InvalidOwner(address(0));
        return _balances[owner] + _custodialBalance(owner);
    }

    /// @inheritdoc IERC721
    function ownerOf(uint256 tokenId) public view returns (address) {
        return _requireOwned(tokenId);
    }

    /// @inheritdoc IERC721Metadata
    function name() external view returns (string memory) {
        return _name;
    }

    /// @inheritdoc IERC721Metadata
    function symbol() external view returns (string memory) {
        return _symbol;
    }

    /// @inheritdoc IERC721Metadata
    function tokenURI(uint256 tokenId) external view returns (string memory) {
        _requireOwned(tokenId);
        string memory base = _baseTokenURI;
        return bytes(base).length == 0 ? "" : string.concat(base, Strings.toString(tokenId));
    }

    /// @inheritdoc IERC721
    function approve(address to, uint256 tokenId) external {
        address owner = _requireWalletOwned(tokenId);
        if (msg.sender != owner && !_operatorApprovals[owner][msg.sender]) revert ERC721InvalidApprover(msg.sender);
        _tokenApprovals[tokenId] = to;
        emit Approval(owner, to, tokenId);
    }

    /// @inheritdoc IERC721
    function getApproved(uint256 tokenId) external view returns (address) {
        _requireOwned(tokenId);
        return _tokenApprovals[tokenId];
    }

    /// @inheritdoc IERC721
    function setApprovalForAll(address operator, bool approved) external {
        if (operator == address(0)) revert ERC721InvalidOperator(operator);
        _operatorApprovals[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    /// @inheritdoc IERC721
    function isApprovedForAll(address owner, address operator) external view returns (bool) {
        return _operatorApprovals[owner][operator];
    }

    /// @inheritdoc IERC721
    function transferFrom(address from, address to, uint256 tokenId) public {
        if (!_isWallet(to)) revert ERC721InvalidReceiver(to);
        address owner = _requireWalletOwned(tokenId);
        if (owner != from) revert ERC721IncorrectOwner(from, tokenId, owner);
        if (msg.sender != owner && !_operatorApprovals[owner][msg.sender] && _tokenApprovals[tokenId] != msg.sender) {
            revert ERC721InsufficientApproval(msg.sender, tokenId);
        }
        delete _tokenApprovals[tokenId];
        unchecked {
            --_balances[from];
            ++_balances[to];
        }
        _owners[tokenId] = to;
        emit Transfer(from, to, tokenId);
    }

    /// @inheritdoc IERC721
    function safeTransferFrom(address from, address to, uint256 tokenId) external {
        safeTransferFrom(from, to, tokenId, "");
    }

    /// @inheritdoc IERC721
    function safeTransferFrom(address from, address to, uint256 tokenId, bytes memory data) public {
        transferFrom(from, to, tokenId);
        ERC721Utils.checkOnERC721Received(msg.sender, from, to, tokenId, data);
    }

    /// @inheritdoc IERC165
    function supportsInterface(bytes4 interfaceId) public view override(AccessControl, IERC165) returns (bool) {
        return interfaceId == type(IERC721).interfaceId || interfaceId == type(IERC721Metadata).interfaceId
            || interfaceId == bytes4(0x49064906) || super.supportsInterface(interfaceId);
    }

    // ------------------------------------------------------------------------------------------
    // Views
    // ------------------------------------------------------------------------------------------

    /// @inheritdoc ITicketRegistry
    function baseURI() external view returns (string memory) {
        return _baseTokenURI;
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
            ticketsSold: record.sold,
            ticketsInCustody: record.sold - record.released
        });
    }

    /// @inheritdoc ITicketRegistry
    function ticket(uint256 tokenId) external view returns (TicketView memory) {
        address holder = _requireOwned(tokenId);
        uint256 flags = _flagsOf(tokenId);
        uint64 eventIndex = TicketIds.eventIndexOf(tokenId);
        return TicketView({
            eventIndex: eventIndex,
            serial: TicketIds.serialOf(tokenId),
            eventKey: _events[eventIndex].key,
            holder: holder,
            checkedIn: flags & _CHECKED_IN != 0,
            invalidated: flags & _INVALIDATED != 0,
            claimed: flags & _CLAIMED != 0,
            resales: uint32(_resalesOf(tokenId))
        });
    }

    /// @inheritdoc ITicketRegistry
    function custodyAddress(uint64 eventIndex) external view returns (address) {
        return _custodyAddress(eventIndex);
    }

    /// @inheritdoc ITicketRegistry
    function holderAddress(uint256 tokenId, uint32 resales) external view returns (address) {
        return _holderAddress(tokenId, resales);
    }

    /// @inheritdoc ITicketRegistry
    function isCustodial(address account) public view returns (bool) {
        (uint64 eventIndex, uint64 serial, uint32 resales) = TicketIds.decode(_custodyMask, account);
        if (_events[eventIndex].key == 0) return false;
        return (serial == 0) == (resales == 0);
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
    function setBaseURI(string calldata baseURI) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _baseTokenURI = baseURI;
        emit BaseURIChanged(baseURI);
        emit BatchMetadataUpdate(0, type(uint256).max);
    }

    // ------------------------------------------------------------------------------------------
    // Helpers
    // ------------------------------------------------------------------------------------------

    /// @dev The owner of `tokenId`, or zero if it was never sold.
    function _ownerOf(uint256 tokenId) private view returns (address) {
        if (tokenId >> 128 != 0) return address(0);
        uint256 flags = _flagsOf(tokenId);
        if (flags & _MINTED == 0) return address(0);
        if (flags & _CLAIMED != 0) return _owners[tokenId];
        uint256 resales = _resalesOf(tokenId);
        if (resales == 0) return _custodyAddress(TicketIds.eventIndexOf(tokenId));
        return _holderAddress(tokenId, resales);
    }

    function _requireOwned(uint256 tokenId) private view returns (address owner) {
        owner = _ownerOf(tokenId);
        if (owner == address(0)) revert ERC721NonexistentToken(tokenId);
    }

    /// @dev The wallet owning `tokenId`; reverts while the token is in custody.
    function _requireWalletOwned(uint256 tokenId) private view returns (address owner) {
        owner = _requireOwned(tokenId);
        if (_flagsOf(tokenId) & _CLAIMED == 0) revert TicketRegistryTicketInCustody(tokenId);
    }

    /// @dev Tokens held by a custodial address: the event's unreleased tickets, or the one it holds after a resale.
    function _custodialBalance(address account) private view returns (uint256) {
        (uint64 eventIndex, uint64 serial, uint32 resales) = TicketIds.decode(_custodyMask, account);
        EventRecord storage record = _events[eventIndex];
        if (record.key == 0) return 0;
        if (serial == 0) return resales == 0 ? record.sold - record.released : 0;
        uint256 tokenId = TicketIds.tokenId(eventIndex, serial);
        uint256 flags = _flagsOf(tokenId);
        if (flags & _MINTED == 0 || flags & _CLAIMED != 0) return 0;
        return resales != 0 && _resalesOf(tokenId) == resales ? 1 : 0;
    }

    /// @dev A wallet can receive tokens: not zero, not this registry, not one of its custodial addresses.
    function _isWallet(address account) private view returns (bool) {
        return account != address(0) && account != address(this) && !isCustodial(account);
    }

    function _custodyAddress(uint64 eventIndex) private view returns (address) {
        return TicketIds.custodial(_custodyMask, eventIndex, 0, 0);
    }

    function _holderAddress(uint256 tokenId, uint256 resales) private view returns (address) {
        if (resales == 0) return _custodyAddress(TicketIds.eventIndexOf(tokenId));
        return TicketIds.custodial(_custodyMask, TicketIds.eventIndexOf(tokenId), TicketIds.serialOf(tokenId), resales);
    }

    function _flagsOf(uint256 tokenId) private view returns (uint256) {
        (uint256 bucket, uint256 shift) = _flagPosition(tokenId);
        return (_ticketFlags[bucket] >> shift) & 0xf;
    }

    function _flagPosition(uint256 tokenId) private pure returns (uint256 bucket, uint256 shift) {
        return (tokenId >> 6, (tokenId & 63) << 2);
    }

    function _setFlags(uint256 tokenId, uint256 flags) private {
        _ticketFlags[tokenId >> 6] |= flags << ((tokenId & 63) << 2);
    }

    function _resalesOf(uint256 tokenId) private view returns (uint256) {
        return (_resaleCounters[tokenId >> 3] >> ((tokenId & 7) << 5)) & type(uint32).max;
    }

    function _setResales(uint256 tokenId, uint256 resales) private {
        uint256 shift = (tokenId & 7) << 5;
        uint256 bucket = tokenId >> 3;
        _resaleCounters[bucket] = (_resaleCounters[bucket] & ~(uint256(type(uint32).max) << shift)) | (resales << shift);
    }
}
