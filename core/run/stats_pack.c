/*
 * The wire format and the exact merge of run results (stats_pack.h).
 *
 * A packed result, in 64-bit words: the host name (LB_PACK_HOST bytes),
 * struct lb_stats as its bytes (its histogram pointers meaningless), its
 * nine histograms (slat, clat, lat of each direction), the sync
 * latency histogram and the three open-loop ones (absent without a rate
 * cap), then the number of
 * intervals and, for each, its index, start, end and per direction ios,
 * bytes and the clat, lat and open-loop histograms (the last absent without
 * a rate cap).  A histogram is UINT64_MAX when absent,
 * else the count of non-empty buckets, (index, count) pairs, and the six
 * summary words of lb_hist_export.  Bytes are copied in whole words, the
 * last one padded with zeros.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/hist.h"
#include "run/stats_int.h"
#include "run/stats_pack.h"

#define MAX_INTERVALS 10000000u  /* this many or more: not a result */

/* ---- packing ---- */

static void put(struct lb_pack *b, uint64_t v)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 4096;
        uint64_t *w = realloc(b->w, cap * sizeof *w);
        if (!w) {
            b->oom = 1;
            return;
        }
        b->w = w;
        b->cap = cap;
    }
    b->w[b->n++] = v;
}

static void put_bytes(struct lb_pack *b, const void *p, size_t len)
{
    size_t words = (len + 7) / 8;
    uint64_t tmp;
    for (size_t i = 0; i < words; i++) {
        tmp = 0;
        memcpy(&tmp, (const char *)p + 8 * i, len - 8 * i < 8 ? len - 8 * i : 8);
        put(b, tmp);
    }
}

static void put_hist(struct lb_pack *b, const struct lb_hist *h, uint64_t *flat)
{
    if (h == NULL) {
        put(b, UINT64_MAX);
        return;
    }
    lb_hist_export(h, flat);
    uint64_t nnz = 0;
    for (size_t i = 0; i < LB_HIST_BUCKETS; i++)
        nnz += flat[i] != 0;
    put(b, nnz);
    for (size_t i = 0; i < LB_HIST_BUCKETS; i++)
        if (flat[i]) {
            put(b, i);
            put(b, flat[i]);
        }
    for (size_t i = LB_HIST_BUCKETS; i < LB_HIST_FLAT; i++)
        put(b, flat[i]);
}

static void put_stats(struct lb_pack *b, const struct lb_stats *s, uint64_t *flat)
{
    put_bytes(b, s, sizeof *s);
    for (int d = 0; d < LB_DDIR_N; d++) {
        put_hist(b, s->dir[d].slat, flat);
        put_hist(b, s->dir[d].clat, flat);
        put_hist(b, s->dir[d].lat, flat);
    }
    put_hist(b, s->sync_lat, flat);
    for (int d = 0; d < LB_DDIR_N; d++)
        put_hist(b, s->dir[d].sched, flat);
}

int lb_stats_pack(struct lb_pack *b, const char *host, const struct lb_stats *s,
                  const struct lb_interval *const *iv, size_t niv)
{
    uint64_t *flat = malloc(LB_HIST_FLAT * sizeof *flat);
    char name[LB_PACK_HOST] = "";

    if (!flat)
        return -ENOMEM;
    strncpy(name, host ? host : "", sizeof name - 1);
    put_bytes(b, name, sizeof name);
    put_stats(b, s, flat);
    put(b, niv);
    for (size_t i = 0; i < niv; i++) {
        put(b, iv[i]->index);
        put(b, iv[i]->start_ns);
        put(b, iv[i]->end_ns);
        for (int d = 0; d < LB_DDIR_N; d++) {
            put(b, iv[i]->ios[d]);
            put(b, iv[i]->bytes[d]);
            put_hist(b, iv[i]->clat[d], flat);
            put_hist(b, iv[i]->lat[d], flat);
            put_hist(b, iv[i]->sched[d], flat);
        }
    }
    free(flat);
    return b->oom ? -ENOMEM : 0;
}

void lb_pack_free(struct lb_pack *b)
{
    free(b->w);
    memset(b, 0, sizeof *b);
}

/* ---- merging ---- */

struct rbuf {
    const uint64_t *w;
    size_t n, pos;
    int bad;                     /* read past the end, or a bad word */
    uint64_t *flat;
};

static uint64_t get(struct rbuf *r)
{
    if (r->pos >= r->n) {
        r->bad = 1;
        return 0;
    }
    return r->w[r->pos++];
}

static void get_bytes(struct rbuf *r, void *p, size_t len)
{
    for (size_t i = 0; i < (len + 7) / 8; i++) {
        uint64_t v = get(r);
        memcpy((char *)p + 8 * i, &v, len - 8 * i < 8 ? len - 8 * i : 8);
    }
}

/* Adds the packed histogram into h (h may be NULL: read and dropped). */
static void get_hist(struct rbuf *r, struct lb_hist *h)
{
    uint64_t nnz = get(r), *flat = r->flat;
    if (nnz == UINT64_MAX)
        return;
    memset(flat, 0, LB_HIST_FLAT * sizeof *flat);
    for (uint64_t i = 0; i < nnz && !r->bad; i++) {
        uint64_t idx = get(r), cnt = get(r);
        if (idx < LB_HIST_BUCKETS)
            flat[idx] = cnt;
        else
            r->bad = 1;
    }
    for (size_t i = LB_HIST_BUCKETS; i < LB_HIST_FLAT; i++)
        flat[i] = get(r);
    if (!r->bad && h && lb_hist_import_add(h, flat) < 0)
        r->bad = 1;
}

