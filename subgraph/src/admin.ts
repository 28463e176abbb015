import { BigInt, Bytes, ethereum } from "@graphprotocol/graph-ts";

import { ItemFailure, MetadataRefresh, RegistryChange } from "../generated/schema";
import {
  Approval,
  ApprovalForAll,
  BaseURIChanged,
  BatchMetadataUpdate,
  ContractURIUpdated,
  ItemFailed,
  MetadataUpdate,
  Paused,
  RoleAdminChanged,
  RoleGranted,
  RoleRevoked,
  Unpaused,
} from "../generated/TicketRegistry/TicketRegistry";
import { logId, registryOf } from "./entities";

export function handleItemFailed(log: ItemFailed): void {
  const failure = new ItemFailure(logId(log));
  failure.index = log.params.index;
  failure.subject = log.params.subject;
  failure.reason = log.params.reason;
  failure.timestamp = log.block.timestamp;
  failure.transactionHash = log.transaction.hash;
  failure.save();
}

export function handleMetadataUpdate(log: MetadataUpdate): void {
  refresh(log, log.params._tokenId, log.params._tokenId);
}

export function handleBatchMetadataUpdate(log: BatchMetadataUpdate): void {
  refresh(log, log.params._fromTokenId, log.params._toTokenId);
}

export function handleBaseURIChanged(log: BaseURIChanged): void {
  const registry = registryOf(log);
  registry.baseURI = log.params.baseURI;
  registry.save();
  change(log, "baseURIChanged", log.params.baseURI, null, null);
}

/** The log carries no value: the new URI is contractURI()'s, which indexers read again. */
export function handleContractURIUpdated(log: ContractURIUpdated): void {
  change(log, "contractURIUpdated", null, null, null);
}

export function handlePaused(log: Paused): void {
  setPaused(log, true, log.params.account);
}

export function handleUnpaused(log: Unpaused): void {
  setPaused(log, false, log.params.account);
}

export function handleRoleGranted(log: RoleGranted): void {
  change(log, "roleGranted", log.params.role.toHexString(), log.params.account, null);
}

export function handleRoleRevoked(log: RoleRevoked): void {
  change(log, "roleRevoked", log.params.role.toHexString(), log.params.account, null);
}

export function handleRoleAdminChanged(log: RoleAdminChanged): void {
  change(log, "roleAdminChanged", log.params.role.toHexString(), log.params.newAdminRole, null);
}

export function handleApproval(log: Approval): void {
  change(log, "approval", null, log.params.approved, log.params.tokenId);
}

export function handleApprovalForAll(log: ApprovalForAll): void {
  change(log, log.params.approved ? "approvalForAll" : "approvalForAllRevoked", null, log.params.operator, null);
}

function setPaused(log: ethereum.Event, paused: boolean, account: Bytes): void {
  const registry = registryOf(log);
  registry.paused = paused;
  registry.save();
  change(log, paused ? "paused" : "unpaused", null, account, null);
}

function refresh(log: ethereum.Event, from: BigInt, to: BigInt): void {
  const entry = new MetadataRefresh(logId(log));
  entry.fromTokenId = from;
  entry.toTokenId = to;
  entry.timestamp = log.block.timestamp;
  entry.transactionHash = log.transaction.hash;
  entry.save();
}

function change(log: ethereum.Event, kind: string, value: string | null, account: Bytes | null, tokenId: BigInt | null): void {
  const entry = new RegistryChange(logId(log));
  entry.kind = kind;
  entry.value = value;
  entry.account = account;
  entry.tokenId = tokenId;
  entry.timestamp = log.block.timestamp;
  entry.transactionHash = log.transaction.hash;
  entry.save();
}
