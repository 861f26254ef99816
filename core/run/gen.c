/*
 * The less common half of the offset generator (the common one is inline
 * in gen.h): seeding a clone's generator from its job, passes, choosing a
 * file or a block size that varies, the verify replay, and operations from
 * a custom source (job->opsrc) executed exactly as given.
 *
 * Seeds: with randrepeat (the default) everything derives from randseed,
 * the job's index in the run and the clone number, so a run repeats its
 * offsets exactly; without it from the clock.  The direction draws of a
 * mixed job are fio's own (generator, seed from randseed, 0x89 when unset
 * as in fio, and the clone's number in the run), so that the bytes per
 * direction are those fio reports for the same job.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "base/clock.h"
#include "run/gen.h"
#include "run/openfiles.h"
#include "run/run_state.h"
#include "run/stats_int.h"

#define LB_FIO_RANDSEED 0xb1899bedull   /* fio's FIO_RANDSEED */

static bool wraps_drop(const struct lb_worker *w, const struct lb_gen *g);

static uint64_t seed_base(const struct lb_worker *w)
{
    const struct lb_job *j = w->job;
    uint64_t x;

    if (j->allrandrepeat)
        x = LB_FIO_RANDSEED;
    else if (j->randrepeat)
        x = j->randseed;
    else
        x = lb_clock_mono_ns() ^ ((uint64_t)(uintptr_t)w << 17) ^ (uint64_t)time(NULL);
    x += 0x9E3779B97F4A7C15ull * (w->job_index + 1);
    x ^= 0xD1B54A32D192ED03ull * (w->clone + 1);
    return lb_rng_splitmix64(&x);
}

static void bssplit_setup(struct lb_worker *w, unsigned d)
{
    const struct lb_job *j = w->job;
    uint32_t n = j->nbssplit[d], given = 0, zeros = 0, upto = 0;

    for (uint32_t i = 0; i < n; i++) {
        given += j->bssplit[d][i].pct;
        zeros += j->bssplit[d][i].pct == 0;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t pct = j->bssplit[d][i].pct;

        if (pct == 0)
            pct = given < 100 ? (100 - given) / zeros : 0;
        upto += pct;
        w->bsw[d][i].bs = j->bssplit[d][i].bs;
        w->bsw[d][i].upto = upto;
    }
    w->nbsw[d] = upto ? n : 0;
}

static void bs_setup(struct lb_worker *w, struct lb_gen *g)
{
    const struct lb_job *j = w->job;

    for (unsigned d = 0; d < LB_DDIR_N; d++) {
        w->bs_lo[d] = j->bs_min[d] ? j->bs_min[d] : 4096;
        w->bs_hi[d] = j->bs_max[d] > w->bs_lo[d] ? j->bs_max[d] : w->bs_lo[d];
        bssplit_setup(w, d);
        g->bs_fixed[d] = !w->nbsw[d] && w->bs_lo[d] == w->bs_hi[d] ? w->bs_lo[d] : 0;
        w->seen_min[d] = UINT32_MAX;
        w->seen_max[d] = 0;
    }
}

/* fio's seed i of the clone, as the rwmix draws take theirs: allrandrepeat's
 * FIO_RANDSEED * n + i, randseed's (0x89 unset), else from the clock. */
static uint32_t fio_seed(struct lb_worker *w, struct lb_gen *g, unsigned i)
{
    const struct lb_job *j = w->job;

    if (j->allrandrepeat)
        return (uint32_t)(LB_FIO_RANDSEED * (w->id + 1) + i);
    if (j->randrepeat)
        return (uint32_t)lb_taus88_fio_seed(j->randseed ? j->randseed : 0x89, w->id + 1, i);
    return (uint32_t)lb_rng_next(&g->rng_aux);
}

/* percentage_random (fio's perc_rand): each direction draws from a
 * generator of its own, all three seeded alike with fio's seed 10
 * (init.c td_fill_rand_seeds_internal, FIO_RAND_SEQ_RAND_READ_OFF). */
