/*
 * Per-interval samples: the workers' side (roll-over, hand-over) and the
 * main thread's (merging, handing intervals out, the I/O watchdog).
 *
 * A worker records completions into its own interval histograms (clat,
 * and lat for an async engine; a sync engine's lat is its clat, added as
 * such when the node is merged; under a rate cap the open-loop latency).  When
 * the clock passes the boundary it adds them to its cumulative ones and
 * swaps them into a node (recycled, so no allocation once the run is
 * going) that it pushes on the run's inbox under the run's mutex, together
 * with "published = k + 1".  Only the main thread merges nodes into the
 * run's lb_interval k (so an interval handed out is never written by
 * another thread while the caller reads it); late nodes are merged into k
 * afterwards.  Interval k is handed out once every live worker published
 * it, or one interval after its boundary at the latest.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/clock.h"
#include "run/interval.h"
#include "run/run_state.h"
#include "run/stats_int.h"

static bool covers(const struct lb_worker *w, uint32_t k)
{
    return w->done || w->published > k;
}

/* With r->mu held: the worker's coverage changes through fn. */
static void coverage_update(struct lb_run *r, struct lb_worker *w, uint32_t published, bool done)
{
    bool before = covers(w, r->wait_k);

    if (published > w->published)
        w->published = published;
    if (done && !w->done) {
        w->done = true;
        r->ndone++;
        pthread_cond_signal(&r->cv_main);
    }
    if (!before && covers(w, r->wait_k) && r->missing && --r->missing == 0)
        pthread_cond_signal(&r->cv_main);
}

void lb_iv_skip_to(struct lb_worker *w, uint32_t k)
{
    struct lb_run *r = w->run;

    pthread_mutex_lock(&r->mu);
    coverage_update(r, w, k, false);
    pthread_mutex_unlock(&r->mu);
}

void lb_worker_done(struct lb_worker *w)
{
    struct lb_run *r = w->run;

    pthread_mutex_lock(&r->mu);
    coverage_update(r, w, w->published, true);
    pthread_mutex_unlock(&r->mu);
}

static void node_free(struct lb_ivnode *n)
{
    for (int d = 0; d < LB_DDIR_N; d++) {
        lb_hist_free(n->clat[d]);
        lb_hist_free(n->lat[d]);
        lb_hist_free(n->sched[d]);
    }
    free(n);
}

void lb_iv_nodes_free(struct lb_ivnode *n)
{
    while (n) {
        struct lb_ivnode *next = n->next;

        node_free(n);
        n = next;
    }
}

static struct lb_ivnode *node_take(struct lb_worker *w)
{
    struct lb_run *r = w->run;
    struct lb_ivnode *n;

    pthread_mutex_lock(&r->mu);
    n = w->spare;
    if (n)
        w->spare = n->next;
    pthread_mutex_unlock(&r->mu);
    if (n)
        return n;
    n = calloc(1, sizeof(*n));
    if (!n)
        return NULL;
    for (int d = 0; d < LB_DDIR_N; d++)
        if ((w->iv_clat[d] && lb_hist_new(&n->clat[d])) ||
            (w->iv_lat[d] && lb_hist_new(&n->lat[d])) ||
            (w->iv_sched[d] && lb_hist_new(&n->sched[d]))) {
            node_free(n);
            return NULL;
        }
    return n;
}

static void to_cumulative(struct lb_worker *w)
{
    for (int d = 0; d < LB_DDIR_N; d++) {
        w->st.dir[d].ios += w->iv_ios[d];
        w->st.dir[d].bytes += w->iv_bytes[d];
        if (w->iv_clat[d] && lb_hist_count(w->iv_clat[d]))
            lb_hist_add(w->st.dir[d].clat, w->iv_clat[d]);
        if (w->iv_lat[d] && lb_hist_count(w->iv_lat[d]))
            lb_hist_add(w->st.dir[d].lat, w->iv_lat[d]);
        if (w->iv_sched[d] && lb_hist_count(w->iv_sched[d]))
            lb_hist_add(w->st.dir[d].sched, w->iv_sched[d]);
    }
}

static void node_fill(struct lb_worker *w, struct lb_ivnode *n, uint64_t t_end)
{
    n->w = w;
    n->index = w->iv_k;
    n->end_ns = t_end > w->t0 ? t_end - w->t0 : 0;
    for (int d = 0; d < LB_DDIR_N; d++) {
        struct lb_hist *h = n->clat[d], *l = n->lat[d], *s = n->sched[d];

        n->ios[d] = w->iv_ios[d];
        n->bytes[d] = w->iv_bytes[d];
        n->clat[d] = w->iv_clat[d];
        w->iv_clat[d] = h;
        n->lat[d] = w->iv_lat[d];
        w->iv_lat[d] = l;
        n->sched[d] = w->iv_sched[d];
        w->iv_sched[d] = s;
    }
}

