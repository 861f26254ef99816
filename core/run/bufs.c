/*
 * The contents of writes, fio's way (see bufs.h).  A buffer is filled at
 * allocation; afterwards only refill_buffers fills it again, and
 * scramble_buffers, fio's default, writes 24 bytes into each 512-byte
 * sector of every write: its offset at the start of one of the sector's
 * eight cache lines, and this run's mark with the write's number at the
 * end of the first line, so a block rewritten, or written by another
 * clone, never repeats one written before.
 */
#include <errno.h>
#include <string.h>

#include "run/bufs.h"
#include "base/clock.h"
#include "base/rng.h"

static inline uint64_t xorshift(uint64_t x)
{
    x ^= x << 13;
    x ^= x >> 7;
    return x ^ (x << 17);
}

/* Four xorshift streams side by side: independent chains the CPU runs at
 * once, so a refill or a layout costs a fraction of what one chain would. */
static void fill_random(void *buf, size_t len, uint64_t seed)
{
    uint8_t *p = buf;
    uint64_t x[4];

    for (int k = 0; k < 4; k++)
        x[k] = lb_rng_splitmix64(&seed) | 1;
    for (; len >= 32; len -= 32, p += 32) {
        for (int k = 0; k < 4; k++) {
            x[k] = xorshift(x[k]);
            memcpy(p + 8 * k, &x[k], 8);
        }
    }
    for (; len >= 8; len -= 8, p += 8) {
        x[0] = xorshift(x[0]);
        memcpy(p, &x[0], 8);
    }
    for (x[1] = xorshift(x[1]); len; len--, x[1] >>= 8)
        *p++ = (uint8_t)x[1];
}

static void fill_compressible(const struct lb_bufs *b, uint8_t *p, size_t len)
{
    if (b->plen)
        lb_pattern_fill(p, len, b->pat, b->plen);
    else
        memset(p, 0, len);
}

/* fio's dedupe_mode=repeat: a repeated buffer takes its seeds from where
 * the stream stood after the last unique one, which are the seeds the next
 * unique buffer takes; dedupe_percentage=100 never moves the stream. */
static uint64_t *seeds_of(struct lb_bufs *b)
{
    if (!b->dedupe)
        return &b->seeds;
    if (b->dedupe == 100) {
        b->prev = b->seeds;
        return &b->seeds;
    }
    if (lb_rng_splitmix64(&b->draws) % 100 < b->dedupe) {
        b->dup = b->prev;
        return &b->dup;
    }
    return &b->seeds;
}

static void seeds_done(struct lb_bufs *b, uint64_t *s)
{
    if (b->dedupe == 100)
        *s = b->prev;
    else if (s == &b->seeds)
        b->prev = *s;
}

/* Chunks of min(smallest write, compress chunk): each random, then
 * compressible for its last compress percent. */
static void fill_chunks(struct lb_bufs *b, uint8_t *p, size_t len)
{
    uint64_t *s = seeds_of(b);

    while (len) {
        size_t n = b->min_write < len ? b->min_write : len, rnd;

        n = b->chunk && b->chunk < n ? b->chunk : n;
        rnd = n * (100 - b->compress) / 100;
        fill_random(p, rnd, lb_rng_splitmix64(s));
        fill_compressible(b, p + rnd, n - rnd);
        p += n;
        len -= n;
        seeds_done(b, s);
    }
}

void lb_bufs_fill(struct lb_bufs *b, void *buf, size_t len)
{
    if (b->compress || b->dedupe)
        fill_chunks(b, buf, len);
    else if (b->plen || b->zero)
        fill_compressible(b, buf, len);
    else
        fill_random(buf, len, lb_rng_splitmix64(&b->seeds));
}

static void scramble(struct lb_bufs *b, uint8_t *p, uint64_t off, uint32_t len)
{
    uint64_t n = ++b->nwrites;
    size_t line = (size_t)((n ^ off) & 7) << 6;

    for (uint32_t i = 0; i < len >> 9; i++, p += 512, off += 512) {
        memcpy(p + line, &off, 8);
        memcpy(p + 48, &b->salt, 8);
        memcpy(p + 56, &n, 8);
    }
}

void lb_bufs_write(struct lb_bufs *b, void *buf, uint64_t offset, uint32_t len)
{
    if (b->refill)
        lb_bufs_fill(b, buf, len);
    else
        scramble(b, buf, offset, len);
}

int lb_bufs_setup(struct lb_bufs *b, const struct lb_job *j, uint64_t seed, bool reads,
                  bool verify, char *err, size_t n)
{
    unsigned given = j->bufs_given;
    bool zero_given = j->zero_buffers && (given & LB_BUFS_GIVEN_ZERO);
    bool refill_given = given & LB_BUFS_GIVEN_REFILL;
    bool shaped = j->buffer_compress_percentage || j->dedupe_percentage;
    int plen = 0;

    memset(b, 0, sizeof *b);
    if (j->buffer_pattern && (plen = lb_pattern_parse(j->buffer_pattern, b->pat, err, n)) < 0)
        return -EINVAL;
    b->plen = (uint32_t)plen;
    b->compress = j->buffer_compress_percentage;
    b->zero = j->zero_buffers;
    if (b->compress == 100) {            /* fio: all compressible is all zeros */
        b->zero = true;
        b->compress = 0;
    }
    b->refill = j->refill_buffers || ((b->compress || j->dedupe_percentage) && !refill_given);
    /* fio: scrambled unless zero_buffers was given, or a pattern, compression
     * or dedupe set; an explicit scramble_buffers=1 wins but over the last
     * two; with a pattern, refilled when the job reads into its buffers too
     * or compresses */
    b->scramble = j->scramble_buffers && !shaped &&
                  ((given & LB_BUFS_GIVEN_SCRAMBLE) || (!zero_given && !plen));
    if (plen) {
        b->zero = false;
        if (!refill_given)
            b->refill = reads || b->compress;
    }
    b->chunk = j->buffer_compress_chunk > UINT32_MAX ? UINT32_MAX
                                                     : (uint32_t)j->buffer_compress_chunk;
    b->min_write = lb_job_bs_min(j, 1u << LB_WRITE);
    b->min_write = b->min_write && b->min_write != UINT32_MAX ? b->min_write : 4096;
    b->dedupe = j->dedupe_percentage;
    b->seeds = seed;
    b->prev = seed;
    b->draws = seed ^ 0x5DEECE66Dull;
    b->salt = lb_clock_now() ^ seed;
    b->per_write = !verify && (b->refill || b->scramble);
    return 0;
}