static void seqmix_setup(struct lb_worker *w, struct lb_gen *g)
{
    for (unsigned d = 0; d < LB_DDIR_N; d++) {
        g->pct_rand[d] = (uint8_t)w->job->perc_rand[d];
        g->seqmix |= g->random && g->pct_rand[d] < 100;
    }
    if (g->seqmix)
        g->seq_seed = fio_seed(w, g, 10);
}

static void ddir_setup(struct lb_worker *w, struct lb_gen *g)
{
    int rw = w->job->rw;

    g->random = LB_RW_IS_RANDOM(rw);
    g->mixed = rw == LB_RW_RW || rw == LB_RW_RANDRW;
    g->trimwrite = LB_RW_IS_TRIMWRITE(rw);
    g->mixread = w->job->rwmixread;
    /* fio's allrandrepeat (init.c td_fill_rand_seeds): seed i of thread
     * n is FIO_RANDSEED * n + i, randseed unused */
    g->mix_seed = fio_seed(w, g, 4);
    g->ddir = (uint8_t)(g->trimwrite ? LB_TRIM : lb_rw_ddir(rw));
    seqmix_setup(w, g);
}

static int files_setup(struct lb_worker *w, struct lb_gen *g)
{
    const struct lb_job *j = w->job;
    bool wrap = j->time_based || j->io_size;
    uint64_t total = 0;

    g->nfiles = w->nfiles;
    g->fst = (uint32_t)j->file_service_type;
    g->exh_limit = wrap || g->zoned ? UINT32_MAX : w->nfiles;
    for (unsigned i = 0; i < w->nfiles; i++) {
        struct lb_wfile *f = &w->wf[i];

        f->end = w->files[i].size;
        f->nblocks = f->end / g->align;
        f->seq_end = w->files[i].file_end < w->files[i].file_offset ? f->end
                     : w->files[i].file_end - w->files[i].file_offset;
        total += f->end;
        if (g->skewed) {
            int ret = lb_dist_init(&w->dist[i], (enum lb_dist_kind)j->random_distribution,
                                   j->random_param, f->nblocks, lb_rng_next(&g->rng_off));
            if (ret)
                return ret;
        }
    }
    /* fio's number_ios: I/Os per pass (a loop), none in a time_based job */
    g->ops_budget = j->number_ios && !j->time_based ? j->number_ios : UINT64_MAX;
    if (j->time_based)
        g->pass_budget = UINT64_MAX;
    else if (j->io_size)
        g->pass_budget = j->io_size;
    else
        g->pass_budget = j->filesize && j->size && j->size < total ? j->size : total;
    return 0;
}

/* Whether an I/O may cover more than one block of blockalign, or a part
 * of one: the permutation of blocks no longer visits each byte once. */
static bool bs_varies(const struct lb_worker *w, const struct lb_gen *g)
{
    unsigned dirs = lb_rw_dirs(w->job->rw);

    for (unsigned d = 0; d < LB_DDIR_N; d++)
        if ((dirs & 1u << d) && g->bs_fixed[d] != g->align)
            return true;
    return false;
}

static int maps_new(struct lb_worker *w)
{
    w->bmap = calloc(w->nfiles, sizeof(*w->bmap));
    if (!w->bmap)
        return -ENOMEM;
    for (unsigned i = 0; i < w->nfiles; i++)
        if (lb_blkmap_init(&w->bmap[i], w->wf[i].nblocks))
            return -ENOMEM;
    return 0;
}

void lb_gen_free(struct lb_worker *w)
{
    for (unsigned i = 0; w->bmap && i < w->nfiles; i++)
        lb_blkmap_free(&w->bmap[i]);
    free(w->bmap);
    free(w->rec);
    w->bmap = NULL;
    w->rec = NULL;
    w->rec_n = w->rec_cap = 0;
}

uint64_t lb_gen_mem(const struct lb_worker *w)
{
    uint64_t m = w->rec_cap * sizeof(*w->rec);

    for (unsigned i = 0; w->bmap && i < w->nfiles; i++)
        m += (w->bmap[i].nwords + w->bmap[i].nfull) * sizeof(uint64_t);
    return m;
}