void lb_iv_publish(struct lb_worker *w, uint64_t t_end, bool final)
{
    struct lb_run *r = w->run;
    struct lb_ivnode *n = NULL;

    to_cumulative(w);
    if (w->iv_ios[LB_READ] | w->iv_ios[LB_WRITE] | w->iv_ios[LB_TRIM])
        n = node_take(w);
    if (n)
        node_fill(w, n, t_end);
    pthread_mutex_lock(&r->mu);
    if (n) {
        n->next = r->inbox;
        r->inbox = n;
    }
    if (!final)
        coverage_update(r, w, w->iv_k + 1, false);
    pthread_mutex_unlock(&r->mu);
    for (int d = 0; d < LB_DDIR_N; d++) {
        w->iv_ios[d] = w->iv_bytes[d] = 0;
        if (!n && w->iv_clat[d] && lb_hist_count(w->iv_clat[d]))
            lb_hist_reset(w->iv_clat[d]);
        if (!n && w->iv_lat[d] && lb_hist_count(w->iv_lat[d]))
            lb_hist_reset(w->iv_lat[d]);
        if (!n && w->iv_sched[d] && lb_hist_count(w->iv_sched[d]))
            lb_hist_reset(w->iv_sched[d]);
    }
    if (!final) {
        w->iv_k++;
        w->iv_next += w->iv_len;
    }
}

/* main thread, r->mu held */

static struct lb_interval *iv_at(struct lb_run *r, uint32_t k)
{
    while (r->niv <= k) {
        struct lb_interval *iv;

        if (r->niv == r->ivcap) {
            size_t cap = r->ivcap ? r->ivcap * 2 : 64;
            struct lb_interval **v = realloc(r->iv, cap * sizeof(*v));

            if (!v)
                return NULL;
            r->iv = v;
            r->ivcap = cap;
        }
        iv = calloc(1, sizeof(*iv));
        if (!iv)
            return NULL;
        iv->index = (uint32_t)r->niv;
        iv->start_ns = r->niv * r->iv_len;
        if (r->njobs > 1) {
            iv->job_ios = calloc(r->njobs * LB_DDIR_N, sizeof(uint64_t));
            iv->job_bytes = calloc(r->njobs * LB_DDIR_N, sizeof(uint64_t));
            iv->njobs = (uint32_t)r->njobs;
            if (!iv->job_ios || !iv->job_bytes) {
                free(iv->job_ios);
                free(iv->job_bytes);
                free(iv);
                return NULL;
            }
        }
        for (int d = 0; d < LB_DDIR_N; d++)
            if (lb_hist_new(&iv->clat[d]) || lb_hist_new(&iv->lat[d])) {
                for (int e = 0; e <= d; e++) {
                    lb_hist_free(iv->clat[e]);
                    lb_hist_free(iv->lat[e]);
                }
                free(iv->job_ios);
                free(iv->job_bytes);
                free(iv);
                return NULL;
            }
        r->iv[r->niv++] = iv;
    }
    return r->iv[k];
}

static void node_merge(struct lb_run *r, struct lb_ivnode *n)
{
    struct lb_interval *iv = iv_at(r, n->index);
    uint64_t cap = (uint64_t)(n->index + 1) * r->iv_len;

    for (int d = 0; d < LB_DDIR_N && iv; d++) {
        iv->ios[d] += n->ios[d];
        iv->bytes[d] += n->bytes[d];
        if (iv->job_ios) {
            iv->job_ios[n->w->job_index * LB_DDIR_N + d] += n->ios[d];
            iv->job_bytes[n->w->job_index * LB_DDIR_N + d] += n->bytes[d];
        }
        if (n->clat[d])
            lb_hist_add(iv->clat[d], n->clat[d]);
        if (n->lat[d] || n->clat[d])     /* a sync engine's lat is its clat */
            lb_hist_add(iv->lat[d], n->lat[d] ? n->lat[d] : n->clat[d]);
        if (n->sched[d] && (iv->sched[d] || lb_hist_new(&iv->sched[d]) == 0))
            lb_hist_add(iv->sched[d], n->sched[d]);
    }
    if (iv && n->end_ns > iv->end_ns)
        iv->end_ns = n->end_ns < cap ? n->end_ns : cap;
    for (int d = 0; d < LB_DDIR_N; d++) {
        if (n->clat[d])
            lb_hist_reset(n->clat[d]);
        if (n->lat[d])
            lb_hist_reset(n->lat[d]);
        if (n->sched[d])
            lb_hist_reset(n->sched[d]);
    }
    n->next = n->w->spare;
    n->w->spare = n;
}

