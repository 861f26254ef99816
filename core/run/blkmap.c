/*
 * The block map (blkmap.h): words of 64 blocks and a summary bit per word
 * that is all done.  The bits past the last block are kept set, in both
 * levels, so that a search never has to check the end inside a word.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "run/blkmap.h"

static uint64_t ones_from(unsigned bit)
{
    return bit >= 64 ? 0 : ~0ull << bit;
}

/* span bits from bit (span 1..64, bit + span <= 64) */
static uint64_t run_mask(unsigned bit, unsigned span)
{
    return (span >= 64 ? ~0ull : (1ull << span) - 1) << bit;
}

static void note_full(struct lb_blkmap *m, uint64_t w)
{
    if (m->bits[w] == ~0ull)
        m->full[w / 64] |= 1ull << (w % 64);
}

void lb_blkmap_clear(struct lb_blkmap *m)
{
    if (!m->bits)
        return;
    memset(m->bits, 0, m->nwords * sizeof(*m->bits));
    memset(m->full, 0, m->nfull * sizeof(*m->full));
    m->bits[m->nwords - 1] |= ones_from(m->nblocks % 64 ? (unsigned)(m->nblocks % 64) : 64);
    m->full[m->nfull - 1] |= ones_from(m->nwords % 64 ? (unsigned)(m->nwords % 64) : 64);
    note_full(m, m->nwords - 1);
    m->done = 0;
}

int lb_blkmap_init(struct lb_blkmap *m, uint64_t n)
{
    memset(m, 0, sizeof(*m));
    if (!n)
        return 0;
    m->nblocks = n;
    m->nwords = (n + 63) / 64;
    m->nfull = (m->nwords + 63) / 64;
    m->bits = malloc(m->nwords * sizeof(*m->bits));
    m->full = malloc(m->nfull * sizeof(*m->full));
    if (!m->bits || !m->full) {
        lb_blkmap_free(m);
        return -ENOMEM;
    }
    lb_blkmap_clear(m);
    return 0;
}

void lb_blkmap_free(struct lb_blkmap *m)
{
    free(m->bits);
    free(m->full);
    memset(m, 0, sizeof(*m));
}

/* The first free block at b or after, without wrapping. */
static uint64_t find_from(const struct lb_blkmap *m, uint64_t b)
{
    uint64_t w = b / 64, free_bits = ~m->bits[w] & ones_from((unsigned)(b % 64));

    if (free_bits)
        return w * 64 + (uint64_t)__builtin_ctzll(free_bits);
    for (uint64_t next = w + 1, f = next / 64; next < m->nwords; f++, next = f * 64) {
        uint64_t open = ~m->full[f] & ones_from((unsigned)(next % 64));

        if (open) {
            uint64_t wi = f * 64 + (uint64_t)__builtin_ctzll(open);

            return wi * 64 + (uint64_t)__builtin_ctzll(~m->bits[wi]);
        }
    }
    return UINT64_MAX;
}

uint64_t lb_blkmap_next_free(const struct lb_blkmap *m, uint64_t b)
{
    uint64_t r;

    if (lb_blkmap_full(m))
        return UINT64_MAX;
    if (b >= m->nblocks)
        b = 0;
    r = find_from(m, b);
    return r != UINT64_MAX || b == 0 ? r : find_from(m, 0);
}

uint64_t lb_blkmap_mark(struct lb_blkmap *m, uint64_t b, uint64_t nr)
{
    uint64_t count = 0;

    while (count < nr && b < m->nblocks) {
        uint64_t w = b / 64, left = nr - count, room = m->nblocks - b;
        unsigned bit = (unsigned)(b % 64), span = 64 - bit;
        uint64_t mask, done_bits;

        if (span > left)
            span = (unsigned)left;
        if (span > room)
            span = (unsigned)room;
        mask = run_mask(bit, span);
        done_bits = m->bits[w] & mask;
        if (done_bits) {
            unsigned k = (unsigned)__builtin_ctzll(done_bits) - bit;

            if (k)
                m->bits[w] |= run_mask(bit, k);
            count += k;
            note_full(m, w);
            break;
        }
        m->bits[w] |= mask;
        note_full(m, w);
        count += span;
        b += span;
    }
    m->done += count;
    return count;
}
