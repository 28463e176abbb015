// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";

/**
 * @title ICustodialERC721
 * @notice ERC-721 tokens that start out in custody. A token is minted to its event's keyless custody
 * address and moves between keyless holder addresses that the contract derives; only the contract,
 * on its operators' instructions, moves them. A claim hands the token to a wallet, after which it is an
 * ordinary ERC-721 token of that wallet.
 *
 * Nobody holds a key of a custodial address, so their tokens cannot be approved or transferred
 * through ERC-721, and no ERC-721 transfer can send a token back into custody.
 */
interface ICustodialERC721 is IERC721 {
    /// @dev `tokenId` is held in custody: only operator actions move it. (Named for TicketRegistry, whose
    /// ABI declared it first.)
    error TicketRegistryTicketInCustody(uint256 tokenId);

    /// @notice The keyless custody address of event `eventIndex`, where its tickets are minted.
    /// @param eventIndex the event's number in this registry
    /// @return the address
    function custodyAddress(uint64 eventIndex) external view returns (address);

    /// @notice The keyless address that holds `tokenId` after its `resales`-th resale; the custody address for 0.
    /// @param tokenId the ticket's token
    /// @param resales the number of the resale
    /// @return the address
    function holderAddress(uint256 tokenId, uint32 resales) external view returns (address);

    /// @notice Whether `account` is a custody or holder address of a registered event of this contract.
    /// @param account any address
    /// @return whether it is custodial
    function isCustodial(address account) external view returns (bool);
}