int lb_gen_setup(struct lb_worker *w)
{
    const struct lb_job *j = w->job;
    struct lb_gen *g = &w->gen;
    uint64_t seed = seed_base(w);

    memset(g, 0, sizeof(*g));
    lb_rng_seed(&g->rng_off, seed);
    lb_rng_seed(&g->rng_aux, seed ^ 0xA0761D6478BD642Full);
    w->vseed = lb_rng_next(&g->rng_aux);
    lb_rng_seed(&w->rng_pace, seed ^ 0xE7037ED1A0B428DBull);
    ddir_setup(w, g);
    bs_setup(w, g);
    g->align = lb_job_align(j);
    g->skip = j->rw_skip;
    g->skewed = g->random && j->random_distribution != LB_DIST_RANDOM;
    g->zoned = j->zonemode == LB_ZONE_STRIDED && j->zonesize;
    g->zsize = j->zonesize;
    g->zrange = j->zonerange ? j->zonerange : j->zonesize;
    g->zstep = g->zrange + j->zoneskip;
    g->randmap = g->random && !g->skewed &&
                 (!j->norandommap || j->random_generator == LB_RANDGEN_LFSR);
    g->lfsr = j->random_generator == LB_RANDGEN_LFSR;
    g->bmap = g->randmap && !j->norandommap && !g->zoned && bs_varies(w, g);
    w->loops = j->loops ? j->loops : 1;
    w->time_based = j->time_based;
    if (files_setup(w, g))
        return -EINVAL;
    if (g->bmap && maps_new(w))
        return -ENOMEM;
    g->wrap_drop = wraps_drop(w, g);
    g->slow = w->opsrc || w->verify_writes || j->verify_only || w->open_max;
    g->convert = j->verify_only && lb_job_writes_data(j);
    g->rng_off0 = g->rng_off;
    lb_gen_restart(w);
    return 0;
}

/* fio at the end of the ramp: the offsets begin again as the ramp began
 * (the same random offsets, sequential ones from the start), while the
 * read/write mix draws on where it was. */
void lb_gen_ramp_over(struct lb_worker *w)
{
    struct lb_gen *g = &w->gen;
    struct lb_taus88 mix = g->mix_rng, seq[LB_DDIR_N];

    memcpy(seq, g->seq_rng, sizeof(seq));
    g->rng_off = g->rng_off0;
    lb_gen_restart(w);
    g->mix_rng = mix;
    memcpy(g->seq_rng, seq, sizeof(seq));
}

/* A fresh pass: positions back to the start, new permutations. */
static void pass_reset(struct lb_worker *w)
{
    struct lb_gen *g = &w->gen;

    g->pass_bytes = g->pass_ops = 0;
    g->tw_due = false;
    g->nexh = 0;
    g->cur = 0;
    g->cur_used = false;
    lb_taus88_seed(&g->mix_rng, g->mix_seed);    /* fio reseeds each loop */
    g->mix_limit = 0;
    for (unsigned d = 0; d < LB_DDIR_N && g->seqmix; d++)
        lb_taus88_seed(&g->seq_rng[d], g->seq_seed);
    g->zbytes = 0;
    for (unsigned i = 0; i < w->nfiles; i++) {
        struct lb_wfile *f = &w->wf[i];

        f->pos = f->wpos = 0;
        f->zstart = f->zi = 0;
        f->exhausted = false;
        memset(f->last, 0, sizeof(f->last));
        f->last_reset_due = false;
        if (g->randmap)
            lb_perm_init(&f->perm, f->nblocks, lb_rng_next(&g->rng_off));
        if (g->bmap)
            lb_blkmap_clear(&w->bmap[i]);
    }
    w->rec_n = w->rec_base = 0;
    w->rec_replayed = false;
}

void lb_gen_restart(struct lb_worker *w)
{
    w->pass = 0;
    pass_reset(w);
}

/* A buffered time_based job reads its files from the device at every
 * wrap, as fio's: a file's cached pages go when a sequential job over that
 * one file, or a random job with its map, comes back to its start (fio
 * keeps the cache of a sequential job over several files, and a random
 * job without the map never wraps). */
static bool wraps_drop(const struct lb_worker *w, const struct lb_gen *g)
{
    const struct lb_job *j = w->job;

    return j->time_based && !j->direct && j->invalidate &&
           (g->random ? g->randmap : w->nfiles == 1);
}

