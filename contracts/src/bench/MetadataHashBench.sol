// SPDX-License-Identifier: MIT
// Benchmark only, never deployed by the service.
// solhint-disable use-natspec
pragma solidity 0.8.37;

/**
 * @title What the hash of a ticket metadata update costs (benchmark only; never deployed by the service)
 * @notice TicketRegistry's run of updateTicket items, twice: `updateTickets` takes its items (tokenId u128,
 * metadataHash b32) and logs its 48-byte records; `touchTickets` takes the same items without the hash and logs
 * 16-byte records of the tokenId alone. Both read a ticket's minted flag from a word shared by 64 tickets, as the
 * registry does, and emit the same ERC-4906 signals. The difference between them per ticket is the hash's share:
 * its calldata, its log bytes, its memory and its write into the records buffer (scripts/gas/metadata-gas.ts).
 */
contract MetadataHashBench {
    // The logs of TicketRegistry (ERC-4906's two, and its records).
    event MetadataUpdate(uint256 tokenId);
    event BatchMetadataUpdate(uint256 fromTokenId, uint256 toTokenId);
    event TicketsMetadataUpdated(bytes records);

    mapping(uint256 bucket => uint256) private _minted;

    error NotMinted(uint256 tokenId);

    /// @dev Marks `tokenIds` sold: the state the measured updates read.
    function mint(uint256[] calldata tokenIds) external {
        for (uint256 i; i < tokenIds.length; ++i) {
            _minted[tokenIds[i] >> 6] |= 1 << (tokenIds[i] & 63);
        }
    }

    function updateTickets(bytes calldata batch) external {
        _run(batch, 1 + 16 + 32, 48);
    }

    function touchTickets(bytes calldata batch) external {
        _run(batch, 1 + 16, 16);
    }

    function _run(bytes calldata batch, uint256 itemSize, uint256 recordSize) private {
        bytes memory records = new bytes((batch.length / itemSize) * recordSize + 32);
        uint256 length;
        uint256 from;
        uint256 to;
        uint256 bucket = type(uint256).max;
        uint256 word;
        for (uint256 offset; offset + itemSize <= batch.length; offset += itemSize) {
            uint256 tokenId = _word(batch, offset + 1, 16);
            if (tokenId >> 6 != bucket) {
                bucket = tokenId >> 6;
                word = _minted[bucket];
            }
            if (word & (1 << (tokenId & 63)) == 0) revert NotMinted(tokenId);
            // Assembly: the record into the buffer, as TicketRegistry writes it.
            // solhint-disable-next-line no-inline-assembly
            assembly ("memory-safe") {
                let at := add(add(records, 0x20), length)
                mstore(at, shl(128, tokenId))
                if eq(recordSize, 48) { mstore(add(at, 16), calldataload(add(batch.offset, add(offset, 17)))) }
            }
            length += recordSize;
            if (to != 0 && tokenId == to + 1) {
                to = tokenId;
            } else {
                _signal(from, to);
                (from, to) = (tokenId, tokenId);
            }
        }
        // Assembly: the log's length set after the run, in place.
        // solhint-disable-next-line no-inline-assembly
        assembly ("memory-safe") {
            mstore(records, length)
        }
        emit TicketsMetadataUpdated(records);
        _signal(from, to);
    }

    function _signal(uint256 from, uint256 to) private {
        if (to == 0) return;
        if (from == to) emit MetadataUpdate(to);
        else emit BatchMetadataUpdate(from, to);
    }

    function _word(bytes calldata batch, uint256 offset, uint256 size) private pure returns (uint256 value) {
        // Assembly: one calldata load per field, as BatchReader reads them.
        // solhint-disable-next-line no-inline-assembly
        assembly ("memory-safe") {
            value := shr(sub(256, shl(3, size)), calldataload(add(batch.offset, offset)))
        }
    }
}
