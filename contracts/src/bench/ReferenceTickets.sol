// SPDX-License-Identifier: MIT
// Benchmark references, never deployed by the service: the two contracts are compared side by side
// (bench/gas-figures.ts), so they share one file and the natspec of the file's header.
// solhint-disable use-natspec, one-contract-per-file
pragma solidity 0.8.37;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {BitMaps} from "@openzeppelin/contracts/utils/structs/BitMaps.sol";
import {ERC721A} from "erc721a/contracts/ERC721A.sol";

/**
 * @title Reference ticket contracts (benchmark only; never deployed by the service)
 * @notice What selling, scanning, invalidating and claiming a ticket costs with the usual building
 * blocks, beside TicketRegistry (bench/gas-figures.ts measures both in the same Hardhat run).
 *
 * The sale record is the one TicketRegistry keeps: nothing stored per sale beyond the token itself,
 * and the same `TicketSold(tokenId indexed, ticketHash indexed, price, orderTime)` log. Each token's
 * ownership is stored the library's way (OpenZeppelin: an owner slot and the holder's balance slot;
 * ERC721A: a packed ownership slot, written once per batch minted to one holder, and the holder's
 * packed address data). Batches come as ABI-encoded arrays (TicketRegistry packs its items).
 * Scans and invalidations: one bit per ticket in an OpenZeppelin BitMap (256 tickets per slot) and
 * one log per ticket. Claims move a token from custody (the contract itself) to a new wallet with
 * the library's own `transferFrom`, the caller (the deployer, as TicketRegistry's operator) approved
 * for custody's tokens.
 */
struct ReferenceSale {
    address to;
    uint256 tokenId;
    bytes32 ticketHash;
    uint96 price;
    uint64 orderTime;
}

/// @dev A sale to custody: the holder is the contract itself, as TicketRegistry's custody address.
struct ReferenceCustodySale {
    bytes32 ticketHash;
    uint96 price;
    uint64 orderTime;
}

interface IReferenceTicketLogs {
    event TicketSold(uint256 indexed tokenId, bytes32 indexed ticketHash, uint96 price, uint64 orderTime);
    event TicketCheckedIn(uint256 indexed tokenId, uint64 time);
    event TicketInvalidated(uint256 indexed tokenId, uint64 time);
}

/// @notice OpenZeppelin's ERC721 (5.x) with the sale record above.
contract ReferenceOZTickets is ERC721, IReferenceTicketLogs {
    using BitMaps for BitMaps.BitMap;

    address private immutable _OPERATOR;
    BitMaps.BitMap private _checkedIn;
    BitMaps.BitMap private _invalidated;

    constructor() ERC721("Reference OZ", "ROZ") {
        _OPERATOR = msg.sender;
    }

    /// @notice Mints each sale's token to its own holder.
    function sell(ReferenceSale[] calldata sales) external {
        for (uint256 i = 0; i < sales.length; ++i) {
            ReferenceSale calldata sale = sales[i];
            _mint(sale.to, sale.tokenId);
            emit TicketSold(sale.tokenId, sale.ticketHash, sale.price, sale.orderTime);
        }
    }

    /// @notice Mints tokens `firstTokenId`, … to custody (the contract itself), as TicketRegistry sells.
    function sellToCustody(uint256 firstTokenId, ReferenceCustodySale[] calldata sales) external {
        for (uint256 i = 0; i < sales.length; ++i) {
            _mint(address(this), firstTokenId + i);
            emit TicketSold(firstTokenId + i, sales[i].ticketHash, sales[i].price, sales[i].orderTime);
        }
    }

    function checkIn(uint256[] calldata tokenIds, uint64 time) external {
        for (uint256 i = 0; i < tokenIds.length; ++i) {
            _checkedIn.set(tokenIds[i]);
            emit TicketCheckedIn(tokenIds[i], time);
        }
    }

    function invalidate(uint256[] calldata tokenIds, uint64 time) external {
        for (uint256 i = 0; i < tokenIds.length; ++i) {
            _invalidated.set(tokenIds[i]);
            emit TicketInvalidated(tokenIds[i], time);
        }
    }

    /// @notice Moves each token from custody to its wallet.
    function claim(uint256[] calldata tokenIds, address[] calldata to) external {
        for (uint256 i = 0; i < tokenIds.length; ++i) {
            transferFrom(address(this), to[i], tokenIds[i]);
        }
    }

    function isApprovedForAll(address owner, address operator) public view override returns (bool) {
        return (owner == address(this) && operator == _OPERATOR) || super.isApprovedForAll(owner, operator);
    }
}

/// @notice Chiru Labs' ERC721A (4.x) with the sale record above; token ids are its own sequence from 1.
contract ReferenceERC721ATickets is ERC721A, IReferenceTicketLogs {
    address private immutable _OPERATOR;

    constructor() ERC721A("Reference ERC721A", "RA") {
        _OPERATOR = msg.sender;
    }

    /// @notice Mints one token to each sale's holder (`tokenId` is ignored: ERC721A numbers its tokens).
    function sell(ReferenceSale[] calldata sales) external {
        for (uint256 i = 0; i < sales.length; ++i) {
            ReferenceSale calldata sale = sales[i];
            uint256 tokenId = _nextTokenId();
            _mint(sale.to, 1);
            emit TicketSold(tokenId, sale.ticketHash, sale.price, sale.orderTime);
        }
    }

    /// @notice Mints the whole batch to custody (the contract itself) at once: ERC721A's best case.
    function sellToCustody(ReferenceCustodySale[] calldata sales) external {
        uint256 first = _nextTokenId();
        _mint(address(this), sales.length);
        for (uint256 i = 0; i < sales.length; ++i) {
            emit TicketSold(first + i, sales[i].ticketHash, sales[i].price, sales[i].orderTime);
        }
    }

    /// @notice Moves each token from custody to its wallet.
    function claim(uint256[] calldata tokenIds, address[] calldata to) external {
        for (uint256 i = 0; i < tokenIds.length; ++i) {
            transferFrom(address(this), to[i], tokenIds[i]);
        }
    }

    function isApprovedForAll(address owner, address operator) public view override returns (bool) {
        return (owner == address(this) && operator == _OPERATOR) || super.isApprovedForAll(owner, operator);
    }

    function _startTokenId() internal pure override returns (uint256) {
        return 1;
    }
}
