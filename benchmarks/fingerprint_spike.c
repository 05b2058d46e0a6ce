/* The native spike of benchmarks/fingerprint_spike.py: Python 3.11's hash of a state's key, from its integers alone.
 *
 * hwlib's fingerprint is Python's hash of a nested tuple of integers (hwlib/model/space.py,
 * fingerprint). This computes the same 64-bit value with no Python object - CPython 3.11's
 * tuple hash (fingerprint_spike_hash.h, shared with fingerprint_spike_read.c) - from a token
 * stream: 1 opens a tuple, 0 is an integer (its value beside it), 2 closes one, 3 ends a state.
 * It reads the stream and the fingerprints Python gave the same states, counts the states whose
 * hash differs (exit 1 if any) and prints the counts; valgrind's callgrind counts state_hash's
 * instructions alone (--toggle-collect=state_hash).
 *
 *     fingerprint_spike TAGS VALUES FINGERPRINTS    (int8, int64, int64 arrays, native order)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fingerprint_spike_hash.h"

enum { INTEGER = 0, OPEN = 1, CLOSE = 2, END = 3 };

/* The hash of the state whose tokens start at *at; *at is left at the next state's first. */
__attribute__((noinline)) int64_t state_hash(const int8_t *tags, const int64_t *values, size_t *at) {
    TupleHash h;
    hash_start(&h);
    for (size_t i = *at;; i++) {
        switch (tags[i]) {
        case OPEN:
            if (hash_depth(&h) + 1 == HASH_NESTING) {
                fprintf(stderr, "a key nested deeper than %d tuples\n", HASH_NESTING);
                exit(2);
            }
            hash_open(&h);
            break;
        case INTEGER:
            hash_int(&h, values[i]);
            break;
        case CLOSE:
            if (hash_depth(&h) == 0) {
                *at = i + 2;            /* past this CLOSE and the state's END */
                return (int64_t)hash_end(&h);
            }
            hash_close(&h);
            break;
        default:
            fprintf(stderr, "token %zu: %d where a tuple's item was expected\n", i, tags[i]);
            exit(2);
        }
    }
}

static void *read_all(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (f == NULL || fseek(f, 0, SEEK_END) != 0) {
        perror(path);
        exit(2);
    }
    *size = (size_t)ftell(f);
    rewind(f);
    void *data = malloc(*size ? *size : 1);
    if (data == NULL || fread(data, 1, *size, f) != *size) {
        perror(path);
        exit(2);
    }
    fclose(f);
    return data;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s TAGS VALUES FINGERPRINTS\n", argv[0]);
        return 2;
    }
    size_t tag_bytes, value_bytes, fingerprint_bytes;
    const int8_t *tags = read_all(argv[1], &tag_bytes);
    const int64_t *values = read_all(argv[2], &value_bytes);
    const int64_t *fingerprints = read_all(argv[3], &fingerprint_bytes);
    if (value_bytes != 8 * tag_bytes) {
        fprintf(stderr, "%zu tags but %zu values\n", tag_bytes, value_bytes / 8);
        return 2;
    }
    size_t states = fingerprint_bytes / 8, at = 0, differ = 0;
    for (size_t s = 0; s < states; s++)
        differ += state_hash(tags, values, &at) != fingerprints[s];
    if (at != tag_bytes) {
        fprintf(stderr, "%zu tokens read for %zu states, %zu given\n", at, states, tag_bytes);
        return 2;
    }
    printf("%zu %zu %zu\n", states, tag_bytes, differ);
    return differ != 0;
}
