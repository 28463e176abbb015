// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/**
 * @title TicketIds
 * @notice Token ids and keyless holder addresses.
 *
 * tokenId = eventIndex << 64 | serial, both uint64, so a token names its event without storage.
 *
 * A custodial address packs (eventIndex u64, serial u64, resales u32) into 160 bits and XORs them
 * with a mask unique to the registry and chain. The event's custody address is (eventIndex, 0, 0);
 * the holder after a ticket's k-th resale is (eventIndex, serial, k). The mapping is reversible, so
 * balances of custodial addresses are computed rather than stored, and nobody holds their keys:
 * finding a private key for a chosen address is as hard as breaking the address scheme itself.
 *
 * Event indexes stay at or below MAX_EVENT_INDEX, so the top 24 bits of every custodial address are the
 * mask's: an address that decodes to a larger index is a wallet, known without reading storage (a claim
 * to a new wallet would otherwise pay a cold storage read to learn that no such event exists).
 */
library TicketIds {
    /// @notice The largest event index a registry accepts: 2^40 - 1.
    uint64 internal constant MAX_EVENT_INDEX = (1 << 40) - 1;

    uint256 private constant _U64 = type(uint64).max;
    uint256 private constant _U32 = type(uint32).max;

    function tokenId(uint64 eventIndex, uint64 serial) internal pure returns (uint256) {
        return (uint256(eventIndex) << 64) | serial;
    }

    function eventIndexOf(uint256 id) internal pure returns (uint64) {
        return uint64(id >> 64);
    }

    function serialOf(uint256 id) internal pure returns (uint64) {
        return uint64(id);
    }

    function custodial(uint160 mask, uint256 eventIndex, uint256 serial, uint256 resales)
        internal
        pure
        returns (address)
    {
        return address(uint160((eventIndex << 96) | (serial << 32) | resales) ^ mask);
    }

    function decode(uint160 mask, address account)
        internal
        pure
        returns (uint64 eventIndex, uint64 serial, uint32 resales)
    {
        uint256 packed = uint160(account) ^ mask;
        eventIndex = uint64(packed >> 96);
        serial = uint64((packed >> 32) & _U64);
        resales = uint32(packed & _U32);
    }
}
