// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Context} from "@openzeppelin/contracts/utils/Context.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {Strings} from "@openzeppelin/contracts/utils/Strings.sol";
import {ERC165} from "@openzeppelin/contracts/utils/introspection/ERC165.sol";
import {IERC165} from "@openzeppelin/contracts/utils/introspection/IERC165.sol";
import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";
import {IERC721Metadata} from "@openzeppelin/contracts/token/ERC721/extensions/IERC721Metadata.sol";
import {IERC721Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {ERC721Utils} from "@openzeppelin/contracts/token/ERC721/utils/ERC721Utils.sol";

import {ICustodialERC721} from "./ICustodialERC721.sol";
import {TicketFlags} from "../libraries/TicketFlags.sol";
import {TicketIds} from "../libraries/TicketIds.sol";

/**
 * @title CustodialERC721
 * @notice ERC-721 ownership, balances, approvals and transfers for tokens that start out in custody
 * (see ICustodialERC721). Token ids and custodial addresses follow TicketIds; per-token state is packed
 * as TicketFlags lays out.
 *
 * Ownership is derived rather than stored while a token is in custody: a minted token belongs to its
 * event's custody address until its first resale, then to the holder address of its resale count.
 * Custodial balances are computed from each event's EventCustody counters and the resale counters. Only
 * a claim gives a token an explicit owner and counts it in a stored wallet balance.
 *
 * A derived contract decides when tokens move: it calls the ownership changes ({_mintToCustody},
 * {_moveToNextHolder}, {_releaseToWallet}), each of which updates ownership and emits the Transfer log.
 * It implements {_eventExists}, {_eventCustody} (an event's counters live with its other records, so
 * that a sale reads and writes one event slot), {_baseURI} and {_tokensChanged} (told which tokens a batch
 * changed, once per stretch of one event's tokens). Wallets move claimed tokens with the ERC-721 functions.
 *
 * No ERC-721 transfer sends a token into custody: every address of the custodial address space (see
 * {_inCustodialSpace}) is refused as a receiver, whether its event is registered yet or not.
 */
abstract contract CustodialERC721 is Context, ERC165, IERC721Metadata, IERC721Errors, ICustodialERC721 {
    // ------------------------------------------------------------------------------------------
    // Constants
    // ------------------------------------------------------------------------------------------

    /// @dev ERC-165 id of ERC-721 (0x80ac58cd).
    bytes4 private constant _INTERFACE_ID_ERC721 = type(IERC721).interfaceId;

    /// @dev ERC-165 id of the ERC-721 metadata extension (0x5b5e139f).
    bytes4 private constant _INTERFACE_ID_ERC721_METADATA = type(IERC721Metadata).interfaceId;

    /// @dev Domain of the custody mask. Changing it changes every custodial address of a new deployment.
    string private constant _CUSTODY_DOMAIN = "TicketRegistry.custody";

    /// @dev No flag word's key: token ids have 128 bits, so their keys have 122.
    uint256 private constant _NO_BUCKET = type(uint256).max;

    /// @dev Events besides the current one whose changes a batch keeps apart before it signals the oldest: items
    /// alternating between up to this many events and one more cost one signal per event, not one per stretch.
    uint256 private constant _PARKED_EVENTS = 7;

    /// @dev Words of one event's pending changes in FlagWord.pending: lowest word, its changes, highest word, its changes.
    uint256 private constant _PENDING_FIELDS = 4;

    // ------------------------------------------------------------------------------------------
    // Storage
    // ------------------------------------------------------------------------------------------

    /// @dev Custody counters of one event, kept by the derived contract (see {_eventCustody}) and changed only
    /// here; the event's custody address holds `minted - released` tokens. `cancelled` shares their slot, which a
    /// sale reads and writes anyway: a batch reads it once per event, and then reads every one of the event's
    /// tickets as TicketFlags.CANCELLED_EVENT_FLAGS (see {_flagsAt}).
    struct EventCustody {
        uint64 minted; // tokens minted to the custody address: the event's tickets sold
        uint64 released; // tokens that left the custody address (first resale or claim)
        bool cancelled; // set once by {_cancelEventTokens}, never cleared
    }

    /**
     * @dev A flag word held in memory across a batch (see {_openFlagWord}): consecutive serials share a word, so a
     * batch reads and writes each of its words once instead of once per ticket. It also collects which tokens
     * changed (flags or owner) for {_tokensChanged}, per event: the lowest and highest flag words with a change and
     * the flags that changed in each, for the event of the latest change (low/high) and for up to _PARKED_EVENTS
     * others (`parked`), so that items alternating between events cost one signal per event, not one per stretch.
     * Finding the exact lowest and highest token from those two words when the event is signalled costs a few
     * hundred gas per event, where comparing every ticket against a running minimum and maximum would cost about
     * 50 gas per ticket.
     */
    struct FlagWord {
        uint256 bucket; // the word's TicketFlags.flagBucketOf key; _NO_BUCKET before the first read
        uint256 word; // the word as the batch has changed it
        uint256 stored; // the word as storage holds it
        uint256 touched; // tokens of the held word whose owner changed but not their flags (a resale), as flag bits
        bool eventCancelled; // whether the held word's event is cancelled: then `word` is TicketFlags.CANCELLED_EVENT_WORD
        uint256 lowBucket; // the lowest word with an unsignalled change of the current event; _NO_BUCKET when none
        uint256 lowChanges; // its changed bits
        uint256 highBucket; // the highest such word; _NO_BUCKET when none
        uint256 highChanges; // its changed bits
        // Other events' unsignalled changes, _PENDING_FIELDS words each: lowBucket, lowChanges, highBucket, highChanges.
        uint256[] parked; // _PARKED_EVENTS * _PENDING_FIELDS words once an event is parked; none before
        uint256 parkedEvents; // entries of `parked` in use
        uint256 oldestParked; // the entry signalled first when one more event needs room
    }

    /// @dev XOR mask of every custodial address, unique to this contract and chain (see TicketIds).
    uint160 private immutable _CUSTODY_MASK;

    string private _name;
    string private _symbol;

    /// @dev TicketFlags words: four flag bits per token, 64 tokens per word.
    mapping(uint256 flagBucket => uint256) private _ticketFlags;
    /// @dev TicketFlags resale words: a uint32 resale counter per token, 8 tokens per word.
    mapping(uint256 resaleBucket => uint256) private _resaleCounters;
    /// @dev Set only when a claim hands a token to a wallet.
    mapping(uint256 tokenId => address) private _owners;
    /// @dev Balances of wallets; custodial balances are computed.
    mapping(address owner => uint256) private _balances;
    mapping(uint256 tokenId => address) private _tokenApprovals;
    mapping(address owner => mapping(address operator => bool)) private _operatorApprovals;

    constructor(string memory name_, string memory symbol_) {
        _name = name_;
        _symbol = symbol_;
        _CUSTODY_MASK = uint160(uint256(keccak256(abi.encode(block.chainid, address(this), _CUSTODY_DOMAIN))));
    }

    // ------------------------------------------------------------------------------------------
    // ERC-165 and ERC-721 views
    // ------------------------------------------------------------------------------------------

    /**
     * @inheritdoc IERC165
     * @dev ERC-721 and its metadata extension here, ERC-165 itself (0x01ffc9a7) in ERC165.
     */
    function supportsInterface(bytes4 interfaceId) public view virtual override(ERC165, IERC165) returns (bool) {
        return interfaceId == _INTERFACE_ID_ERC721 || interfaceId == _INTERFACE_ID_ERC721_METADATA
            || super.supportsInterface(interfaceId);
    }

    /**
     * @inheritdoc IERC721
     * @dev Wallets count the tokens claimed into them; a custody address counts its event's tokens not yet
     * resold or claimed; a holder address counts the one token it holds, if it still does.
     *
     * Requirements:
     * - `owner` is not the zero address (ERC721InvalidOwner).
     */
    function balanceOf(address owner) public view virtual returns (uint256) {
        if (owner == address(0)) revert ERC721InvalidOwner(address(0));
        return _balances[owner] + _custodialBalance(owner);
    }

    /**
     * @inheritdoc IERC721
     * @dev Requirements:
     * - `tokenId` was minted (ERC721NonexistentToken).
     */
    function ownerOf(uint256 tokenId) public view virtual returns (address) {
        return _requireOwned(tokenId);
    }

    /// @inheritdoc IERC721Metadata
    function name() public view virtual returns (string memory) {
        return _name;
    }

    /// @inheritdoc IERC721Metadata
    function symbol() public view virtual returns (string memory) {
        return _symbol;
    }

    /**
     * @inheritdoc IERC721Metadata
     * @dev The base URI followed by `tokenId` in decimal, or empty while the base URI is empty.
     *
     * Requirements:
     * - `tokenId` was minted (ERC721NonexistentToken).
     */
    function tokenURI(uint256 tokenId) public view virtual returns (string memory) {
        _requireOwned(tokenId);
        string memory base = _baseURI();
        return bytes(base).length == 0 ? "" : string.concat(base, Strings.toString(tokenId));
    }

    /**
     * @inheritdoc IERC721
     * @dev Requirements:
     * - `tokenId` was minted (ERC721NonexistentToken).
     */
    function getApproved(uint256 tokenId) public view virtual returns (address) {
        _requireOwned(tokenId);
        return _tokenApprovals[tokenId];
    }

    /// @inheritdoc IERC721
    function isApprovedForAll(address owner, address operator) public view virtual returns (bool) {
        return _operatorApprovals[owner][operator];
    }

    // ------------------------------------------------------------------------------------------
    // ERC-721 approvals
    // ------------------------------------------------------------------------------------------

    /**
     * @inheritdoc IERC721
     * @dev Gives `to` permission to transfer the claimed token `tokenId`; the approval is cleared when the
     * token is transferred. Approving the zero address clears the approval.
     *
     * Requirements:
     * - `tokenId` was minted (ERC721NonexistentToken) and claimed (TicketRegistryTicketInCustody);
     * - the caller owns `tokenId` or is an operator of its owner (ERC721InvalidApprover).
     *
     * Emits an {Approval} event.
     */
    function approve(address to, uint256 tokenId) public virtual {
        address owner = _requireClaimed(tokenId);
        address approver = _msgSender();
        if (approver != owner && !_operatorApprovals[owner][approver]) revert ERC721InvalidApprover(approver);
        _tokenApprovals[tokenId] = to;
        emit Approval(owner, to, tokenId);
    }

    /**
     * @inheritdoc IERC721
     * @dev Approves or removes `operator` as an operator for the caller's claimed tokens. An operator can
     * move no token in custody, since custodial addresses are nobody's callers.
     *
     * Requirements:
     * - `operator` is not the zero address (ERC721InvalidOperator).
     *
     * Emits an {ApprovalForAll} event.
     */
    function setApprovalForAll(address operator, bool approved) public virtual {
        if (operator == address(0)) revert ERC721InvalidOperator(operator);
        _operatorApprovals[_msgSender()][operator] = approved;
        emit ApprovalForAll(_msgSender(), operator, approved);
    }

    // ------------------------------------------------------------------------------------------
    // ERC-721 transfers
    // ------------------------------------------------------------------------------------------

    /**
     * @inheritdoc IERC721
     * @dev Moves the claimed token `tokenId` from the wallet `from` to the wallet `to`, and clears its approval.
     *
     * Requirements:
     * - `to` is a wallet: not zero, not this contract, not in the custodial address space, whether its event is
     *   registered yet or not (ERC721InvalidReceiver);
     * - `tokenId` was minted (ERC721NonexistentToken) and claimed (TicketRegistryTicketInCustody);
     * - `from` owns `tokenId` (ERC721IncorrectOwner);
     * - the caller is `from`, an operator of `from` or approved for `tokenId` (ERC721InsufficientApproval).
     *
     * Emits a {Transfer} event.
     */
    function transferFrom(address from, address to, uint256 tokenId) public virtual {
        if (!_isWallet(to)) revert ERC721InvalidReceiver(to);
        address owner = _requireClaimed(tokenId);
        if (owner != from) revert ERC721IncorrectOwner(from, tokenId, owner);
        address spender = _msgSender();
        if (spender != owner && !_operatorApprovals[owner][spender] && _tokenApprovals[tokenId] != spender) {
            revert ERC721InsufficientApproval(spender, tokenId);
        }
        _transferClaimed(from, to, tokenId);
    }

    /**
     * @inheritdoc IERC721
     * @dev {safeTransferFrom} with empty `data`.
     *
     * Requirements: as {transferFrom}, and a contract `to` accepts the token (ERC721InvalidReceiver).
     *
     * Emits a {Transfer} event.
     */
    function safeTransferFrom(address from, address to, uint256 tokenId) public virtual {
        safeTransferFrom(from, to, tokenId, "");
    }

    /**
     * @inheritdoc IERC721
     * @dev {transferFrom}, then {IERC721Receiver-onERC721Received} on a contract `to`, with `data`.
     *
     * Requirements: as {transferFrom}, and a contract `to` accepts the token (ERC721InvalidReceiver).
     *
     * Emits a {Transfer} event.
     */
    function safeTransferFrom(address from, address to, uint256 tokenId, bytes memory data) public virtual {
        transferFrom(from, to, tokenId);
        ERC721Utils.checkOnERC721Received(_msgSender(), from, to, tokenId, data);
    }

    // ------------------------------------------------------------------------------------------
    // Custody views
    // ------------------------------------------------------------------------------------------

    /// @inheritdoc ICustodialERC721
    function custodyAddress(uint64 eventIndex) public view virtual returns (address) {
        return _custodyAddress(eventIndex);
    }

    /// @inheritdoc ICustodialERC721
    function holderAddress(uint256 tokenId, uint32 resales) public view virtual returns (address) {
        return _holderAddress(tokenId, resales);
    }

    /// @inheritdoc ICustodialERC721
    function isCustodial(address account) public view virtual returns (bool) {
        return _isCustodial(account);
    }

    // ------------------------------------------------------------------------------------------
    // Hooks of the derived contract
    // ------------------------------------------------------------------------------------------

    /// @dev Whether event `eventIndex` exists; its custody and holder addresses are custodial only then.
    function _eventExists(uint64 eventIndex) internal view virtual returns (bool);

    /// @dev Where the custody counters of event `eventIndex` are stored; zero until its first mint.
    function _eventCustody(uint64 eventIndex) internal view virtual returns (EventCustody storage);

    /// @dev The prefix of every tokenURI; empty for no token URIs.
    function _baseURI() internal view virtual returns (string memory);

    /// @dev Tokens `fromTokenId` to `toTokenId` (of one event) changed flags or owner in the running batch.
    function _tokensChanged(uint256 fromTokenId, uint256 toTokenId) internal virtual;

    // ------------------------------------------------------------------------------------------
    // Ownership changes: minting, resales and claims (the derived contract's), wallet transfers
    // ------------------------------------------------------------------------------------------

    /**
     * @dev Mints `tokenId` to `custody`, its event's custody address, setting its minted flag in `flags`;
     * returns false, changing nothing, if `tokenId` was minted before. The caller counts the tokens it mints
     * into the event's custody with {_countMinted}; the batch stores `flags` with {_closeFlagWord} before it ends.
     *
     * Requirements (the caller's): the event of `tokenId` exists, `custody` is its custody address, and the
     * serial of `tokenId` is not zero.
     *
     * Emits a {Transfer} event from the zero address.
     */
    function _mintToCustody(uint256 tokenId, address custody, FlagWord memory flags) internal returns (bool) {
        if (_flagsAt(flags, tokenId) & TicketFlags.BITMASK_MINTED != 0) return false;
        _addFlagsAt(flags, tokenId, TicketFlags.BITMASK_MINTED);
        emit Transfer(address(0), custody, tokenId);
        return true;
    }

    /// @dev Counts `count` tokens minted by {_mintToCustody} into event `eventIndex`'s custody.
    function _countMinted(uint64 eventIndex, uint64 count) internal {
        unchecked {
            _eventCustody(eventIndex).minted += count;
        }
    }

    /**
     * @dev A resale: moves `tokenId` from its current custodial address to the fresh holder address of its
     * next resale count, and counts it out of its event's custody on its first resale.
     *
     * Requirements (the caller's): `tokenId` is in custody (minted, not claimed) and `resales` is its resale
     * count, less than TicketFlags.BITMASK_RESALES.
     *
     * Emits a {Transfer} event.
     */
    function _moveToNextHolder(uint256 tokenId, uint256 resales, FlagWord memory flags) internal {
        address from = _leaveCustody(tokenId, resales);
        uint256 bucket = TicketFlags.resaleBucketOf(tokenId);
        _resaleCounters[bucket] = TicketFlags.withResales(_resaleCounters[bucket], tokenId, resales + 1);
        _flagsAt(flags, tokenId);
        flags.touched |= TicketFlags.BITMASK_MINTED << TicketFlags.flagShiftOf(tokenId);
        emit Transfer(from, _holderAddress(tokenId, resales + 1), tokenId);
    }

    /**
     * @dev A claim: hands `tokenId` from its custodial address to the wallet `to`, which owns it from then on.
     *
     * Requirements (the caller's): `tokenId` is in custody (minted, not claimed), {_flagsAt} last read it
     * through `flags`, and `to` is a wallet (see {_isWallet}).
     *
     * Emits a {Transfer} event.
     */
    function _releaseToWallet(uint256 tokenId, address to, FlagWord memory flags) internal {
        address from = _leaveCustody(tokenId, _resalesOf(tokenId));
        flags.word = TicketFlags.withFlags(flags.word, tokenId, TicketFlags.BITMASK_CLAIMED);
        _owners[tokenId] = to;
        unchecked {
            ++_balances[to];
        }
        emit Transfer(from, to, tokenId);
    }

    /**
     * @dev A wallet transfer: moves the claimed `tokenId` from the wallet `from` to the wallet `to` and clears
     * its approval. Only the ERC-721 transfer functions call it, after checking their requirements.
     *
     * Emits a {Transfer} event.
     */
    function _transferClaimed(address from, address to, uint256 tokenId) private {
        delete _tokenApprovals[tokenId];
        unchecked {
            --_balances[from];
            ++_balances[to];
        }
        _owners[tokenId] = to;
        emit Transfer(from, to, tokenId);
    }

    // ------------------------------------------------------------------------------------------
    // Ticket flags of the derived contract
    // ------------------------------------------------------------------------------------------

    /// @dev A FlagWord holding no word and no change yet, for a batch to read its tickets' flags through.
    function _openFlagWord() internal pure returns (FlagWord memory flags) {
        flags.bucket = _NO_BUCKET;
        flags.lowBucket = _NO_BUCKET;
        flags.highBucket = _NO_BUCKET;
    }

    /**
     * @dev `tokenId`'s flags, read through `flags`: a word other than the one held is read after the held one is stored.
     * A cancelled event's tokens read as TicketFlags.CANCELLED_EVENT_FLAGS: whether the event is cancelled is read once
     * for each run of words of one event (a word never spans two events), and its words are never read nor written.
     * The rules test first that a ticket was sold, which these flags fail, so a cancelled event costs the common case
     * nothing per ticket.
     *
     * Requirements (the caller's): `tokenId` has at most 128 bits, as batch items' tokenIds do; no flag is added to a
     * cancelled event's token (the rules refuse them first).
     */
    function _flagsAt(FlagWord memory flags, uint256 tokenId) internal returns (uint256) {
        uint256 bucket = TicketFlags.flagBucketOf(tokenId);
        if (bucket != flags.bucket) {
            _storeFlagWord(flags);
            uint256 eventIndex = TicketFlags.eventIndexOfBucket(bucket);
            // _NO_BUCKET's event index exceeds 64 bits: the batch's first word always reads its event.
            if (eventIndex != TicketFlags.eventIndexOfBucket(flags.bucket)) {
                flags.eventCancelled = _eventCustody(uint64(eventIndex)).cancelled;
            }
            // The same in storage and in memory: _storeFlagWord finds nothing to write.
            uint256 word = flags.eventCancelled ? TicketFlags.CANCELLED_EVENT_WORD : _ticketFlags[bucket];
            flags.bucket = bucket;
            flags.word = word;
            flags.stored = word;
        }
        return TicketFlags.flagsIn(flags.word, tokenId);
    }

    /**
     * @dev Cancels event `eventIndex`: from now on every one of its tokens reads as TicketFlags.CANCELLED_EVENT_FLAGS in
     * batches, this one included (the held word's changes before the cancellation are stored first). One write,
     * whatever the number of its tokens; their stored flags, ownership and wallet transfers of claimed tokens stay.
     *
     * Requirements (the caller's): the event exists and is not cancelled.
     */
    function _cancelEventTokens(uint64 eventIndex, FlagWord memory flags) internal {
        _eventCustody(eventIndex).cancelled = true;
        if (TicketFlags.eventIndexOfBucket(flags.bucket) != eventIndex) return;
        _storeFlagWord(flags);
        flags.eventCancelled = true;
        flags.word = TicketFlags.CANCELLED_EVENT_WORD;
        flags.stored = TicketFlags.CANCELLED_EVENT_WORD;
    }

    /// @dev Whether event `eventIndex` is cancelled (see {_cancelEventTokens}).
    function _eventCancelled(uint64 eventIndex) internal view returns (bool) {
        return _eventCustody(eventIndex).cancelled;
    }

    /**
     * @dev Adds `added` to `tokenId`'s flags in `flags`, which {_flagsAt} last read for `tokenId`.
     *
     * Requirements (the caller's): `added` holds no TicketFlags.BITMASK_CLAIMED, which only {_releaseToWallet}
     * sets, and BITMASK_MINTED only when {_mintToCustody} adds it.
     */
    function _addFlagsAt(FlagWord memory flags, uint256 tokenId, uint256 added) internal pure {
        flags.word = TicketFlags.withFlags(flags.word, tokenId, added);
    }

    /// @dev Stores the held word and signals every event's pending changes: the end of a batch.
    function _closeFlagWord(FlagWord memory flags) internal {
        _storeFlagWord(flags);
        if (flags.lowBucket != _NO_BUCKET) {
            _signalChanges(flags.lowBucket, flags.lowChanges, flags.highBucket, flags.highChanges);
        }
        uint256[] memory parked = flags.parked;
        uint256 events = flags.parkedEvents;
        for (uint256 base; base < events * _PENDING_FIELDS; base += _PENDING_FIELDS) {
            _signalChanges(parked[base], parked[base + 1], parked[base + 2], parked[base + 3]);
        }
    }

    /// @dev Stores the held word if the batch changed it, and notes which of its tokens changed (flags or owner).
    function _storeFlagWord(FlagWord memory flags) private {
        uint256 word = flags.word;
        uint256 changes = (word ^ flags.stored) | flags.touched;
        if (changes == 0) return;
        if (word != flags.stored) {
            _ticketFlags[flags.bucket] = word;
            flags.stored = word;
        }
        flags.touched = 0;
        _noteChanges(flags, flags.bucket, changes);
    }

    /// @dev Notes that the tokens of flag word `bucket` whose flag bits are set in `changes` changed.
    function _noteChanges(FlagWord memory flags, uint256 bucket, uint256 changes) private {
        uint256 high = flags.highBucket;
        // The common case first: consecutive tokens share the highest word noted so far.
        if (bucket == high) {
            flags.highChanges |= changes;
            if (bucket == flags.lowBucket) flags.lowChanges |= changes;
            return;
        }
        uint256 low = flags.lowBucket;
        if (low == _NO_BUCKET || TicketFlags.eventIndexOfBucket(bucket) != TicketFlags.eventIndexOfBucket(low)) {
            _switchPendingEvent(flags, TicketFlags.eventIndexOfBucket(bucket));
            low = flags.lowBucket;
            high = flags.highBucket;
        }
        if (low == _NO_BUCKET) {
            (flags.lowBucket, flags.lowChanges, flags.highBucket, flags.highChanges) = (bucket, changes, bucket, changes);
        } else if (bucket > high) {
            (flags.highBucket, flags.highChanges) = (bucket, changes);
        } else if (bucket == high) {
            flags.highChanges |= changes;
            if (bucket == low) flags.lowChanges |= changes;
        } else if (bucket < low) {
            (flags.lowBucket, flags.lowChanges) = (bucket, changes);
        } else if (bucket == low) {
            flags.lowChanges |= changes;
        }
    }

    /**
     * @dev Makes event `eventIndex` the current one of `flags`' pending changes: the current event's changes are
     * parked (the oldest parked event is signalled when there is no room; the parked entries are allocated at the
     * first switch, so that a batch of one event never pays for them), and the new event's parked changes, if any,
     * become the current ones; otherwise the current changes are empty.
     */
    function _switchPendingEvent(FlagWord memory flags, uint256 eventIndex) private {
        // Nothing is pending before the batch's first change, and nothing is parked then either.
        if (flags.lowBucket == _NO_BUCKET) return;
        if (flags.parked.length == 0) flags.parked = new uint256[](_PARKED_EVENTS * _PENDING_FIELDS);
        uint256[] memory parked = flags.parked;
        uint256 events = flags.parkedEvents;
        uint256 base;
        for (; base < events * _PENDING_FIELDS; base += _PENDING_FIELDS) {
            if (TicketFlags.eventIndexOfBucket(parked[base]) == eventIndex) break;
        }
        bool found = base < events * _PENDING_FIELDS;
        if (!found && events < _PARKED_EVENTS) {
            flags.parkedEvents = events + 1;
        } else if (!found) {
            base = flags.oldestParked * _PENDING_FIELDS;
            _signalChanges(parked[base], parked[base + 1], parked[base + 2], parked[base + 3]);
            flags.oldestParked = (flags.oldestParked + 1) % _PARKED_EVENTS;
        }
        (uint256 low, uint256 lowChanges, uint256 high, uint256 highChanges) =
            found ? (parked[base], parked[base + 1], parked[base + 2], parked[base + 3]) : (_NO_BUCKET, 0, _NO_BUCKET, 0);
        (parked[base], parked[base + 1], parked[base + 2], parked[base + 3]) =
            (flags.lowBucket, flags.lowChanges, flags.highBucket, flags.highChanges);
        (flags.lowBucket, flags.lowChanges, flags.highBucket, flags.highChanges) = (low, lowChanges, high, highChanges);
    }

    /// @dev Tells {_tokensChanged} the lowest token changed in word `low` and the highest in word `high` (one event's).
    function _signalChanges(uint256 low, uint256 lowChanges, uint256 high, uint256 highChanges) private {
        uint256 lowestBit;
        unchecked {
            lowestBit = Math.log2(lowChanges & (0 - lowChanges));
        }
        _tokensChanged(TicketFlags.tokenIdAt(low, lowestBit), TicketFlags.tokenIdAt(high, Math.log2(highChanges)));
    }

    // ------------------------------------------------------------------------------------------
    // Helpers
    // ------------------------------------------------------------------------------------------

    /// @dev The owner of `tokenId`, or zero if it was never minted.
    function _ownerOf(uint256 tokenId) internal view returns (address) {
        if (tokenId >> 128 != 0) return address(0);
        uint256 flags = _flagsOf(tokenId);
        if (flags & TicketFlags.BITMASK_MINTED == 0) return address(0);
        if (flags & TicketFlags.BITMASK_CLAIMED != 0) return _owners[tokenId];
        return _holderAddress(tokenId, _resalesOf(tokenId));
    }

    /// @dev The owner of `tokenId`; reverts with ERC721NonexistentToken if it was never minted.
    function _requireOwned(uint256 tokenId) internal view returns (address owner) {
        owner = _ownerOf(tokenId);
        if (owner == address(0)) revert ERC721NonexistentToken(tokenId);
    }

    /// @dev The wallet owning `tokenId`; reverts with TicketRegistryTicketInCustody while it is in custody.
    function _requireClaimed(uint256 tokenId) private view returns (address owner) {
        owner = _requireOwned(tokenId);
        if (_flagsOf(tokenId) & TicketFlags.BITMASK_CLAIMED == 0) revert TicketRegistryTicketInCustody(tokenId);
    }

    /// @dev `tokenId`'s flags: a combination of the TicketFlags.BITMASK_ flags.
    function _flagsOf(uint256 tokenId) internal view returns (uint256) {
        return TicketFlags.flagsIn(_ticketFlags[TicketFlags.flagBucketOf(tokenId)], tokenId);
    }

    /// @dev How often `tokenId` was resold; the number of its current holder address.
    function _resalesOf(uint256 tokenId) internal view returns (uint256) {
        return TicketFlags.resalesIn(_resaleCounters[TicketFlags.resaleBucketOf(tokenId)], tokenId);
    }

    /// @dev Moves `tokenId` out of its custodial address, given its resale count; returns that address.
    /// The first move out of the custody address counts the token out of its event's custody.
    function _leaveCustody(uint256 tokenId, uint256 resales) private returns (address from) {
        if (resales != 0) return _holderAddress(tokenId, resales);
        uint64 eventIndex = TicketIds.eventIndexOf(tokenId);
        unchecked {
            ++_eventCustody(eventIndex).released;
        }
        return _custodyAddress(eventIndex);
    }

    /// @dev Tokens held by a custodial address: the event's tokens not yet released, or the one it holds after a resale.
    function _custodialBalance(address account) private view returns (uint256) {
        (uint64 eventIndex, uint64 serial, uint32 resales) = TicketIds.decode(_CUSTODY_MASK, account);
        if (eventIndex > TicketIds.MAX_EVENT_INDEX || !_eventExists(eventIndex)) return 0;
        if (serial == 0) {
            if (resales != 0) return 0;
            EventCustody storage custody = _eventCustody(eventIndex);
            return custody.minted - custody.released;
        }
        uint256 tokenId = TicketIds.tokenId(eventIndex, serial);
        uint256 flags = _flagsOf(tokenId);
        if (flags & TicketFlags.BITMASK_MINTED == 0 || flags & TicketFlags.BITMASK_CLAIMED != 0) return 0;
        return resales != 0 && _resalesOf(tokenId) == resales ? 1 : 0;
    }

    /// @dev Whether `account` is a custody or holder address of an existing event.
    function _isCustodial(address account) internal view returns (bool) {
        (uint64 eventIndex, uint64 serial, uint32 resales) = TicketIds.decode(_CUSTODY_MASK, account);
        // Most addresses decode to an index no event can have: told apart without reading storage.
        if (eventIndex > TicketIds.MAX_EVENT_INDEX || !_eventExists(eventIndex)) return false;
        return (serial == 0) == (resales == 0);
    }

    /**
     * @dev Whether `account` is in the custodial address space: the custody address of any event index this
     * contract can register (0 to TicketIds.MAX_EVENT_INDEX), or the holder address of any ticket of such an
     * event after any number of resales, registered or not. Custody and holder addresses of events to come are
     * public (custodyAddress, holderAddress), so a token sent to one would later sit among custodial tokens.
     * A wallet falls in this space only if its top 24 bits equal the mask's: 1 in 2^24 (about 6e-8) of addresses.
     */
    function _inCustodialSpace(address account) internal view returns (bool) {
        (uint64 eventIndex, uint64 serial, uint32 resales) = TicketIds.decode(_CUSTODY_MASK, account);
        return eventIndex <= TicketIds.MAX_EVENT_INDEX && (serial == 0) == (resales == 0);
    }

    /// @dev A wallet can receive tokens: not zero, not this contract, not in its custodial address space.
    function _isWallet(address account) internal view returns (bool) {
        return account != address(0) && account != address(this) && !_inCustodialSpace(account);
    }

    /// @dev The keyless custody address of event `eventIndex`.
    function _custodyAddress(uint64 eventIndex) internal view returns (address) {
        return TicketIds.custodial(_CUSTODY_MASK, eventIndex, 0, 0);
    }

    /// @dev The keyless address holding `tokenId` after `resales` resales; the custody address for none.
    function _holderAddress(uint256 tokenId, uint256 resales) internal view returns (address) {
        if (resales == 0) return _custodyAddress(TicketIds.eventIndexOf(tokenId));
        return TicketIds.custodial(_CUSTODY_MASK, TicketIds.eventIndexOf(tokenId), TicketIds.serialOf(tokenId), resales);
    }
}