void lb_gen_wrap_drop(struct lb_worker *w, unsigned fi)
{
    const struct lb_file *f = &w->files[fi];

    w->wf[fi].drop_due = false;
    if (f->fd >= 0)
        posix_fadvise(f->fd, (off_t)f->file_offset, (off_t)f->size, POSIX_FADV_DONTNEED);
}

/* During the ramp the files wrap: the job's loops count after it. */
int lb_gen_new_pass(struct lb_worker *w)
{
    if (++w->pass >= w->loops && !w->time_based && w->measuring)
        return 1;
    pass_reset(w);
    return 0;
}

int lb_gen_pass_end(struct lb_worker *w)
{
    if (w->gen.replay)
        return GEN_END;
    if (w->verify_writes)
        return GEN_PASS;
    return lb_gen_new_pass(w) ? GEN_END : GEN_OP;
}

static unsigned next_live(struct lb_worker *w, unsigned i)
{
    struct lb_gen *g = &w->gen;

    for (unsigned k = 0; k < g->nfiles; k++) {
        i = (i + 1) % g->nfiles;
        if (!w->wf[i].exhausted || g->exh_limit == UINT32_MAX)
            return i;
    }
    return i;
}

unsigned lb_gen_file(struct lb_worker *w)
{
    struct lb_gen *g = &w->gen;

    switch (g->fst) {
    case LB_FST_RANDOM:
        g->cur = (uint32_t)lb_rng_below(&g->rng_aux, g->nfiles);
        if (w->wf[g->cur].exhausted && g->exh_limit != UINT32_MAX)
            g->cur = next_live(w, g->cur);
        break;
    case LB_FST_SEQUENTIAL:
        if (g->cur_used && (w->wf[g->cur].pos == 0 ||
                            (w->wf[g->cur].exhausted && g->exh_limit != UINT32_MAX)))
            g->cur = next_live(w, g->cur);
        g->cur_used = true;
        break;
    default:
        g->cur = g->cur_used ? next_live(w, g->cur) : 0;
        g->cur_used = true;
        break;
    }
    return g->cur;
}

/* bssplit, as fio's get_next_buflen: an entry drawn by weight; when it
 * does not fit, the first one after it that does; when none after it
 * does, a new draw.  Drawing among the entries up to the last that fits
 * gives the same odds in one draw. */
static uint32_t bs_split(struct lb_worker *w, unsigned d, uint64_t room)
{
    const struct lb_bsw *e = w->bsw[d];
    uint32_t n = w->nbsw[d], last = n, x, i;

    for (uint32_t k = 0, below = 0; k < n; below = e[k++].upto)
        if (e[k].upto > below && e[k].bs <= room)
            last = k;
    if (last == n)
        return (uint32_t)room;
    x = (uint32_t)lb_rng_below(&w->gen.rng_aux, e[last].upto);
    for (i = 0; x >= e[i].upto; i++)
        ;
    while (e[i].bs > room || e[i].upto == (i ? e[i - 1].upto : 0))
        i++;
    return e[i].bs;
}

uint32_t lb_gen_bs(struct lb_worker *w, unsigned d, uint64_t room)
{
    struct lb_gen *g = &w->gen;
    uint64_t hi = w->bs_hi[d];

    if (room < w->bs_lo[d])
        return (uint32_t)room;
    if (w->nbsw[d])
        return bs_split(w, d, room);
    if (hi > room)
        hi = room;
    return w->bs_lo[d] + (uint32_t)(lb_rng_below(&g->rng_aux,
                          (hi - w->bs_lo[d]) / g->align + 1) * g->align);
}

/* fio's last block a random offset may start at: the smallest I/O of the
 * direction still fits after it. */
static uint64_t rand_blocks(const struct lb_worker *w, const struct lb_wfile *f, unsigned d)
{
    uint64_t a = w->gen.align, lo = w->bs_lo[d], room = f->end;

    if (lo > a && room > lo - a)
        room -= lo - a;
    return room / a ? room / a : 1;
}

