// Package hashtab is the open-addressing hash table that the per-process
// structures asked on every write keep their entries in: the repository's
// presence cache and read hints (repo), the partition sketch of package
// metrics, and admission's per-partition counts (admission).
//
// Its keys are 64-bit hashes the caller has already computed (never 0,
// which marks an empty slot), and its values sit in the slots beside them,
// so a lookup reads a slot or a few adjacent ones: usually one cache line. A Go map's lookup
// reads its group's control word and then its slot, and on a machine whose
// caches the database shares, each is a miss (issue 26). Probing is
// linear; the table doubles past three quarters full (a lookup then
// reads 2.5 slots on average, 8.5 for a key it does not hold, at worst;
// at most 2.7 slots an entry); a deletion moves back the
// entries after the freed slot that may take it, so there are no
// tombstones and a table that saw millions of keys is as large as its peak
// in use.
//
// A Table is not safe for concurrent use: its owner's lock guards it.
package hashtab
