/*
 * What writes carry, as fio fills its buffers: random bytes by default,
 * zeros (zero_buffers), a repeated pattern (buffer_pattern), chunks that
 * are part random and part zeros or pattern so the data compresses by a
 * chosen percent (buffer_compress_percentage), buffers that repeat earlier
 * ones (dedupe_percentage), each write refilled (refill_buffers) or its
 * sectors marked with its offset and a write number (scramble_buffers).
 * Verify's headers and payloads (base/verify.c) take the place of all this
 * in a job that verifies.  One struct lb_bufs per worker; no locking.
 */
#ifndef LB_BUFS_H
#define LB_BUFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/pattern.h"
#include "job/job.h"

struct lb_bufs {
    bool per_write;              /* lb_bufs_write has work for every write */
    bool refill;                 /* every write filled anew */
    bool scramble;               /* every write's sectors marked */
    bool zero;                   /* zeros where nothing else applies */
    uint32_t compress;           /* 1..99: percent of each chunk compressible */
    uint32_t chunk;              /* buffer_compress_chunk */
    uint32_t min_write;          /* the smallest write: fio's chunks are no larger */
    uint32_t dedupe;             /* percent of buffers repeating another */
    uint32_t plen;               /* bytes in pat; 0: no pattern */
    uint64_t seeds;              /* stream of the random chunks' seeds */
    uint64_t prev;               /* seeds after the last unique buffer */
    uint64_t dup;                /* a repeated buffer's copy of prev */
    uint64_t draws;              /* dedupe draws */
    uint64_t salt, nwrites;      /* scramble's marks: per run and worker, per write */
    uint8_t pat[LB_PATTERN_MAX];
};

/* Reads the job's options.  reads: the job also reads, which with a
 * pattern makes fio refill every write; verify: verify fills the writes.
 * @return 0, or -EINVAL with the reason in err (a pattern file gone). */
int lb_bufs_setup(struct lb_bufs *b, const struct lb_job *j, uint64_t seed, bool reads,
                  bool verify, char *err, size_t errlen);

/* Fills a whole buffer of len bytes, as at allocation. */
void lb_bufs_fill(struct lb_bufs *b, void *buf, size_t len);

/* A write of len bytes at offset from buf is about to be issued. */
void lb_bufs_write(struct lb_bufs *b, void *buf, uint64_t offset, uint32_t len);

#endif