static void map_wrap(struct lb_worker *w, unsigned fi)
{
    struct lb_gen *g = &w->gen;
    struct lb_wfile *f = &w->wf[fi];

    lb_blkmap_clear(&w->bmap[fi]);
    f->pos = 0;
    if (g->lfsr)
        lb_perm_init(&f->perm, f->nblocks, lb_rng_next(&g->rng_off));
    f->drop_due = g->wrap_drop;
    lb_gen_exhaust(g, f);
}

uint64_t lb_gen_mapped(struct lb_worker *w, unsigned fi, uint32_t *len, unsigned d)
{
    struct lb_gen *g = &w->gen;
    struct lb_wfile *f = &w->wf[fi];
    struct lb_blkmap *m = &w->bmap[fi];
    uint64_t b, want, got, off;

    b = g->lfsr ? lb_perm_at(&f->perm, f->pos) : lb_rng_below(&g->rng_off, rand_blocks(w, f, d));
    f->pos++;
    b = lb_blkmap_next_free(m, b);
    if (b == UINT64_MAX)                 /* not reached: a full map is cleared */
        b = 0;
    off = b * g->align;
    if (!*len)
        *len = lb_gen_bs(w, d, f->end - off);
    want = (*len + g->align - 1) / g->align;
    got = lb_blkmap_mark(m, b, want);
    if (got < want)
        *len = (uint32_t)(got * g->align);
    if (lb_blkmap_full(m))
        map_wrap(w, fi);
    return off;
}

/* percentage_random, a random I/O: as the job's others, except that a
 * file whose random map wrapped has its last positions reset at this draw,
 * where fio finds the map full and resets the file. */
static uint64_t seqmix_rand(struct lb_worker *w, unsigned fi, uint32_t *len, unsigned d)
{
    struct lb_gen *g = &w->gen;
    struct lb_wfile *f = &w->wf[fi];
    uint64_t off;

    if (f->last_reset_due) {
        memset(f->last, 0, sizeof(f->last));
        f->last_reset_due = false;
    }
    if (g->bmap) {
        off = lb_gen_mapped(w, fi, len, d);
        f->last_reset_due = f->pos == 0;
        return off;
    }
    off = lb_gen_rand(w, g, f);
    f->last_reset_due = g->randmap && f->pos == 0;
    if (!*len)
        *len = lb_gen_bs(w, d, f->end - off);
    return off;
}

/* The file is done (fio's get_next_offset failing): the pass ends with
 * it, or, where the files wrap, the file starts over. */
static int seqmix_done(struct lb_gen *g, struct lb_wfile *f)
{
    if (g->exh_limit != UINT32_MAX) {
        lb_gen_exhaust(g, f);
        return GEN_PASS;
    }
    memset(f->last, 0, sizeof(f->last));
    return GEN_OP;
}

/* percentage_random, as fio's get_next_block: a draw of the direction's
 * own generator says random or not; not, the I/O starts where the last of
 * its direction ended.  From the region's end a time_based job over one
 * file goes back to its start; past the file's end the I/O is random
 * after all; short of it, where the region ends or the smallest block no
 * longer fits, the file is done.  Sequential I/Os leave the random map
 * alone.  GEN_OP with *off and *len, or GEN_PASS when the file is done. */
int lb_gen_seqmix(struct lb_worker *w, unsigned fi, unsigned d, uint32_t *len, uint64_t *off)
{
    struct lb_gen *g = &w->gen;
    struct lb_wfile *f = &w->wf[fi];
    uint64_t p = f->last[d];
    uint32_t least = g->bs_fixed[d] ? g->bs_fixed[d] : w->bs_lo[d];

    if (g->pct_rand[d] >= 100 || lb_taus88_between(&g->seq_rng[d], 1, 100) <= g->pct_rand[d]) {
        *off = seqmix_rand(w, fi, len, d);
        return GEN_OP;
    }
    for (int tries = 0; tries < 2; tries++) {
        if (p >= f->end && w->time_based && g->nfiles == 1) {
            p = f->last[d] = 0;
            f->drop_due = w->job->invalidate && !w->job->direct;
        }
        if (p >= f->seq_end) {
            *off = seqmix_rand(w, fi, len, d);
            return GEN_OP;
        }
        if (p < f->end && f->end - p >= least) {
            *off = p;
            if (!*len)
                *len = lb_gen_bs(w, d, f->end - p);
            return GEN_OP;
        }
        if (seqmix_done(g, f) == GEN_PASS)
            return GEN_PASS;
        p = 0;
    }
    *off = seqmix_rand(w, fi, len, d);
    return GEN_OP;
}