/* Reads a packed histogram that may be absent: *h is made only when it
 * is there. */
static void get_hist_opt(struct rbuf *r, struct lb_hist **h)
{
    if (r->pos < r->n && r->w[r->pos] == UINT64_MAX) {
        r->pos++;
        return;
    }
    if (lb_hist_new(h) < 0) {
        r->bad = 1;
        return;
    }
    get_hist(r, *h);
}

/* Adds a packed histogram that may be absent into *h, made at the first
 * one there. */
static void get_hist_more(struct rbuf *r, struct lb_hist **h)
{
    if (*h || (r->pos < r->n && r->w[r->pos] == UINT64_MAX)) {
        get_hist(r, *h);
        return;
    }
    get_hist_opt(r, h);
}

/* Reads one packed lb_stats into s (its histograms allocated here). */
static int get_stats(struct rbuf *r, struct lb_stats *s)
{
    get_bytes(r, s, sizeof *s);
    for (int d = 0; d < LB_DDIR_N; d++) {
        s->dir[d].slat = s->dir[d].clat = s->dir[d].lat = s->dir[d].sched = NULL;
        s->dir[d].prio = NULL;    /* per-priority latencies do not travel */
        s->dir[d].nprio = 0;
    }
    s->sync_lat = NULL;
    if (lb_stats_fill(s) < 0)
        return -ENOMEM;
    for (int d = 0; d < LB_DDIR_N; d++) {
        get_hist(r, s->dir[d].slat);
        get_hist(r, s->dir[d].clat);
        get_hist(r, s->dir[d].lat);
    }
    get_hist(r, s->sync_lat);
    for (int d = 0; d < LB_DDIR_N; d++)
        get_hist_opt(r, &s->dir[d].sched);
    return r->bad ? -EPROTO : 0;
}

static void summarise(struct lb_pack_summary *sum, const struct lb_stats *one)
{
    const struct lb_dir_stats *rd = &one->dir[LB_READ], *wr = &one->dir[LB_WRITE];

    for (int d = 0; d < LB_DDIR_N; d++) {
        sum->ios += one->dir[d].ios;
        sum->bytes += one->dir[d].bytes;
    }
    sum->runtime_ns = one->runtime_ns;
    if (rd->clat && wr->clat)
        sum->p99_ns = lb_hist_percentile(wr->ios > rd->ios ? wr->clat : rd->clat, 99);
}

static int grow_intervals(struct lb_merged *m, size_t n)
{
    if (n <= m->niv)
        return 0;
    struct lb_interval *iv = realloc(m->iv, n * sizeof *iv);
    if (!iv)
        return -ENOMEM;
    m->iv = iv;
    while (m->niv < n) {
        struct lb_interval *v = &iv[m->niv++];

        memset(v, 0, sizeof *v);
        v->index = (uint32_t)(v - iv);
        v->start_ns = UINT64_MAX;
        for (int d = 0; d < LB_DDIR_N; d++)
            if (lb_hist_new(&v->clat[d]) < 0 || lb_hist_new(&v->lat[d]) < 0)
                return -ENOMEM;
    }
    return 0;
}

static void get_interval(struct rbuf *r, struct lb_interval *iv)
{
    get(r);                      /* the index: the position says it */
    uint64_t s = get(r), e = get(r);
    iv->start_ns = s < iv->start_ns ? s : iv->start_ns;
    iv->end_ns = e > iv->end_ns ? e : iv->end_ns;
    for (int d = 0; d < LB_DDIR_N; d++) {
        iv->ios[d] += get(r);
        iv->bytes[d] += get(r);
        get_hist(r, iv->clat[d]);
        get_hist(r, iv->lat[d]);
        get_hist_more(r, &iv->sched[d]);
    }
}

int lb_merged_init(struct lb_merged *m)
{
    memset(m, 0, sizeof *m);
    return lb_stats_init(&m->total);
}

int lb_merged_add(struct lb_merged *m, const uint64_t *w, size_t n,
                  struct lb_pack_summary *sum)
{
    struct rbuf r = { .w = w, .n = n, .flat = malloc(LB_HIST_FLAT * sizeof(uint64_t)) };
    struct lb_stats one;
    int rc;

    memset(sum, 0, sizeof *sum);
    if (!r.flat)
        return -ENOMEM;
    get_bytes(&r, sum->host, sizeof sum->host);
    sum->host[sizeof sum->host - 1] = 0;
    rc = get_stats(&r, &one);
    if (rc == 0)
        rc = lb_stats_merge(&m->total, &one);
    summarise(sum, &one);
    lb_stats_release(&one);
    size_t niv = get(&r);
    if (rc == 0 && niv >= MAX_INTERVALS)
        r.bad = 1;
    else if (rc == 0)
        rc = grow_intervals(m, niv);
    for (size_t i = 0; i < niv && rc == 0 && !r.bad; i++)
        get_interval(&r, &m->iv[i]);
    free(r.flat);
    return rc ? rc : (r.bad ? -EPROTO : 0);
}

void lb_merged_free(struct lb_merged *m)
{
    lb_stats_release(&m->total);
    for (size_t i = 0; i < m->niv; i++)
        for (int d = 0; d < LB_DDIR_N; d++) {
            lb_hist_free(m->iv[i].clat[d]);
            lb_hist_free(m->iv[i].lat[d]);
            lb_hist_free(m->iv[i].sched[d]);
        }
    free(m->iv);
    memset(m, 0, sizeof *m);
}
