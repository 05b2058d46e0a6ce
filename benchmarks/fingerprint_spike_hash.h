/* CPython 3.11's hash of a tuple of integers, built as it is read: the one copy the native spike's two halves share.
 *
 * benchmarks/fingerprint_spike.c (a state's key as a token stream) and fingerprint_spike_read.c
 * (the replicas' key read from the compiled engine's objects) both hash what they read as Python
 * hashes hwlib's key, a nested tuple of integers. From CPython 3.11: Objects/tupleobject.c,
 * tuplehash (xxHash's lanes and primes over the items' hashes, the length mixed in last, -1
 * replaced by 1546275796) and Objects/longobject.c, long_hash (an integer's hash is itself modulo
 * 2**61 - 1 with its sign; -1 hashes as -2). hash_open starts a tuple, hash_int adds an integer
 * to the innermost open one, hash_close ends it and adds its hash to the one around it, and
 * hash_end ends the outermost and gives its hash. Nesting deeper than HASH_NESTING tuples is the
 * caller's to refuse (hash_depth).
 */
#ifndef FINGERPRINT_SPIKE_HASH_H
#define FINGERPRINT_SPIKE_HASH_H

#include <stdint.h>

#define XXPRIME_1 11400714785074694791ULL
#define XXPRIME_2 14029467366897019727ULL
#define XXPRIME_5 2870177450012600261ULL
#define HASH_MODULUS ((1ULL << 61) - 1)
#define HASH_NESTING 64

typedef struct {
    uint64_t acc[HASH_NESTING];     /* each open tuple's accumulator */
    uint64_t len[HASH_NESTING];     /* and its items so far */
    int depth;                      /* the innermost open tuple; -1 before the first */
} TupleHash;

static inline void hash_start(TupleHash *h) { h->depth = -1; }

static inline int hash_depth(const TupleHash *h) { return h->depth; }

static inline void hash_open(TupleHash *h) {
    h->depth++;
    h->acc[h->depth] = XXPRIME_5;
    h->len[h->depth] = 0;
}

/* An item whose hash is ``lane``, added to the innermost open tuple. */
static inline void hash_lane(TupleHash *h, uint64_t lane) {
    uint64_t acc = h->acc[h->depth] + lane * XXPRIME_2;
    acc = (acc << 31) | (acc >> 33);
    h->acc[h->depth] = acc * XXPRIME_1;
    h->len[h->depth]++;
}

static inline uint64_t long_hash(int64_t v) {
    if (v > -(int64_t)HASH_MODULUS && v < (int64_t)HASH_MODULUS)
        return (uint64_t)(v == -1 ? -2 : v);
    uint64_t m = (v < 0 ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v) % HASH_MODULUS;
    int64_t r = v < 0 ? -(int64_t)m : (int64_t)m;
    return (uint64_t)(r == -1 ? -2 : r);
}

static inline void hash_int(TupleHash *h, int64_t v) { hash_lane(h, long_hash(v)); }

/* Ends the innermost open tuple and gives its hash. */
static inline uint64_t hash_end(TupleHash *h) {
    uint64_t acc = h->acc[h->depth] + (h->len[h->depth] ^ (XXPRIME_5 ^ 3527539UL));
    if (acc == (uint64_t)-1)
        acc = 1546275796;
    h->depth--;
    return acc;
}

/* Ends the innermost open tuple, an item of the one around it. */
static inline void hash_close(TupleHash *h) {
    uint64_t acc = hash_end(h);
    hash_lane(h, acc);
}

#endif
