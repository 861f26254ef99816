/*
 * lb_stats: the results of one clone, one job (its clones merged) or the
 * whole run.  Counters add up, histograms merge exactly, runtime is the
 * longest, and of the errors the first one seen is kept with its place.
 * Also the small error-recording helpers the workers use (stats_int.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "job/prio.h"
#include "run/stats.h"
#include "run/stats_int.h"

int lb_stats_init(struct lb_stats *s)
{
    memset(s, 0, sizeof(*s));
    return lb_stats_fill(s);
}

int lb_stats_fill(struct lb_stats *s)
{
    for (int d = 0; d < LB_DDIR_N; d++) {
        struct lb_dir_stats *ds = &s->dir[d];

        if ((d == 0 && !s->sync_lat && lb_hist_new(&s->sync_lat)) ||
            (!ds->slat && lb_hist_new(&ds->slat)) ||
            (!ds->clat && lb_hist_new(&ds->clat)) ||
            (!ds->lat && lb_hist_new(&ds->lat)))
            return -ENOMEM;
    }
    return 0;
}

static void prio_release(struct lb_dir_stats *ds)
{
    for (uint32_t i = 0; i < ds->nprio; i++) {
        lb_hist_free(ds->prio[i].clat);
        lb_hist_free(ds->prio[i].lat);
    }
    free(ds->prio);
    ds->prio = NULL;
    ds->nprio = 0;
}

void lb_stats_release(struct lb_stats *s)
{
    if (!s)
        return;
    for (int d = 0; d < LB_DDIR_N; d++) {
        prio_release(&s->dir[d]);
        lb_hist_free(s->dir[d].slat);
        lb_hist_free(s->dir[d].clat);
        lb_hist_free(s->dir[d].lat);
        lb_hist_free(s->dir[d].sched);
        s->dir[d].slat = s->dir[d].clat = s->dir[d].lat = s->dir[d].sched = NULL;
    }
    lb_hist_free(s->sync_lat);
    s->sync_lat = NULL;
}

static int hist_merge(struct lb_hist **dst, const struct lb_hist *src)
{
    if (!src)
        return 0;
    if (!*dst && lb_hist_new(dst))
        return -ENOMEM;
    return lb_hist_add(*dst, src);
}

/* ds's slot of ioprio, made when missing; NULL on ENOMEM. */
static struct lb_prio_lat *prio_slot(struct lb_dir_stats *ds, unsigned ioprio)
{
    struct lb_prio_lat *p;

    for (uint32_t i = 0; i < ds->nprio; i++)
        if (ds->prio[i].ioprio == ioprio)
            return &ds->prio[i];
    if (!ds->prio && !(ds->prio = calloc(LB_IOPRIO_SLOTS, sizeof(*ds->prio))))
        return NULL;
    if (ds->nprio == LB_IOPRIO_SLOTS)
        return NULL;              /* more priorities than the kernel has */
    p = &ds->prio[ds->nprio];
    if (lb_hist_new(&p->clat) || lb_hist_new(&p->lat)) {
        lb_hist_free(p->clat);
        p->clat = NULL;
        return NULL;
    }
    p->ioprio = ioprio;
    ds->nprio++;
    return p;
}

int lb_stats_prio_add(struct lb_dir_stats *ds, unsigned ioprio)
{
    return prio_slot(ds, ioprio) ? 0 : -ENOMEM;
}

int lb_stats_prio_record(struct lb_dir_stats *ds, unsigned ioprio, uint64_t clat,
                         uint64_t lat)
{
    struct lb_prio_lat *p = prio_slot(ds, ioprio);

    if (!p)
        return -ENOMEM;
    lb_hist_record(p->clat, clat);
    lb_hist_record(p->lat, lat);
    return 0;
}

static int prio_merge(struct lb_dir_stats *d, const struct lb_dir_stats *s)
{
    for (uint32_t i = 0; i < s->nprio; i++) {
        struct lb_prio_lat *p = prio_slot(d, s->prio[i].ioprio);

        if (!p || lb_hist_add(p->clat, s->prio[i].clat) || lb_hist_add(p->lat, s->prio[i].lat))
            return -ENOMEM;
    }
    return 0;
}

