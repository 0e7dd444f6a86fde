// Package sign is the signature pass (Signatures, AuditSignatures): the
// document shards of each segment in, signed once (MinHash, SimHash, block
// keys) by a pool of signers per worker (SharedSigners); out go the block
// entries, in rounds, and one info shard per segment in the work directory.
package sign
