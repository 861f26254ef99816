/*
 * Fuzzes lb_hist_import_add, the door through which histograms come back
 * from other processes (MPI ranks): a flat array of bucket counts and
 * totals that may be anything.  The input describes a flat sparsely:
 *
 *   byte 0        mode: bit 0 makes the totals consistent (count = the
 *                 bucket counts + lost, min <= max) so that the import
 *                 goes through; bit 1 records a few values first
 *   bytes 1..48   the six trailing words (count, min, max, sum, lost, sumsq)
 *   then records  of 10 bytes: a 16-bit word index, a 64-bit value
 *
 * After the import the histogram is queried, exported, re-imported and
 * merged.  Checked: an import refused leaves the histogram unchanged; one
 * accepted adds exactly its count; nothing crashes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"

static uint64_t word(const uint8_t *p)
{
    uint64_t v;

    memcpy(&v, p, sizeof v);
    return v;
}

/* The flat the input describes, in flat (LB_HIST_FLAT words, zeroed). */
static void decode(const uint8_t *data, size_t size, uint64_t *flat)
{
    uint64_t *tail = flat + LB_HIST_BUCKETS;

    for (size_t i = 0; i < 6 && 1 + 8 * (i + 1) <= size; i++)
        tail[i] = word(data + 1 + 8 * i);
    for (size_t at = 49; at + 10 <= size; at += 10) {
        uint16_t idx;

        memcpy(&idx, data + at, sizeof idx);
        flat[idx % LB_HIST_FLAT] = word(data + at + 2);
    }
    if (size && (data[0] & 1)) {
        uint64_t total = tail[4];

        for (size_t i = 0; i < LB_HIST_BUCKETS; i++)
            total += flat[i];
        tail[0] = total;
        if (tail[1] > tail[2])
            tail[1] = tail[2];
    }
}

static void query(const struct lb_hist *h)
{
    static const double ps[] = {-1, 0, 1e-9, 1, 50, 99, 99.99, 100, 101};

    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
        lb_hist_percentile(h, ps[i]);
    lb_hist_mean(h);
    lb_hist_stddev(h);
    lb_hist_min(h);
    lb_hist_max(h);
    lb_hist_mem(h);
}

static void roundtrip(struct lb_hist *h, uint64_t *flat)
{
    struct lb_hist *copy = lb_hist_dup(h), *other = NULL;

    lb_hist_export(h, flat);
    double sq;
    uint64_t total = flat[LB_HIST_BUCKETS + 4];
    int wraps = 0;
    memcpy(&sq, &flat[LB_HIST_BUCKETS + 5], sizeof sq);
    for (size_t i = 0; i < LB_HIST_BUCKETS; i++)
        wraps |= __builtin_add_overflow(total, flat[i], &total);
    if (lb_hist_new(&other) == 0) {
        int rc = lb_hist_import_add(other, flat);
        /* an export imports whole, unless its counts pass 2^64 or the sum
         * of squares (which may have wrapped) rounds up to 2^128 */
        if ((rc < 0 && !wraps && sq < 0x1p128) ||
            (rc == 0 && lb_hist_count(other) != lb_hist_count(h)))
            abort();
        lb_hist_add(other, h);
        query(other);
    }
    if (copy)
        lb_hist_add(copy, h);
    lb_hist_free(copy);
    lb_hist_free(other);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t *flat = calloc(LB_HIST_FLAT, sizeof *flat);
    struct lb_hist *h = NULL;

    if (!flat || lb_hist_new(&h) < 0) {
        free(flat);
        return 0;
    }
    if (size && (data[0] & 2))
        for (size_t i = 1; i < size && i < 9; i++)
            lb_hist_record(h, (uint64_t)data[i] << (data[i] & 63));
    decode(data, size, flat);
    uint64_t before = lb_hist_count(h), min = lb_hist_min(h), max = lb_hist_max(h);
    int rc = lb_hist_import_add(h, flat);
    if (rc < 0 && (lb_hist_count(h) != before || lb_hist_min(h) != min ||
                   lb_hist_max(h) != max))
        abort();                        /* a refused import changed h */
    if (rc == 0 && lb_hist_count(h) != before + flat[LB_HIST_BUCKETS])
        abort();
    query(h);
    roundtrip(h, flat);
    lb_hist_free(h);
    free(flat);
    return 0;
}