void lb_samples_add(struct lb_samples *s, uint64_t v)
{
    double delta = (double)v - s->mean;

    if (!s->n || v < s->min)
        s->min = v;
    if (v > s->max)
        s->max = v;
    s->mean += delta / (double)(s->n + 1);
    s->S += delta * ((double)v - s->mean);
    s->n++;
}

/* fio's sum_stat with pure_sum: every figure added */
static void samples_merge(struct lb_samples *d, const struct lb_samples *s)
{
    if (!s->n)
        return;
    if (!d->n) {
        *d = *s;
        return;
    }
    d->min += s->min;
    d->max += s->max;
    d->n += s->n;
    d->mean += s->mean;
    d->S += s->S;
}

static int dir_merge(struct lb_dir_stats *d, const struct lb_dir_stats *s)
{
    samples_merge(&d->bw, &s->bw);
    samples_merge(&d->iops, &s->iops);
    d->ios += s->ios;
    d->bytes += s->bytes;
    d->short_ios += s->short_ios;
    d->errors += s->errors;
    if (s->bs_min && (!d->bs_min || s->bs_min < d->bs_min))
        d->bs_min = s->bs_min;
    if (s->bs_max > d->bs_max)
        d->bs_max = s->bs_max;
    if (hist_merge(&d->slat, s->slat) || hist_merge(&d->clat, s->clat) ||
        hist_merge(&d->lat, s->lat) || hist_merge(&d->sched, s->sched) ||
        prio_merge(d, s))
        return -ENOMEM;
    return 0;
}

void lb_err_note(struct lb_err_stats *e, int ddir, int err, uint64_t n)
{
    for (int i = 0; i < LB_ERRNO_SLOTS; i++) {
        if (e->by_errno[i].count && (e->by_errno[i].ddir != ddir || e->by_errno[i].err != err))
            continue;
        e->by_errno[i].ddir = ddir;
        e->by_errno[i].err = err;
        e->by_errno[i].count += n;
        return;
    }
}

void lb_err_first(struct lb_err_stats *e, int err, int ddir, const char *path,
                  uint64_t offset, const char *msg)
{
    if (e->first_errno || e->first_msg[0])
        return;
    e->first_errno = err;
    e->first_ddir = ddir;
    e->first_offset = offset;
    snprintf(e->first_file, sizeof(e->first_file), "%s", path ? path : "");
    snprintf(e->first_msg, sizeof(e->first_msg), "%s", msg ? msg : "");
}

void lb_err_merge(struct lb_err_stats *d, const struct lb_err_stats *s)
{
    d->count += s->count;
    d->verify_errors += s->verify_errors;
    d->timeouts += s->timeouts;
    for (int i = 0; i < LB_ERRNO_SLOTS; i++)
        if (s->by_errno[i].count)
            lb_err_note(d, s->by_errno[i].ddir, s->by_errno[i].err, s->by_errno[i].count);
    if (!d->first_errno && !d->first_msg[0] && (s->first_errno || s->first_msg[0])) {
        d->first_errno = s->first_errno;
        d->first_ddir = s->first_ddir;
        d->first_offset = s->first_offset;
        memcpy(d->first_file, s->first_file, sizeof(d->first_file));
        memcpy(d->first_msg, s->first_msg, sizeof(d->first_msg));
    }
}

int lb_stats_merge(struct lb_stats *dst, const struct lb_stats *src)
{
    int ret = 0;

    for (int d = 0; d < LB_DDIR_N; d++)
        if (dir_merge(&dst->dir[d], &src->dir[d]))
            ret = -ENOMEM;
    if (src->runtime_ns > dst->runtime_ns)
        dst->runtime_ns = src->runtime_ns;
    dst->usr_ns += src->usr_ns;
    dst->sys_ns += src->sys_ns;
    dst->ctx += src->ctx;
    dst->majf += src->majf;
    dst->minf += src->minf;
    dst->mem_bytes += src->mem_bytes;
    for (int i = 0; i < 7; i++) {
        dst->iodepth_level[i] += src->iodepth_level[i];
        dst->iodepth_submit[i] += src->iodepth_submit[i];
        dst->iodepth_complete[i] += src->iodepth_complete[i];
    }
    dst->fsyncs += src->fsyncs;
    if (hist_merge(&dst->sync_lat, src->sync_lat))
        ret = -ENOMEM;
    lb_err_merge(&dst->err, &src->err);
    dst->clones += src->clones;
    return ret;
}
