// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

// A test double, never deployed by the service: documented by its one line below.
// solhint-disable use-natspec

import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @dev Test double of a contract wallet: a signature is valid when its owner EOA signed the hash; it holds and moves ERC-721 tokens.
contract ERC1271WalletMock is IERC1271 {
    address private immutable _OWNER;

    error NotTheOwner(address caller);

    constructor(address owner) {
        _OWNER = owner;
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        (address signer, ECDSA.RecoverError failure,) = ECDSA.tryRecoverCalldata(hash, signature);
        if (failure == ECDSA.RecoverError.NoError && signer == _OWNER) return IERC1271.isValidSignature.selector;
        return bytes4(0xffffffff);
    }

    function transferToken(IERC721 token, address to, uint256 tokenId) external {
        if (msg.sender != _OWNER) revert NotTheOwner(msg.sender);
        token.transferFrom(address(this), to, tokenId);
    }
}