void lb_iv_drain(struct lb_run *r)
{
    struct lb_ivnode *n = r->inbox;

    r->inbox = NULL;
    while (n) {
        struct lb_ivnode *next = n->next;

        node_merge(r, n);
        n = next;
    }
}

static void recount(struct lb_run *r, uint32_t k)
{
    r->wait_k = k;
    r->missing = 0;
    for (size_t i = 0; i < r->nstarted; i++)
        r->missing += !covers(r->w[i], k);
}

/* 1: *out is the next interval; 0: not yet; 2: the run is over; -ENOMEM. */
int lb_iv_next(struct lb_run *r, uint64_t now, const struct lb_interval **out)
{
    uint32_t k = (uint32_t)r->next_out;
    struct lb_interval *iv;

    if (lb_run_over(r, now)) {
        if (k >= r->niv)
            return 2;
    } else {
        if (now < r->t0 + (uint64_t)(k + 1) * r->iv_len)
            return 0;
        if (r->wait_k != k)
            recount(r, k);
        if (r->missing && now < r->t0 + (uint64_t)(k + 2) * r->iv_len)
            return 0;
    }
    iv = iv_at(r, k);
    if (!iv)
        return -ENOMEM;
    if (!iv->end_ns)
        iv->end_ns = (uint64_t)(k + 1) * r->iv_len;
    r->next_out++;
    *out = iv;
    return 1;
}

void lb_iv_free_all(struct lb_run *r)
{
    lb_iv_nodes_free(r->inbox);
    r->inbox = NULL;
    for (size_t i = 0; i < r->niv; i++) {
        for (int d = 0; d < LB_DDIR_N; d++) {
            lb_hist_free(r->iv[i]->clat[d]);
            lb_hist_free(r->iv[i]->lat[d]);
            lb_hist_free(r->iv[i]->sched[d]);
        }
        free(r->iv[i]->job_ios);
        free(r->iv[i]->job_bytes);
        free(r->iv[i]);
    }
    free(r->iv);
    r->iv = NULL;
    r->niv = r->ivcap = 0;
}

/* The I/O watchdog: an I/O outstanding longer than io_timeout stops the
 * run and is recorded (main thread only writes w->tmo). */
static void timeout_hit(struct lb_run *r, struct lb_worker *w, uint64_t start, uint64_t now)
{
    uint64_t off = atomic_load_explicit(&w->pub_off, memory_order_relaxed);
    uint32_t fi = atomic_load_explicit(&w->pub_file, memory_order_relaxed);
    uint32_t dd = atomic_load_explicit(&w->pub_ddir, memory_order_relaxed);
    const char *path = fi < w->nfiles ? w->files[fi].path : "?";
    char msg[256];

    w->tmo_seen = start;
    w->tmo.timeouts++;
    w->tmo.count++;
    lb_err_note(&w->tmo, dd < LB_DDIR_N ? (int)dd : LB_WRITE, ETIMEDOUT, 1);
    snprintf(msg, sizeof(msg), "I/O stuck for %.1f s: %s of %s at offset %llu",
             (double)(now - start) / 1e9, lb_ddir_name(dd < LB_IO_OPS ? dd : LB_READ), path,
             (unsigned long long)off);
    lb_err_first(&w->tmo, ETIMEDOUT, dd < LB_DDIR_N ? (int)dd : LB_WRITE, path, off, msg);
    r->timed_out = true;
}

void lb_watch_timeouts(struct lb_run *r, uint64_t now)
{
    bool hit = false;

    for (size_t i = 0; i < r->nstarted; i++) {
        struct lb_worker *w = r->w[i];
        uint64_t s;

        if (!w->tmo_ns || w->done)
            continue;
        s = atomic_load_explicit(&w->pub_start, memory_order_acquire);
        if (!s || s == w->tmo_seen || now < s + w->tmo_ns)
            continue;
        timeout_hit(r, w, s, now);
        hit = true;
    }
    if (hit)
        lb_run_stop_locked(r, "io_timeout");
}
