/*
 * The next I/O of a clone: direction, block size, file and offset.  The
 * common case (one direction or a mix, fixed bs, sequential or random over
 * blocks of blockalign) is inline here because it runs once per I/O; the
 * rest (opsrc, verify replay, bsrange/bssplit, several files, pass ends)
 * is in gen.c.
 *
 * A pass is one traversal of the clone's files: it ends when pass_budget
 * bytes were issued or, unless the files wrap (time_based, io_size), when
 * every file has reached its end (sequential) or had each block visited
 * once (random map).  Random offsets with the map come from a keyed
 * permutation of the file's blocks, a new one each pass, when every I/O is
 * one block; when the block size varies, from fio's rule (gen.c
 * lb_gen_mapped): a block drawn, the next free one if it is done, the I/O
 * cut short before the first done block it would run into.
 *
 * A block size that varies is drawn once the offset is known, among the
 * sizes that fit before the end of the region (fio's get_next_buflen).
 */
#ifndef LB_GEN_H
#define LB_GEN_H

#include "run/rate.h"
#include "run/run_int.h"

/* Seeds and sets up w->gen from the job.  0 or -EINVAL (a bad
 * random_distribution parameter). */
int lb_gen_setup(struct lb_worker *w);
/* lb_gen_next's slow path: opsrc, verify replay, files opened at first use. */
int lb_gen_next_slow(struct lb_worker *w, struct lb_io *io);
/* At the end of a pass: GEN_OP (a new pass began), GEN_PASS or GEN_END. */
int lb_gen_pass_end(struct lb_worker *w);
/* Drops the cached pages of file fi, which wrapped (gen.wrap_drop). */
void lb_gen_wrap_drop(struct lb_worker *w, unsigned fi);
/* Starts the next pass; 1 when the job's loops are done. */
int lb_gen_new_pass(struct lb_worker *w);
/* Back to the first pass. */
void lb_gen_restart(struct lb_worker *w);
/* Back to the first pass at the end of the ramp, as fio (the offsets as
 * they began, the read/write mix going on). */
void lb_gen_ramp_over(struct lb_worker *w);
/* The file of the next I/O (file_service_type). */
unsigned lb_gen_file(struct lb_worker *w);
/* A block size of direction d drawn from bsrange or bssplit, among those
 * of at most room bytes; room itself when even the smallest is larger. */
uint32_t lb_gen_bs(struct lb_worker *w, unsigned d, uint64_t room);
/* Random with the block map: the offset in file fi of the next I/O, *len
 * drawn there when 0, then cut short to the blocks still free. */
uint64_t lb_gen_mapped(struct lb_worker *w, unsigned fi, uint32_t *len, unsigned d);
/* percentage_random: the offset in file fi of the next I/O of direction
 * d, random or going on from that direction's last one, *len drawn when 0.
 * GEN_OP, or GEN_PASS when the file is done (the pass may then end). */
int lb_gen_seqmix(struct lb_worker *w, unsigned fi, unsigned d, uint32_t *len, uint64_t *off);
/* lb_gen_core once more, after a file was done. */
int lb_gen_core_again(struct lb_worker *w, struct lb_io *io);
/* The memory of the block maps and the replay record; freeing them. */
uint64_t lb_gen_mem(const struct lb_worker *w);
void lb_gen_free(struct lb_worker *w);
/* zonemode=strided: the offset in file f of the next I/O of len bytes. */
uint64_t lb_gen_zone(struct lb_gen *g, struct lb_wfile *f, uint32_t len, unsigned d);

/* fio's rwmix rule (io_u.c get_rw_ddir): once the count of the direction
 * drawn last reaches mix_limit, a direction is drawn (rwmixread percent
 * reads); on a change the new one is kept until its own count reaches the
 * old one's count times the new one's percentage.  Counts run over the whole
 * job, the limit restarts each pass: the bytes per direction are fio's.
 * Under a rate cap the schedule may then issue the other direction
 * (rate.c lb_rate_ddir), which the mix goes on from. */
static inline unsigned lb_gen_ddir(struct lb_worker *w, struct lb_gen *g)
{
    unsigned d = g->mix_dir;

    if (g->mix_issued[d] >= g->mix_limit) {
        unsigned nd = lb_taus88_between(&g->mix_rng, 1, 100) <= g->mixread ? LB_READ : LB_WRITE;

        if (nd != d)
            g->mix_limit = g->mix_issued[d] *
                           (nd == LB_READ ? g->mixread : 100 - g->mixread) / 100;
        d = g->mix_dir = (uint8_t)nd;
    }
    if (__builtin_expect(w->rated, 0))
        d = g->mix_dir = (uint8_t)lb_rate_ddir(w, d);
    g->mix_issued[d]++;
    return d;
}

static inline void lb_gen_exhaust(struct lb_gen *g, struct lb_wfile *f)
{
    if (!f->exhausted) {
        f->exhausted = true;
        g->nexh++;
    }
}

/* Sequential: the next offset of direction d.  As in fio, the writes of
 * a mixed or trimwrite job have their own position (wpos), which starts at
 * the beginning too. */
static inline uint64_t lb_gen_seq(struct lb_worker *w, struct lb_wfile *f, uint32_t *len,
                                  unsigned d)
{
    struct lb_gen *g = &w->gen;
    uint64_t *pos = (g->mixed || g->trimwrite) && d == LB_WRITE ? &f->wpos : &f->pos;
    uint64_t off = *pos, next;
    uint32_t least = g->bs_fixed[d] ? g->bs_fixed[d] : w->bs_lo[d];

    if (!*len)
        *len = lb_gen_bs(w, d, f->end - off);
    next = off + *len + g->skip;
    /* fio issues no I/O that would cross the end: the file is done when
     * the next one (rw=read:N skips N), of the smallest size, does not fit */
    if (next >= f->end || f->end - next < least) {
        next = 0;
        f->drop_due = g->wrap_drop;
        lb_gen_exhaust(g, f);
    }
    *pos = next;
    return off;
}

