/*
 * MPI support: start-up under a launcher, barriers, and the exact merge of
 * run results over ranks.  Each rank serialises its total lb_stats and its
 * intervals (histograms as sparse bucket lists) into one buffer; the
 * buffers are all-gathered and every rank merges them the same way, so
 * every rank returns the same cluster result.  There is no listener and no
 * protocol of our own: the launcher (mpirun, srun) is the transport.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hist.h"
#include "mpi.h"
#include "stats_int.h"

#ifdef LB_HAVE_MPI
#include <mpi.h>
#endif

static int mpi_on;            /* MPI_Init was called */
static int mpi_rank, mpi_size = 1;

static int under_launcher(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") ||
           getenv("PMIX_RANK") || getenv("MPI_LOCALNRANKS");
}

int lb_mpi_init(int *argc, char ***argv)
{
#ifdef LB_HAVE_MPI
    if (!under_launcher())
        return 0;
    int provided;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return -EIO;
    mpi_on = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);
#else
    (void)argc;
    (void)argv;
    (void)under_launcher;
#endif
    return 0;
}

void lb_mpi_finalize(void)
{
#ifdef LB_HAVE_MPI
    if (mpi_on)
        MPI_Finalize();
    mpi_on = 0;
#endif
}

int lb_mpi_rank(void) { return mpi_rank; }
int lb_mpi_size(void) { return mpi_size; }

void lb_mpi_barrier(void)
{
#ifdef LB_HAVE_MPI
    if (mpi_on)
        MPI_Barrier(MPI_COMM_WORLD);
#endif
}

void lb_mpi_abort(int code)
{
#ifdef LB_HAVE_MPI
    if (mpi_on && mpi_size > 1) {
        fflush(NULL);
        MPI_Abort(MPI_COMM_WORLD, code);
    }
#endif
    (void)code;
}

/* ---- serialisation: a growing buffer of 64-bit words ---- */

struct wbuf {
    uint64_t *w;
    size_t n, cap;
    int oom;
};

static void put(struct wbuf *b, uint64_t v)
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

static void put_bytes(struct wbuf *b, const void *p, size_t len)
{
    size_t words = (len + 7) / 8;
    uint64_t tmp;
    for (size_t i = 0; i < words; i++) {
        tmp = 0;
        memcpy(&tmp, (const char *)p + 8 * i, len - 8 * i < 8 ? len - 8 * i : 8);
        put(b, tmp);
    }
}

/* sparse histogram: nnz, (idx, count) pairs, then the 6 summary words */
static void put_hist(struct wbuf *b, const struct lb_hist *h, uint64_t *flat)
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

