/*
 * A training result's figures, its transport between processes and the
 * exact merge of the results of ranks that trained together (one shard of
 * the dataset each, see train.h).  The words are this host's own: ranks
 * of one run share the build, so no byte order or version is negotiated
 * beyond a tag that catches a mismatch.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/hist.h"
#include "train/train.h"

#define PACK_TAG 0x4c4254524e320000ull  /* "LBTRN2" */
#define PACK_HEAD 4                     /* tag, epochs, readers, evaluations */
#define PACK_SCALARS 22
#define PACK_EPOCH 5
#define PACK_EVAL 8
#define PACK_READER 2
#define PACK_HISTS 3

/* The bytes DLIO's "MB/s" multiplies its samples/s by: its record_length
 * (record_length_bytes as configured, never the sizes drawn from it), so
 * a laid-out dataset counts the mean of sample_size; an existing dataset,
 * which has no configured size, the mean of the samples' own sizes. */
static double record_length(const struct lb_train_cfg *c, const struct lb_train_result *res)
{
    const struct lb_train_value *v = &c->sample_size;
    if (!c->paths)
        return v->dist == LB_TRAIN_UNIFORM ? ((double)v->a + (double)v->b) / 2 : (double)v->a;
    return res->sample_n ? (double)res->sample_bytes / (double)res->sample_n : 0;
}

/* DLIO's run figures: the mean and population stdev over epochs. */
static void figures_dlio(const struct lb_train_cfg *c, struct lb_train_result *res)
{
    double au = 0, var = 0, tp = 0;
    uint32_t n = res->nepochs;
    for (uint32_t e = 0; e < n; e++) {
        au += res->epochs[e].au;
        tp += res->epochs[e].dlio_samples_per_s;
    }
    au = n ? au / n : 0;
    for (uint32_t e = 0; e < n; e++)
        var += (res->epochs[e].au - au) * (res->epochs[e].au - au);
    res->au = au;
    res->au_stdev = n ? sqrt(var / n) : 0;
    res->dlio_samples_per_s = n ? tp / n : 0;
    res->dlio_mib_per_s = res->dlio_samples_per_s * record_length(c, res) / 1048576.0;
}

/* DLIO's eval figures over the evaluations: the mean and population
 * stdev of the AU, the mean throughput, that times record_length. */
static void figures_eval(const struct lb_train_cfg *c, struct lb_train_result *res)
{
    double au = 0, var = 0, tp = 0;
    uint32_t n = res->nevals;
    for (uint32_t i = 0; i < n; i++) {
        au += res->evals[i].au;
        tp += res->evals[i].dlio_samples_per_s;
    }
    au = n ? au / n : 0;
    for (uint32_t i = 0; i < n; i++)
        var += (res->evals[i].au - au) * (res->evals[i].au - au);
    res->eval_au = au;
    res->eval_au_stdev = n ? sqrt(var / n) : 0;
    res->eval_samples_per_s = n ? tp / n : 0;
    res->eval_mib_per_s = res->eval_samples_per_s * record_length(c, res) / 1048576.0;
}

void lb_train_figures(const struct lb_train_cfg *c, struct lb_train_result *res)
{
    res->time_ns = 0;
    for (uint32_t e = 0; e < res->nepochs; e++)
        res->time_ns += res->epochs[e].time_ns;
    double s = res->time_ns / 1e9;
    res->samples_per_s = s > 0 ? res->samples / s : 0;
    res->bw_bytes = s > 0 ? res->bytes / s : 0;
    uint64_t busy = res->compute_ns + res->wait_ns;
    res->au_steps = busy ? (double)res->compute_ns / busy : 0;
    figures_dlio(c, res);
    figures_eval(c, res);
}

