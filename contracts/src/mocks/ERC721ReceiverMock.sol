// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

// A test double, never deployed by the service: documented by its one line below.
// solhint-disable use-natspec

import {IERC721Receiver} from "@openzeppelin/contracts/token/ERC721/IERC721Receiver.sol";

/// @dev Test double for safe transfers: accepts or rejects every token, as deployed.
contract ERC721ReceiverMock is IERC721Receiver {
    bool private immutable _ACCEPTS;

    event Received(address operator, address from, uint256 tokenId, bytes data);

    constructor(bool accepts) {
        _ACCEPTS = accepts;
    }

    function onERC721Received(address operator, address from, uint256 tokenId, bytes calldata data)
        external
        returns (bytes4)
    {
        if (!_ACCEPTS) return bytes4(0xdeadbeef);
        emit Received(operator, from, tokenId, data);
        return IERC721Receiver.onERC721Received.selector;
    }
}
