/*
 * The block map of a random job whose block size varies (fio's random
 * map): one bit per block of the file's region, set when an I/O covered it
 * in this pass.  A random I/O that falls on a block done already moves to
 * the next free one, and one that would run into a done block is cut short
 * before it, so that a pass writes every block exactly once (gen.c).  A
 * second level, one bit per 64 blocks all done, keeps the search for a
 * free block short when the map is nearly full.  Not thread-safe: each
 * clone has its own maps.
 */
#ifndef LB_BLKMAP_H
#define LB_BLKMAP_H

#include <stdbool.h>
#include <stdint.h>

struct lb_blkmap {
    uint64_t *bits;              /* nblocks bits, 1: done */
    uint64_t *full;              /* one bit per word of bits, 1: all 64 done */
    uint64_t nblocks, nwords, nfull;  /* nwords words of bits, nfull of full */
    uint64_t done;               /* bits set */
};

/* A map of n blocks, all free.  0 or -ENOMEM. */
int lb_blkmap_init(struct lb_blkmap *m, uint64_t n);
/* free(NULL) safe; leaves m empty. */
void lb_blkmap_free(struct lb_blkmap *m);
/* Every block free again. */
void lb_blkmap_clear(struct lb_blkmap *m);
/* The first free block at b or after it, wrapping to 0 past the end;
 * UINT64_MAX when every block is done. */
uint64_t lb_blkmap_next_free(const struct lb_blkmap *m, uint64_t b);
/* Marks up to nr blocks from b done, stopping before the first done one
 * or the end of the map; the count marked (0 when b is done). */
uint64_t lb_blkmap_mark(struct lb_blkmap *m, uint64_t b, uint64_t nr);

static inline bool lb_blkmap_full(const struct lb_blkmap *m)
{
    return m->done >= m->nblocks;
}

#endif
