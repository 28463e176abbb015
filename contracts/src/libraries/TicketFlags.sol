// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/**
 * @title TicketFlags
 * @notice Bit layout of the per-ticket state that TicketRegistry packs into shared storage words, so
 * that a batch of consecutive serials writes a few words rather than a slot per ticket.
 *
 * Flags: four bits per ticket, 64 tickets per word. Ticket `tokenId` lives in the word keyed
 * `flagBucketOf(tokenId)` (`tokenId >> 6`), at bits `flagShiftOf(tokenId)` (`4 * (tokenId & 63)`) and up:
 *
 * - [0] `MINTED`: the ticket was sold; its token exists.
 * - [1] `CHECKED_IN`: the ticket was scanned at the event.
 * - [2] `INVALIDATED`: the ticket was invalidated.
 * - [3] `CLAIMED`: the token left custody for a wallet; from then on its owner is stored explicitly.
 *
 * A cancelled event's tickets keep their stored flags; inside a batch they read as `CANCELLED_EVENT_FLAGS`
 * (CHECKED_IN without MINTED, which no ticket's stored flags can be): the event's cancellation is one write
 * (see CustodialERC721.EventCustody), and every rule refuses them at the test it makes first, that the ticket was sold.
 *
 * Resale counters: 32 bits per ticket, 8 tickets per word. Ticket `tokenId` lives in the word keyed
 * `resaleBucketOf(tokenId)` (`tokenId >> 3`), at bits `resaleShiftOf(tokenId)` (`32 * (tokenId & 7)`) and up.
 * A counter is the number of resales, which names the keyless address holding the token (see TicketIds).
 *
 * The helpers read and write words the caller loads and stores; they never touch storage themselves.
 */
library TicketFlags {
    // ------------------------------------------------------------------------------------------
    // Flags
    // ------------------------------------------------------------------------------------------

    /// @dev Bit position of the flag set when the ticket is sold: the token exists.
    uint256 internal constant BITPOS_MINTED = 0;

    /// @dev Bit position of the flag set at the ticket's first check-in.
    uint256 internal constant BITPOS_CHECKED_IN = 1;

    /// @dev Bit position of the flag set when the ticket is invalidated.
    uint256 internal constant BITPOS_INVALIDATED = 2;

    /// @dev Bit position of the flag set when the token is claimed into a wallet.
    uint256 internal constant BITPOS_CLAIMED = 3;

    /// @dev Mask of the MINTED flag within a ticket's flags.
    uint256 internal constant BITMASK_MINTED = 1 << BITPOS_MINTED;

    /// @dev Mask of the CHECKED_IN flag within a ticket's flags.
    uint256 internal constant BITMASK_CHECKED_IN = 1 << BITPOS_CHECKED_IN;

    /// @dev Mask of the INVALIDATED flag within a ticket's flags.
    uint256 internal constant BITMASK_INVALIDATED = 1 << BITPOS_INVALIDATED;

    /// @dev Mask of the CLAIMED flag within a ticket's flags.
    uint256 internal constant BITMASK_CLAIMED = 1 << BITPOS_CLAIMED;

    /// @dev Width of one ticket's flags.
    uint256 internal constant FLAGS_BITS = 4;

    /// @dev Mask of all of one ticket's flags.
    uint256 internal constant BITMASK_FLAGS = (1 << FLAGS_BITS) - 1;

    /// @dev The flags a batch reads for every ticket of a cancelled event: checked in, never sold. Never stored.
    uint256 internal constant CANCELLED_EVENT_FLAGS = BITMASK_CHECKED_IN;

    /// @dev A flag word of a cancelled event as a batch holds it: CANCELLED_EVENT_FLAGS for each of its 64 tickets.
    uint256 internal constant CANCELLED_EVENT_WORD = (type(uint256).max / BITMASK_FLAGS) * CANCELLED_EVENT_FLAGS;

    /// @dev log2 of the tickets per flag word: 64 tickets of FLAGS_BITS fill 256 bits.
    uint256 private constant _FLAG_TICKETS_PER_WORD_LOG2 = 6;

    /// @dev Mask of a ticket's place among the 64 of its flag word.
    uint256 private constant _BITMASK_FLAG_PLACE = (1 << _FLAG_TICKETS_PER_WORD_LOG2) - 1;

    /// @dev log2 of FLAGS_BITS: a ticket's place times FLAGS_BITS is its bit position.
    uint256 private constant _FLAGS_BITS_LOG2 = 2;

    // ------------------------------------------------------------------------------------------
    // Resale counters
    // ------------------------------------------------------------------------------------------

    /// @dev Width of one ticket's resale counter.
    uint256 internal constant RESALES_BITS = 32;

    /// @dev Mask of one ticket's resale counter, which is also the most resales a ticket can have.
    uint256 internal constant BITMASK_RESALES = (1 << RESALES_BITS) - 1;

    /// @dev log2 of the tickets per resale word: 8 counters of RESALES_BITS fill 256 bits.
    uint256 private constant _RESALE_TICKETS_PER_WORD_LOG2 = 3;

    /// @dev Mask of a ticket's place among the 8 of its resale word.
    uint256 private constant _BITMASK_RESALE_PLACE = (1 << _RESALE_TICKETS_PER_WORD_LOG2) - 1;

    /// @dev log2 of RESALES_BITS: a ticket's place times RESALES_BITS is its bit position.
    uint256 private constant _RESALES_BITS_LOG2 = 5;

    // ------------------------------------------------------------------------------------------
    // Flag helpers
    // ------------------------------------------------------------------------------------------

    /// @dev Key of the word holding `tokenId`'s flags.
    function flagBucketOf(uint256 tokenId) internal pure returns (uint256) {
        return tokenId >> _FLAG_TICKETS_PER_WORD_LOG2;
    }

    /// @dev Position of `tokenId`'s lowest flag bit in its word.
    function flagShiftOf(uint256 tokenId) internal pure returns (uint256) {
        return (tokenId & _BITMASK_FLAG_PLACE) << _FLAGS_BITS_LOG2;
    }

    /// @dev `tokenId`'s flags in `word`, the word keyed flagBucketOf(tokenId).
    function flagsIn(uint256 word, uint256 tokenId) internal pure returns (uint256) {
        return (word >> flagShiftOf(tokenId)) & BITMASK_FLAGS;
    }

    /// @dev `word` with `flags` (a combination of the BITMASK_ flags) added to `tokenId`'s.
    function withFlags(uint256 word, uint256 tokenId, uint256 flags) internal pure returns (uint256) {
        return word | (flags << flagShiftOf(tokenId));
    }

    /// @dev The token whose flags hold bit `bit` (0 to 255) of the word keyed `bucket`.
    function tokenIdAt(uint256 bucket, uint256 bit) internal pure returns (uint256) {
        return (bucket << _FLAG_TICKETS_PER_WORD_LOG2) | (bit >> _FLAGS_BITS_LOG2);
    }

    /// @dev The event index of every token whose flags the word keyed `bucket` holds: a word never spans two events.
    function eventIndexOfBucket(uint256 bucket) internal pure returns (uint256) {
        return bucket >> (64 - _FLAG_TICKETS_PER_WORD_LOG2);
    }

    // ------------------------------------------------------------------------------------------
    // Resale counter helpers
    // ------------------------------------------------------------------------------------------

    /// @dev Key of the word holding `tokenId`'s resale counter.
    function resaleBucketOf(uint256 tokenId) internal pure returns (uint256) {
        return tokenId >> _RESALE_TICKETS_PER_WORD_LOG2;
    }

    /// @dev Position of `tokenId`'s resale counter in its word.
    function resaleShiftOf(uint256 tokenId) internal pure returns (uint256) {
        return (tokenId & _BITMASK_RESALE_PLACE) << _RESALES_BITS_LOG2;
    }

    /// @dev `tokenId`'s resale counter in `word`, the word keyed resaleBucketOf(tokenId).
    function resalesIn(uint256 word, uint256 tokenId) internal pure returns (uint256) {
        return (word >> resaleShiftOf(tokenId)) & BITMASK_RESALES;
    }

    /// @dev `word` with `tokenId`'s resale counter replaced by `resales`, which must not exceed BITMASK_RESALES.
    function withResales(uint256 word, uint256 tokenId, uint256 resales) internal pure returns (uint256) {
        uint256 shift = resaleShiftOf(tokenId);
        return (word & ~(BITMASK_RESALES << shift)) | (resales << shift);
    }
}