struct rbuf {
    const uint64_t *w;
    size_t n, pos;
    int bad;
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

/* adds the serialised histogram into h (h may be NULL: skipped) */
static void get_hist(struct rbuf *r, struct lb_hist *h, uint64_t *flat)
{
    uint64_t nnz = get(r);
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

static void put_stats(struct wbuf *b, const struct lb_stats *s, uint64_t *flat)
{
    put_bytes(b, s, sizeof *s);
    for (int d = 0; d < LB_DDIR_N; d++) {
        put_hist(b, s->dir[d].slat, flat);
        put_hist(b, s->dir[d].clat, flat);
        put_hist(b, s->dir[d].lat, flat);
    }
}

/* reads one serialised lb_stats into s (histograms allocated here) */
static int read_stats(struct rbuf *r, struct lb_stats *s, uint64_t *flat)
{
    get_bytes(r, s, sizeof *s);
    for (int d = 0; d < LB_DDIR_N; d++)
        s->dir[d].slat = s->dir[d].clat = s->dir[d].lat = NULL;
    if (lb_stats_fill(s) < 0)
        return -ENOMEM;
    for (int d = 0; d < LB_DDIR_N; d++) {
        get_hist(r, s->dir[d].slat, flat);
        get_hist(r, s->dir[d].clat, flat);
        get_hist(r, s->dir[d].lat, flat);
    }
    return r->bad ? -EPROTO : 0;
}

static void serialise(struct wbuf *b, const struct lb_stats *mine,
                      const struct lb_ivs *ivs, uint64_t *flat)
{
    char host[64] = "";
    gethostname(host, sizeof host - 1);
    put_bytes(b, host, sizeof host);
    put_stats(b, mine, flat);
    size_t n = ivs ? ivs->n : 0;
    put(b, n);
    for (size_t i = 0; i < n; i++) {
        const struct lb_interval *iv = ivs->v[i];
        put(b, iv->index);
        put(b, iv->start_ns);
        put(b, iv->end_ns);
        for (int d = 0; d < LB_DDIR_N; d++) {
            put(b, iv->ios[d]);
            put(b, iv->bytes[d]);
            put_hist(b, iv->clat[d], flat);
        }
    }
}

static int grow_intervals(struct lb_cluster *c, size_t n)
{
    if (n <= c->niv)
        return 0;
    struct lb_interval *iv = realloc(c->iv, n * sizeof *iv);
    if (!iv)
        return -ENOMEM;
    c->iv = iv;
    for (size_t i = c->niv; i < n; i++) {
        memset(&iv[i], 0, sizeof iv[i]);
        iv[i].index = (uint32_t)i;
        iv[i].start_ns = UINT64_MAX;
        for (int d = 0; d < LB_DDIR_N; d++)
            if (lb_hist_new(&iv[i].clat[d]) < 0)
                return -ENOMEM;
    }
    c->niv = n;
    return 0;
}

/* merges one rank's buffer into the cluster */
static int absorb(struct lb_cluster *c, int rank, struct rbuf *r, uint64_t *flat)
{
    struct lb_host_row *row = &c->rows[rank];
    get_bytes(r, row->host, sizeof row->host);
    row->host[sizeof row->host - 1] = 0;
    row->rank = rank;
    struct lb_stats one;
    int rc = read_stats(r, &one, flat);
    if (rc == 0)
        rc = lb_stats_merge(&c->total, &one);
    for (int d = 0; d < LB_DDIR_N; d++) {
        row->ios += one.dir[d].ios;
        row->bytes += one.dir[d].bytes;
    }
    row->runtime_ns = one.runtime_ns;
    row->p99_ns = lb_hist_percentile(one.dir[LB_READ].clat, 99);
    if (one.dir[LB_WRITE].ios > one.dir[LB_READ].ios)
        row->p99_ns = lb_hist_percentile(one.dir[LB_WRITE].clat, 99);
    lb_stats_release(&one);
    size_t n = get(r);
    if (rc == 0 && n < 10000000)
        rc = grow_intervals(c, n);
    for (size_t i = 0; i < n && rc == 0 && !r->bad; i++) {
        struct lb_interval *iv = &c->iv[i];
        get(r);
        uint64_t s = get(r), e = get(r);
        iv->start_ns = s < iv->start_ns ? s : iv->start_ns;
        iv->end_ns = e > iv->end_ns ? e : iv->end_ns;
        for (int d = 0; d < LB_DDIR_N; d++) {
            iv->ios[d] += get(r);
            iv->bytes[d] += get(r);
            get_hist(r, iv->clat[d], flat);
        }
    }
    return rc ? rc : (r->bad ? -EPROTO : 0);
}

int lb_mpi_cluster(const struct lb_stats *mine, const struct lb_ivs *ivs,
                   struct lb_cluster *c)
{
    memset(c, 0, sizeof *c);
#ifdef LB_HAVE_MPI
    int n = mpi_size, rc = 0;
    uint64_t *flat = malloc(LB_HIST_FLAT * sizeof *flat);
    struct wbuf b = {0};
    int *counts = calloc((size_t)n, sizeof *counts), *displs = calloc((size_t)n, sizeof *displs);
    c->rows = calloc((size_t)n, sizeof *c->rows);
    c->nranks = n;
    if (!flat || !counts || !displs || !c->rows || lb_stats_init(&c->total) < 0)
        rc = -ENOMEM;
    if (rc == 0)
        serialise(&b, mine, ivs, flat);
    int mycount = (rc || b.oom) ? -1 : (int)b.n;
    MPI_Allgather(&mycount, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
    size_t total = 0;
    for (int i = 0; i < n; i++) {
        if (counts[i] < 0)
            rc = -ENOMEM;
        displs[i] = (int)total;
        total += counts[i] > 0 ? (size_t)counts[i] : 0;
    }
    uint64_t *all = rc ? NULL : malloc((total ? total : 1) * sizeof *all);
    if (rc == 0 && all == NULL)
        rc = -ENOMEM;
    int ok = rc == 0, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all_ok) {
        MPI_Allgatherv(b.w, (int)b.n, MPI_UINT64_T, all, counts, displs, MPI_UINT64_T,
                       MPI_COMM_WORLD);
        for (int i = 0; i < n && rc == 0; i++) {
            struct rbuf r = {all + displs[i], (size_t)counts[i], 0, 0};
            rc = absorb(c, i, &r, flat);
        }
    } else if (rc == 0) {
        rc = -ENOMEM;
    }
    if (rc == 0 && c->niv) {
        c->ivp = malloc(c->niv * sizeof *c->ivp);
        if (!c->ivp)
            rc = -ENOMEM;
        for (size_t i = 0; c->ivp && i < c->niv; i++)
            c->ivp[i] = &c->iv[i];
    }
    free(all);
    free(b.w);
    free(flat);
    free(counts);
    free(displs);
    return rc;
#else
    (void)mine;
    (void)ivs;
    (void)serialise;
    (void)absorb;
    return -ENOSYS;
#endif
}

void lb_cluster_free(struct lb_cluster *c)
{
    if (c->total.dir[0].clat)
        lb_stats_release(&c->total);
    for (size_t i = 0; i < c->niv; i++)
        for (int d = 0; d < LB_DDIR_N; d++)
            lb_hist_free(c->iv[i].clat[d]);
    free(c->iv);
    free(c->ivp);
    free(c->rows);
    memset(c, 0, sizeof *c);
}

/* ---- Lua ---- */

static int l_barrier(lua_State *L)
{
    (void)L;
    lb_mpi_barrier();
    return 0;
}

/* lb.allgather(string) -> {string of rank 0, rank 1, ...} */
static int l_allgather(lua_State *L)
{
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    lua_createtable(L, mpi_size, 0);
#ifdef LB_HAVE_MPI
    if (mpi_on && mpi_size > 1) {
        int n = mpi_size, mine = (int)len;
        int *counts = malloc(2 * (size_t)n * sizeof *counts);
        if (!counts)
            return luaL_error(L, "lb.allgather: not enough memory");
        int *displs = counts + n;
        MPI_Allgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
        size_t total = 0;
        for (int i = 0; i < n; i++) {
            displs[i] = (int)total;
            total += (size_t)counts[i];
        }
        char *all = malloc(total ? total : 1);
        if (!all) {
            free(counts);
            return luaL_error(L, "lb.allgather: not enough memory");
        }
        MPI_Allgatherv(s, mine, MPI_CHAR, all, counts, displs, MPI_CHAR, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++) {
            lua_pushlstring(L, all + displs[i], (size_t)counts[i]);
            lua_rawseti(L, -2, i + 1);
        }
        free(all);
        free(counts);
        return 1;
    }
#endif
    lua_pushlstring(L, s, len);
    lua_rawseti(L, -2, 1);
    return 1;
}

/* lb.bcast(string, root) -> the root's string on every rank */
static int l_bcast(lua_State *L)
{
    size_t len;
    const char *s = luaL_optlstring(L, 1, "", &len);
    int root = (int)luaL_optinteger(L, 2, 0);
    luaL_argcheck(L, root >= 0 && root < mpi_size, 2, "no such rank");
#ifdef LB_HAVE_MPI
    if (mpi_on && mpi_size > 1) {
        long long n = (long long)len;
        MPI_Bcast(&n, 1, MPI_LONG_LONG, root, MPI_COMM_WORLD);
        char *buf = malloc((size_t)n + 1);
        if (!buf)
            return luaL_error(L, "lb.bcast: not enough memory");
        if (mpi_rank == root)
            memcpy(buf, s, (size_t)n);
        MPI_Bcast(buf, (int)n, MPI_CHAR, root, MPI_COMM_WORLD);
        lua_pushlstring(L, buf, (size_t)n);
        free(buf);
        return 1;
    }
#endif
    lua_pushlstring(L, s, len);
    return 1;
}

int lb_mpi_open(lua_State *L)
{
    lua_pushinteger(L, mpi_rank);
    lua_setfield(L, -2, "rank");
    lua_pushinteger(L, mpi_size);
    lua_setfield(L, -2, "size");
    lua_pushboolean(L, mpi_on);
    lua_setfield(L, -2, "mpi");
#ifdef LB_HAVE_MPI
    lua_pushboolean(L, 1);
#else
    lua_pushboolean(L, 0);
#endif
    lua_setfield(L, -2, "mpi_support");
    lua_pushcfunction(L, l_barrier);
    lua_setfield(L, -2, "barrier");
    lua_pushcfunction(L, l_allgather);
    lua_setfield(L, -2, "allgather");
    lua_pushcfunction(L, l_bcast);
    lua_setfield(L, -2, "bcast");
    return 0;
}