int lb_gen_core_again(struct lb_worker *w, struct lb_io *io)
{
    return lb_gen_core(w, io);
}

/* zonemode=strided, as fio's: a zone begins at the start of the region;
 * after zonesize bytes of I/O in it the next begins zonerange + zoneskip
 * further on, or at the start again past the end.  Sequential I/O goes back
 * to the zone's start at its zonerange end; random offsets fall in the
 * zone's zonerange, the random map (without norandommap) made anew every
 * zonerange bytes.  The pass ends by its bytes, never at a file's end. */
uint64_t lb_gen_zone(struct lb_gen *g, struct lb_wfile *f, uint32_t len, unsigned d)
{
    uint64_t *pos = (g->mixed || g->trimwrite) && d == LB_WRITE ? &f->wpos : &f->pos;
    uint64_t span, off;

    if (g->zbytes >= g->zsize) {
        g->zbytes = 0;
        f->zstart += g->zstep;
        if (f->zstart >= f->end)
            f->zstart = 0;
        f->pos = f->wpos = f->zstart;
    }
    span = f->end - f->zstart < g->zrange ? f->end - f->zstart : g->zrange;
    if (g->random) {
        uint64_t nblk = span / g->align ? span / g->align : 1, blk;

        if (g->zbytes % g->zrange == 0) {
            f->zi = 0;
            if (g->randmap)
                lb_perm_init(&f->perm, nblk, lb_rng_next(&g->rng_off));
        }
        blk = g->randmap ? lb_perm_at(&f->perm, f->zi++) : lb_rng_below(&g->rng_off, nblk);
        off = f->zstart + blk * g->align;
    } else {
        if (*pos < f->zstart || *pos >= f->zstart + span || f->end - *pos < len)
            *pos = f->zstart;
        off = *pos;
        *pos += len + g->skip;
    }
    g->zbytes += len;
    return off;
}

/* custom operations */

static int op_fail(struct lb_worker *w, int err, const char *msg)
{
    struct lb_run *r = w->run;

    pthread_mutex_lock(&r->mu);
    if (!r->op_err) {
        r->op_err = err;
        snprintf(r->err, sizeof(r->err), "job '%s': %s", w->job->name, msg);
    }
    lb_run_stop_locked(r, "op source failed");
    pthread_mutex_unlock(&r->mu);
    w->st.err.count++;
    lb_err_note(&w->st.err, LB_READ, err, 1);
    lb_err_first(&w->st.err, err, LB_READ, "", 0, msg);
    w->gen_failed = true;
    return GEN_END;
}

static int op_refill(struct lb_worker *w)
{
    char msg[200] = "";
    int n = w->opsrc->next(w->opstate, w->ops, LB_OPBATCH, msg, sizeof(msg));

    if (n < 0) {
        char full[256];

        if (msg[0])
            snprintf(full, sizeof(full), "%s", msg);
        else
            snprintf(full, sizeof(full), "op source: %s", strerror(-n));
        return op_fail(w, -n, full);
    }
    w->nops = (unsigned)n;
    w->opi = 0;
    return n ? GEN_OP : GEN_END;
}

static int gen_opsrc(struct lb_worker *w, struct lb_io *io)
{
    const struct lb_op *op;
    char msg[256];

    if (w->opi == w->nops && op_refill(w) != GEN_OP)
        return GEN_END;
    op = &w->ops[w->opi++];
    w->opn++;
    if (op->file >= w->nfiles || op->ddir > LB_DATASYNC_OP ||
        (op->ddir < LB_DDIR_N && (op->len == 0 || op->len > w->buf_len))) {
        snprintf(msg, sizeof(msg), "op %llu: file %u of %u, ddir %u, len %u: out of range "
                 "(the buffers hold %zu bytes)", (unsigned long long)w->opn, op->file,
                 w->nfiles, op->ddir, op->len, w->buf_len);
        return op_fail(w, EINVAL, msg);
    }
    io->file = &w->files[op->file];
    io->offset = op->offset;
    io->len = op->ddir < LB_DDIR_N ? op->len : 0;
    io->ddir = op->ddir;
    if (op->ddir < LB_DDIR_N)
        lb_gen_seen(w, op->ddir, op->len);
    return GEN_OP;
}

