/*
 * MPI support: start-up under a launcher, barriers, and the transport of
 * run results over ranks.  Each rank packs its total lb_stats and its
 * intervals into one buffer (core/run/stats_pack.c, which also owns the
 * exact merge); the buffers are all-gathered and every rank merges them
 * the same way, so every rank returns the same cluster result.  There is
 * no listener and no protocol of our own: the launcher (mpirun, srun) is
 * the transport.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi.h"
#include "stats_pack.h"

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

/* ---- the cluster's result: this rank's packed, everyone's merged ---- */

static int pack_mine(struct lb_pack *b, const struct lb_stats *mine, const struct lb_ivs *ivs)
{
    char host[LB_PACK_HOST] = "";

    gethostname(host, sizeof host - 1);
    return lb_stats_pack(b, host, mine, ivs ? ivs->v : NULL, ivs ? ivs->n : 0);
}

/* Merges rank's packed result into m and fills its row. */
static int absorb(struct lb_merged *m, struct lb_cluster *c, int rank,
                  const uint64_t *w, size_t n)
{
    struct lb_pack_summary sum;
    struct lb_host_row *row = &c->rows[rank];
    int rc = lb_merged_add(m, w, n, &sum);

    memcpy(row->host, sum.host, sizeof row->host);
    row->rank = rank;
    row->ios = sum.ios;
    row->bytes = sum.bytes;
    row->runtime_ns = sum.runtime_ns;
    row->p99_ns = sum.p99_ns;
    return rc;
}

int lb_mpi_cluster(const struct lb_stats *mine, const struct lb_ivs *ivs,
                   struct lb_cluster *c)
{
    memset(c, 0, sizeof *c);
#ifdef LB_HAVE_MPI
    int n = mpi_size, rc = 0;
    struct lb_pack b = {0};
    struct lb_merged m;
    int *counts = calloc((size_t)n, sizeof *counts), *displs = calloc((size_t)n, sizeof *displs);
    c->rows = calloc((size_t)n, sizeof *c->rows);
    c->nranks = n;
    if (lb_merged_init(&m) < 0 || !counts || !displs || !c->rows)
        rc = -ENOMEM;
    if (rc == 0)
        rc = pack_mine(&b, mine, ivs);
    int mycount = rc ? -1 : (int)b.n;
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
        for (int i = 0; i < n && rc == 0; i++)
            rc = absorb(&m, c, i, all + displs[i], (size_t)counts[i]);
    } else if (rc == 0) {
        rc = -ENOMEM;
    }
    c->total = m.total;
    c->iv = m.iv;
    c->niv = m.niv;
    if (rc == 0 && c->niv) {
        c->ivp = malloc(c->niv * sizeof *c->ivp);
        if (!c->ivp)
            rc = -ENOMEM;
        for (size_t i = 0; c->ivp && i < c->niv; i++)
            c->ivp[i] = &c->iv[i];
    }
    free(all);
    lb_pack_free(&b);
    free(counts);
    free(displs);
    return rc;
#else
    (void)mine;
    (void)ivs;
    (void)pack_mine;
    (void)absorb;
    return -ENOSYS;
#endif
}

void lb_cluster_free(struct lb_cluster *c)
{
    struct lb_merged m = { .total = c->total, .iv = c->iv, .niv = c->niv };

    lb_merged_free(&m);
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