static inline uint64_t lb_gen_rand(struct lb_worker *w, struct lb_gen *g, struct lb_wfile *f)
{
    uint64_t blk;

    if (g->randmap)
        blk = lb_perm_at(&f->perm, f->pos);
    else if (g->skewed)
        blk = lb_dist_next(&w->dist[f - w->wf], &g->rng_off);
    else
        blk = lb_rng_below(&g->rng_off, f->nblocks);
    if (++f->pos >= f->nblocks) {
        f->pos = 0;
        if (g->randmap)
            lb_perm_init(&f->perm, f->nblocks, lb_rng_next(&g->rng_off));
        f->drop_due = g->wrap_drop;
        lb_gen_exhaust(g, f);
    }
    return blk * g->align;
}

static inline void lb_gen_seen(struct lb_worker *w, unsigned d, uint32_t len)
{
    if (__builtin_expect(len < w->seen_min[d], 0))
        w->seen_min[d] = len;
    if (__builtin_expect(len > w->seen_max[d], 0))
        w->seen_max[d] = len;
}

/* randtrimwrite: the write of the block just trimmed, its offset and
 * length (fio copies the trim's). */
static inline int lb_gen_tw_write(struct lb_worker *w, struct lb_io *io)
{
    struct lb_gen *g = &w->gen;

    g->tw_due = false;
    io->file = &w->files[g->tw_file];
    io->offset = io->file->file_offset + g->tw_off;
    io->len = g->tw_len;
    io->ddir = LB_WRITE;
    lb_gen_seen(w, LB_WRITE, io->len);
    g->pass_bytes += io->len;
    g->pass_ops++;
    return GEN_OP;
}

/* trimwrite, randtrimwrite as fio (io_u.c set_rw_ddir): a trim, then
 * writes until one starts where the trim did; sequential writes have their
 * own position and block size (a varying one the trim's: fio seeds both
 * draws alike), so each trim is followed by the write of its block unless
 * bs sets different sizes for the two.  Only the writes count against the pass
 * (fio's bytes of a writing job), and it ends before a trim, never
 * between a trim and its writes. */
static inline void lb_gen_tw_note(struct lb_gen *g, unsigned d, unsigned fi, uint64_t off,
                                  uint32_t len)
{
    if (d == LB_TRIM) {
        g->pass_bytes -= len;
        g->tw_due = true;
        g->tw_file = fi;
        g->tw_off = off;
        g->tw_len = len;
    } else {
        g->tw_due = off != g->tw_off;
    }
}

/* GEN_OP with io's file, offset, len and ddir set; GEN_PASS at the end of
 * a pass that must be verified; GEN_END when there is nothing more. */
static inline int lb_gen_core(struct lb_worker *w, struct lb_io *io)
{
    struct lb_gen *g = &w->gen;
    struct lb_wfile *f;
    unsigned d, fi;
    uint32_t len;
    uint64_t off;

    if (__builtin_expect(g->tw_due && g->random, 0))
        return lb_gen_tw_write(w, io);
    if (__builtin_expect(g->pass_bytes >= g->pass_budget || g->pass_ops >= g->ops_budget ||
                         (g->nexh >= g->exh_limit && !g->tw_due), 0)) {
        int r = lb_gen_pass_end(w);

        if (r != GEN_OP)
            return r;
    }
    d = g->mixed ? lb_gen_ddir(w, g) : g->tw_due ? LB_WRITE : g->ddir;
    len = g->bs_fixed[d] ? g->bs_fixed[d] : g->tw_due ? g->tw_len : 0;
    fi = g->tw_due ? g->tw_file : g->nfiles == 1 ? 0 : lb_gen_file(w);
    f = &w->wf[fi];
    if (__builtin_expect(f->drop_due, 0))
        lb_gen_wrap_drop(w, fi);
    if (__builtin_expect(g->zoned, 0)) {
        len = len ? len : lb_gen_bs(w, d, UINT64_MAX);
        off = lb_gen_zone(g, f, len, d);
    } else if (!g->random) {
        off = lb_gen_seq(w, f, &len, d);
    } else if (__builtin_expect(g->seqmix, 0)) {
        if (lb_gen_seqmix(w, fi, d, &len, &off) != GEN_OP)
            return lb_gen_core_again(w, io);
    } else if (__builtin_expect(g->bmap, 0)) {
        off = lb_gen_mapped(w, fi, &len, d);
    } else {
        off = lb_gen_rand(w, g, f);
        len = len ? len : lb_gen_bs(w, d, f->end - off);
    }
    if (__builtin_expect(off + len > f->end, 0))
        len = (uint32_t)(f->end - off);
    if (__builtin_expect(g->seqmix, 0))
        f->last[d] = off + len;
    lb_gen_seen(w, d, len);
    io->file = &w->files[fi];
    io->offset = io->file->file_offset + off;
    io->len = len;
    io->ddir = (uint8_t)d;
    g->pass_bytes += len;
    g->pass_ops++;
    if (__builtin_expect(g->trimwrite, 0))
        lb_gen_tw_note(g, d, fi, off, len);
    return GEN_OP;
}

static inline int lb_gen_next(struct lb_worker *w, struct lb_io *io)
{
    int r;

    if (__builtin_expect(w->gen.slow, 0))
        return lb_gen_next_slow(w, io);
    r = lb_gen_core(w, io);
    if (w->gen.wfill && io->ddir == LB_WRITE && r == GEN_OP)
        lb_bufs_write(w->fill, io->buf, io->offset, io->len);
    return r;
}

#endif