/* Fills a block to be written: one header per verify_interval bytes. */
static void verify_fill(struct lb_worker *w, struct lb_io *io)
{
    uint32_t step = w->vchunk && w->vchunk < io->len ? w->vchunk : io->len;

    for (uint32_t at = 0; at < io->len; at += step) {
        uint32_t n = io->len - at < step ? io->len - at : step;

        lb_verify_fill(&w->vcfg, (char *)io->buf + at, n, io->offset + at, w->pass, w->vseed);
    }
}

/* The verify replay of a pass with the block map: the blocks it found
 * done are gone from the map by then, so the operations are kept as they
 * were generated, from the last replay (or the pass's start) on. */
static bool rec_kept(const struct lb_worker *w)
{
    return w->gen.bmap && w->verify_writes;
}

static int rec_add(struct lb_worker *w, const struct lb_io *io)
{
    struct lb_genrec *rc;

    if (w->rec_replayed || !w->rec_n) {
        w->rec_replayed = false;
        w->rec_n = 0;
        w->rec_base = w->gen.pass_ops - 1;
    }
    if (w->rec_n == w->rec_cap) {
        uint64_t cap = w->rec_cap ? w->rec_cap * 2 : 1024;

        rc = realloc(w->rec, cap * sizeof(*rc));
        if (!rc)
            return -ENOMEM;
        w->rec = rc;
        w->rec_cap = cap;
    }
    rc = &w->rec[w->rec_n++];
    rc->offset = io->offset;
    rc->len = io->len;
    rc->file = (uint32_t)(io->file - w->files);
    rc->ddir = io->ddir;
    return 0;
}

static int rec_replay(struct lb_worker *w, struct lb_io *io)
{
    struct lb_gen *g = &w->gen;
    uint64_t k = g->pass_ops - w->rec_base;
    const struct lb_genrec *rc;

    if (g->pass_ops < w->rec_base || k >= w->rec_n)
        return GEN_END;
    rc = &w->rec[k];
    g->pass_ops++;
    w->rec_replayed = true;
    io->file = &w->files[rc->file];
    io->offset = rc->offset;
    io->len = rc->len;
    io->ddir = rc->ddir;
    return GEN_OP;
}

static int gen_slow(struct lb_worker *w, struct lb_io *io)
{
    struct lb_gen *g = &w->gen;

    if (w->opsrc)
        return gen_opsrc(w, io);
    for (;;) {
        int r;

        if (g->replay) {
            if (!g->replay_left)
                return GEN_END;
            g->replay_left--;
        } else if (w->backlog && w->backlog_n >= w->backlog) {
            w->backlog_due = true;           /* lb_worker_io checks them */
            return GEN_PASS;
        }
        r = g->replay && rec_kept(w) ? rec_replay(w, io) : lb_gen_core(w, io);
        if (r != GEN_OP)
            return r;
        if (!g->replay && rec_kept(w) && rec_add(w, io))
            return op_fail(w, ENOMEM, "out of memory keeping the operations to verify");
        if (g->convert) {
            if (io->ddir != LB_WRITE)
                continue;
            io->ddir = LB_READ;
            lb_gen_seen(w, LB_READ, io->len);
            return GEN_OP;
        }
        if (io->ddir == LB_WRITE && w->verify_writes) {
            verify_fill(w, io);
            w->backlog_n++;
        }
        return GEN_OP;
    }
}

/* Files opened at first use (openfiles.c) take this path too. */
int lb_gen_next_slow(struct lb_worker *w, struct lb_io *io)
{
    int r = gen_slow(w, io);

    if (w->gen.wfill && io->ddir == LB_WRITE && r == GEN_OP)
        lb_bufs_write(w->fill, io->buf, io->offset, io->len);
    return r == GEN_OP && w->of ? lb_of_use(w, io) : r;
}
