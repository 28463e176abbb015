// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ITicketRegistry} from "../ITicketRegistry.sol";

/**
 * @title BatchReader
 * @notice The wire format of `TicketRegistry.execute` and the helpers that read it.
 *
 * A batch is a concatenation of items. Each item starts with a one-byte action code followed by
 * fixed-width big-endian fields (strings are a uint16 byte length then UTF-8 bytes):
 *
 * | code | action         | fields after the code                                                   |
 * |------|----------------|-------------------------------------------------------------------------|
 * | 0x01 | register event | eventIndex u64, eventKey b32, ticketeer b32, details                    |
 * | 0x02 | update event   | eventIndex u64, details                                                 |
 * | 0x03 | sold           | tokenId u128, ticketHash b32, price u128, orderTime u64                 |
 * | 0x04 | resold         | tokenId u128, price u128, orderTime u64                                 |
 * | 0x05 | checked in     | tokenId u128, orderTime u64                                             |
 * | 0x06 | invalidated    | tokenId u128, orderTime u64                                             |
 * | 0x07 | claimed        | tokenId u128, to address                                                |
 * | 0x08 | cancel event   | eventIndex u64                                                          |
 * | 0x09 | update ticket  | tokenId u128, metadataHash b32                                          |
 * | 0x0A | sold, metadata | tokenId u128, ticketHash b32, price u128, orderTime u64, metadataHash b32 |
 *
 * details: latitude i32, longitude i32, startTime u64, endTime u64, currency, name, shopUrl, imageUrl, organizer,
 * metadataHash b32.
 *
 * A price is sent as the decimal string it came from: the top byte is the number of decimal places,
 * the low 120 bits the digits ("12.50" is 2 << 120 | 1250). The registry stores prices with
 * PRICE_DECIMALS decimals and reports a price it cannot represent exactly as an item failure.
 */
library BatchReader {
    uint8 internal constant REGISTER_EVENT = 0x01;
    uint8 internal constant UPDATE_EVENT = 0x02;
    uint8 internal constant SOLD = 0x03;
    uint8 internal constant RESOLD = 0x04;
    uint8 internal constant CHECKED_IN = 0x05;
    uint8 internal constant INVALIDATED = 0x06;
    uint8 internal constant CLAIMED = 0x07;
    uint8 internal constant CANCEL_EVENT = 0x08;
    uint8 internal constant UPDATE_TICKET = 0x09;
    uint8 internal constant SOLD_WITH_METADATA = 0x0A;

    uint256 internal constant SOLD_SIZE = 1 + 16 + 32 + 16 + 8;
    uint256 internal constant RESOLD_SIZE = 1 + 16 + 16 + 8;
    uint256 internal constant RECORD_ITEM_SIZE = 1 + 16 + 8;
    uint256 internal constant CLAIMED_SIZE = 1 + 16 + 20;
    uint256 internal constant CANCEL_EVENT_SIZE = 1 + 8;
    uint256 internal constant UPDATE_TICKET_SIZE = 1 + 16 + 32;
    /// @dev A sale's fields, at the same offsets as in SOLD, then its metadataHash.
    uint256 internal constant SOLD_WITH_METADATA_SIZE = SOLD_SIZE + 32;

    /// @dev Byte length of one packed (tokenId, orderTime) record in TicketsCheckedIn/TicketsInvalidated.
    uint256 internal constant RECORD_SIZE = 24;

    /// @dev Byte length of one packed (tokenId, metadataHash) record in TicketsMetadataUpdated.
    uint256 internal constant METADATA_RECORD_SIZE = 48;

    uint256 private constant _DETAILS_FIXED_SIZE = 4 + 4 + 8 + 8;

    /// @dev Reads `size` (1..32) bytes at `offset` as a big-endian unsigned integer; bounds are the caller's.
    function word(bytes calldata batch, uint256 offset, uint256 size) internal pure returns (uint256 value) {
        // Assembly: one calldata load per field, no slice copied to memory.
        // solhint-disable-next-line no-inline-assembly
        assembly ("memory-safe") {
            value := shr(sub(256, shl(3, size)), calldataload(add(batch.offset, offset)))
        }
    }

    /// @dev Reverts unless `size` bytes are available at `offset`.
    function ensure(bytes calldata batch, uint256 offset, uint256 size) internal pure {
        if (offset + size > batch.length) revert ITicketRegistry.TicketRegistryMalformedBatch(offset);
    }

    /// @dev Reads event details starting at `offset`; returns them and the offset after them.
    function details(bytes calldata batch, uint256 offset)
        internal
        pure
        returns (ITicketRegistry.EventDetails memory result, uint256 next)
    {
        ensure(batch, offset, _DETAILS_FIXED_SIZE);
        result.latitude = int32(uint32(word(batch, offset, 4)));
        result.longitude = int32(uint32(word(batch, offset + 4, 4)));
        result.startTime = uint64(word(batch, offset + 8, 8));
        result.endTime = uint64(word(batch, offset + 16, 8));
        next = offset + _DETAILS_FIXED_SIZE;
        (result.currency, next) = text(batch, next);
        (result.name, next) = text(batch, next);
        (result.shopUrl, next) = text(batch, next);
        (result.imageUrl, next) = text(batch, next);
        (result.organizer, next) = text(batch, next);
        ensure(batch, next, 32);
        result.metadataHash = bytes32(word(batch, next, 32));
        next += 32;
    }

    /// @dev Reads a uint16-length-prefixed string.
    function text(bytes calldata batch, uint256 offset) internal pure returns (string memory value, uint256 next) {
        ensure(batch, offset, 2);
        uint256 length = word(batch, offset, 2);
        next = offset + 2 + length;
        ensure(batch, offset + 2, length);
        value = string(batch[offset + 2:next]);
    }
}
