/** A transaction the writer signed, as the ledger keeps it: the raw bytes are what is ever sent. */
export interface SignedTransaction {
  id: string;
  signer: string;
  chainId: bigint;
  nonce: bigint;
  attempt: number;
  hash: string;
  raw: string;
  gasLimit: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  itemCount: number;
}

/** Fresh from the signer: the ledger gives it its id and attempt number when it commits it. */
export type NewlySignedTransaction = Omit<SignedTransaction, "id" | "attempt">;

/** An action a transaction carries, as log lines name it: its promise and the request that brought it. */
export interface CarriedAction {
  id: string;
  requestId: string | null;
}

export type TransactionStatus = "signed" | "broadcast" | "mined" | "confirmed" | "reverted" | "replaced";

/** The block a transaction was last seen mined in. */
export interface MinedBlock {
  blockNumber: number;
  blockHash: string;
}

export interface OpenTransaction extends SignedTransaction {
  status: TransactionStatus;
  broadcastAt: Date | null;
  createdAt: Date;
  /** Where the ledger last saw it mined (status `mined`); null before. */
  minedIn: MinedBlock | null;
}

/** A final attempt as the ledger keeps it: its bytes are gone (null) once RAW_TX_RETENTION_HOURS have passed. */
export type FinalAttempt = Omit<OpenTransaction, "raw"> & { raw: string | null };