static uint64_t dbits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static double bitsd(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* The scalars, in one order for both directions: u64 fields, then doubles. */
struct scalars {
    uint64_t *u[14];
    double *d[8];
};

static struct scalars scalars_of(struct lb_train_result *r)
{
    return (struct scalars){
        {&r->samples, &r->bytes, &r->steps, &r->time_ns, &r->compute_ns, &r->wait_ns,
         &r->checkpoints, &r->laid_out_files, &r->laid_out_bytes, &r->layout_ns,
         &r->cpu.usr_ns, &r->cpu.sys_ns, &r->sample_bytes, &r->sample_n},
        {&r->samples_per_s, &r->bw_bytes, &r->au, &r->au_stdev, &r->au_steps,
         &r->dlio_samples_per_s, &r->dlio_mib_per_s, NULL},
    };
}

static size_t pack_words(uint32_t nepochs, uint32_t nreaders, uint32_t nevals)
{
    return PACK_HEAD + PACK_SCALARS + (size_t)nepochs * PACK_EPOCH +
           (size_t)nevals * PACK_EVAL +
           (size_t)nreaders * PACK_READER + PACK_HISTS * (size_t)LB_HIST_FLAT;
}

int lb_train_pack(const struct lb_train_result *res, uint64_t **words, size_t *n)
{
    struct lb_train_result *r = (struct lb_train_result *)res;   /* read only */
    size_t len = pack_words(r->nepochs, r->nreaders, r->nevals);
    uint64_t *w = calloc(len, sizeof *w), *p = w;
    if (!w)
        return -ENOMEM;
    *p++ = PACK_TAG;
    *p++ = r->nepochs;
    *p++ = r->nreaders;
    *p++ = r->nevals;
    struct scalars sc = scalars_of(r);
    for (int i = 0; i < 14; i++)
        p[i] = *sc.u[i];
    for (int i = 0; sc.d[i]; i++)
        p[14 + i] = dbits(*sc.d[i]);
    p[21] = (uint64_t)r->stopped;
    p += PACK_SCALARS;
    for (uint32_t e = 0; e < r->nepochs; e++, p += PACK_EPOCH) {
        const struct lb_train_epoch *ep = &r->epochs[e];
        p[0] = ep->start_ns;
        p[1] = ep->time_ns;
        p[2] = ep->samples;
        p[3] = dbits(ep->au);
        p[4] = dbits(ep->dlio_samples_per_s);
    }
    for (uint32_t i = 0; i < r->nevals; i++, p += PACK_EVAL) {
        const struct lb_train_eval *ev = &r->evals[i];
        p[0] = ev->epoch;
        p[1] = ev->start_ns;
        p[2] = ev->time_ns;
        p[3] = ev->samples;
        p[4] = ev->bytes;
        p[5] = ev->steps;
        p[6] = dbits(ev->au);
        p[7] = dbits(ev->dlio_samples_per_s);
    }
    for (uint32_t i = 0; i < r->nreaders; i++, p += PACK_READER) {
        p[0] = r->reader_cpu[i].usr_ns;
        p[1] = r->reader_cpu[i].sys_ns;
    }
    const struct lb_hist *h[PACK_HISTS] = {r->batch_wait, r->sample_read, r->checkpoint};
    for (int i = 0; i < PACK_HISTS; i++, p += LB_HIST_FLAT)
        lb_hist_export(h[i], p);
    *words = w;
    *n = len;
    return 0;
}

/* An empty result with its histograms and room for the epochs, readers
 * and evaluations. */
static int result_new(struct lb_train_result *r, uint32_t nepochs, uint32_t nreaders,
                      uint32_t nevals)
{
    memset(r, 0, sizeof *r);
    r->epochs = calloc(nepochs ? nepochs : 1, sizeof *r->epochs);
    r->evals = calloc(nevals ? nevals : 1, sizeof *r->evals);
    r->reader_cpu = calloc(nreaders ? nreaders : 1, sizeof *r->reader_cpu);
    if (!r->epochs || !r->evals || !r->reader_cpu || lb_hist_new(&r->batch_wait) < 0 ||
        lb_hist_new(&r->sample_read) < 0 || lb_hist_new(&r->checkpoint) < 0)
        return -ENOMEM;
    r->nepochs = nepochs;
    r->nreaders = nreaders;
    r->nevals = nevals;
    return 0;
}

int lb_train_unpack(const uint64_t *w, size_t n, struct lb_train_result *r)
{
    memset(r, 0, sizeof *r);
    if (n < PACK_HEAD || w[0] != PACK_TAG || w[1] > UINT32_MAX || w[2] > UINT32_MAX ||
        w[3] > UINT32_MAX || n != pack_words((uint32_t)w[1], (uint32_t)w[2], (uint32_t)w[3]))
        return -EINVAL;
    int rc = result_new(r, (uint32_t)w[1], (uint32_t)w[2], (uint32_t)w[3]);
    if (rc < 0)
        return rc;
    const uint64_t *p = w + PACK_HEAD;
    struct scalars sc = scalars_of(r);
    for (int i = 0; i < 14; i++)
        *sc.u[i] = p[i];
    for (int i = 0; sc.d[i]; i++)
        *sc.d[i] = bitsd(p[14 + i]);
    r->stopped = (int)p[21];
    p += PACK_SCALARS;
    for (uint32_t e = 0; e < r->nepochs; e++, p += PACK_EPOCH) {
        struct lb_train_epoch *ep = &r->epochs[e];
        ep->start_ns = p[0];
        ep->time_ns = p[1];
        ep->samples = p[2];
        ep->au = bitsd(p[3]);
        ep->dlio_samples_per_s = bitsd(p[4]);
    }
    for (uint32_t i = 0; i < r->nevals; i++, p += PACK_EVAL) {
        struct lb_train_eval *ev = &r->evals[i];
        ev->epoch = (uint32_t)p[0];
        ev->start_ns = p[1];
        ev->time_ns = p[2];
        ev->samples = p[3];
        ev->bytes = p[4];
        ev->steps = p[5];
        ev->au = bitsd(p[6]);
        ev->dlio_samples_per_s = bitsd(p[7]);
    }
    for (uint32_t i = 0; i < r->nreaders; i++, p += PACK_READER) {
        r->reader_cpu[i].usr_ns = p[0];
        r->reader_cpu[i].sys_ns = p[1];
    }
    struct lb_hist *h[PACK_HISTS] = {r->batch_wait, r->sample_read, r->checkpoint};
    for (int i = 0; i < PACK_HISTS && rc == 0; i++, p += LB_HIST_FLAT)
        rc = lb_hist_import_add(h[i], p);
    return rc;
}

/* Epoch e over the ranks: the slowest rank's time, DLIO's AU the mean
 * over all accelerators, DLIO's throughput the sum. */
static void merge_epoch(const struct lb_train_result *parts, size_t n, uint32_t e,
                        struct lb_train_epoch *ep)
{
    double au = 0;
    memset(ep, 0, sizeof *ep);
    ep->start_ns = parts[0].epochs[e].start_ns;
    for (size_t i = 0; i < n; i++) {
        const struct lb_train_epoch *x = &parts[i].epochs[e];
        ep->time_ns = x->time_ns > ep->time_ns ? x->time_ns : ep->time_ns;
        ep->samples += x->samples;
        au += x->au;
        ep->dlio_samples_per_s += x->dlio_samples_per_s;
    }
    ep->au = au / (double)n;
}

/* Evaluation i over the ranks, as an epoch: the slowest rank's time,
 * counts summed, the mean AU (DLIO's per-rank figures over all
 * accelerators) and the summed throughput. */
static void merge_eval(const struct lb_train_result *parts, size_t n, uint32_t i,
                       struct lb_train_eval *ev)
{
    double au = 0;
    memset(ev, 0, sizeof *ev);
    ev->epoch = parts[0].evals[i].epoch;
    ev->start_ns = parts[0].evals[i].start_ns;
    for (size_t k = 0; k < n; k++) {
        const struct lb_train_eval *x = &parts[k].evals[i];
        ev->time_ns = x->time_ns > ev->time_ns ? x->time_ns : ev->time_ns;
        ev->samples += x->samples;
        ev->bytes += x->bytes;
        ev->steps += x->steps;
        au += x->au;
        ev->dlio_samples_per_s += x->dlio_samples_per_s;
    }
    ev->au = au / (double)n;
}

static int merge_counts(struct lb_train_result *m, const struct lb_train_result *x,
                        uint32_t *reader)
{
    m->samples += x->samples;
    m->bytes += x->bytes;
    m->steps += x->steps;
    m->compute_ns += x->compute_ns;
    m->wait_ns += x->wait_ns;
    m->checkpoints = x->checkpoints > m->checkpoints ? x->checkpoints : m->checkpoints;
    m->laid_out_files += x->laid_out_files;
    m->laid_out_bytes += x->laid_out_bytes;
    m->layout_ns = x->layout_ns > m->layout_ns ? x->layout_ns : m->layout_ns;
    m->cpu.usr_ns += x->cpu.usr_ns;
    m->cpu.sys_ns += x->cpu.sys_ns;
    m->sample_bytes += x->sample_bytes;
    m->sample_n += x->sample_n;
    m->stopped |= x->stopped;
    for (uint32_t i = 0; i < x->nreaders; i++)
        m->reader_cpu[(*reader)++] = x->reader_cpu[i];
    if (lb_hist_add(m->batch_wait, x->batch_wait) < 0 ||
        lb_hist_add(m->sample_read, x->sample_read) < 0 ||
        lb_hist_add(m->checkpoint, x->checkpoint) < 0)
        return -ENOMEM;
    return 0;
}

int lb_train_merge(const struct lb_train_cfg *c, const struct lb_train_result *parts,
                   size_t n, struct lb_train_result *m)
{
    uint32_t nepochs = n ? parts[0].nepochs : 0, nreaders = 0, reader = 0;
    uint32_t nevals = n ? parts[0].nevals : 0;
    for (size_t i = 0; i < n; i++) {
        nepochs = parts[i].nepochs < nepochs ? parts[i].nepochs : nepochs;
        nevals = parts[i].nevals < nevals ? parts[i].nevals : nevals;
        nreaders += parts[i].nreaders;
    }
    int rc = result_new(m, nepochs, nreaders, nevals);
    for (uint32_t e = 0; rc == 0 && e < nepochs; e++)
        merge_epoch(parts, n, e, &m->epochs[e]);
    for (uint32_t i = 0; rc == 0 && i < nevals; i++)
        merge_eval(parts, n, i, &m->evals[i]);
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = merge_counts(m, &parts[i], &reader);
    if (rc == 0)
        lb_train_figures(c, m);
    return rc;
}
