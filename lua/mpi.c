/*
 * MPI support: start-up under a launcher, barriers, and the transport of
 * run results over ranks.  Each rank packs its total lb_stats and its
 * intervals into one buffer (core/run/stats_pack.c, which also owns the
 * exact merge); the buffers are all-gathered and every rank merges them
 * the same way, so every rank returns the same cluster result.  There is
 * no listener and no protocol of our own: the launcher (mpirun, srun) is
 * the transport.
 *
 * The watchdog: a thread per rank that exchanges a small message with
 * rank 0 every half second on a communicator of its own (rank 0 with
 * every rank, every rank with rank 0).  A rank that hears nothing from a
 * peer it watches for LUABENCH_MPI_TIMEOUT seconds (10 by default) holds
 * that peer lost: rank 0 tells the others, a running point is stopped, a
 * collective in progress returns an error naming the lost rank and host,
 * and a few seconds later (the script's time to write what it has) the
 * rank ends itself with that line and exit status 1.  A rank whose script
 * ends sooner waits quietly for that moment: exiting at once would have
 * the launcher send to the lost host's daemon, and data in flight to a
 * host that is cut off keeps TCP keepalive, the launcher's only way to
 * learn of the loss, from ever firing.  Collectives are started
 * non-blocking and waited for in a loop that also watches for a loss, so
 * no rank waits forever on a host that went away.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mpi.h"
#include "stats_pack.h"

#ifdef LB_HAVE_MPI
#include <mpi.h>
#endif

static int mpi_on;            /* MPI_Init was called */
static int mpi_solo;          /* inside lb.solo: this rank runs alone */
static int mpi_rank, mpi_size = 1;
static char mpi_host[64];     /* this rank's hostname */

static int under_launcher(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") ||
           getenv("PMIX_RANK") || getenv("MPI_LOCALNRANKS");
}

#ifdef LB_HAVE_MPI
static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void nap(long ns)
{
    struct timespec ts = {0, ns};
    nanosleep(&ts, NULL);
}
#endif

/* ---- the watchdog ---- */

#define WD_BEAT_NS 500000000L   /* one message each way every half second */
#define WD_GRACE_S 3.0          /* after a loss, the script's time to end */
enum { WD_TAG = 7301 };
enum { WD_BEAT = 1, WD_LOST = 2 };

static atomic_int wd_lost = -1;   /* the rank held lost, or -1 */
static atomic_int wd_said;        /* the host printed the loss already */
static char wd_msg[256];          /* "lost rank 1 (lbhost2): ..." once wd_lost is set */

#ifdef LB_HAVE_MPI
static char (*wd_hosts)[64];      /* every rank's hostname */
static double wd_timeout_s = 10;
static MPI_Comm wd_comm = MPI_COMM_NULL;
static pthread_t wd_thread;
static atomic_int wd_running, wd_stop;

static void wd_declare(int lost, const char *why)
{
    int none = -1;
    if (!atomic_compare_exchange_strong(&wd_lost, &none, lost))
        return;
    snprintf(wd_msg, sizeof wd_msg, "lost rank %d (%s): %s", lost,
             lost >= 0 && lost < mpi_size ? wd_hosts[lost] : "?", why);
    lb_run_interrupt_all();          /* a running point ends now */
}

/* One peer's exchange: its receive always posted, our send when the last one went. */
struct wd_peer {
    MPI_Request rx, tx;
    int in[2], out[2];
    double heard;
};

static void wd_post_rx(struct wd_peer *p, int r)
{
    MPI_Irecv(p->in, 2, MPI_INT, r, WD_TAG, wd_comm, &p->rx);
}

static void wd_send(struct wd_peer *p, int r, int kind, int arg)
{
    int done = 1;
    if (p->tx != MPI_REQUEST_NULL)
        MPI_Test(&p->tx, &done, MPI_STATUS_IGNORE);
    if (!done)
        return;                      /* the last one has not gone: the peer is late */
    p->out[0] = kind;
    p->out[1] = arg;
    MPI_Isend(p->out, 2, MPI_INT, r, WD_TAG, wd_comm, &p->tx);
}

static void *wd_main(void *arg)
{
    (void)arg;
    int n = mpi_size;
    struct wd_peer *peer = calloc((size_t)n, sizeof *peer);
    if (!peer)
        return NULL;
    double now = mono_s(), lost_at = 0;
    for (int r = 0; r < n; r++) {
        peer[r].rx = peer[r].tx = MPI_REQUEST_NULL;
        peer[r].heard = now;
        if (r != mpi_rank && (mpi_rank == 0 || r == 0))
            wd_post_rx(&peer[r], r);
    }
    double next_beat = 0;
    while (!atomic_load(&wd_stop)) {
        now = mono_s();
        for (int r = 0; r < n; r++) {
            if (r == mpi_rank || !(mpi_rank == 0 || r == 0))
                continue;
            int got = 0;
            MPI_Test(&peer[r].rx, &got, MPI_STATUS_IGNORE);
            if (got) {
                peer[r].heard = now;
                if (peer[r].in[0] == WD_LOST && atomic_load(&wd_lost) < 0) {
                    char why[128];
                    snprintf(why, sizeof why, "rank 0 (%s) lost contact with it", wd_hosts[0]);
                    wd_declare(peer[r].in[1], why);
                }
                wd_post_rx(&peer[r], r);
            }
            if (now - peer[r].heard > wd_timeout_s && atomic_load(&wd_lost) < 0) {
                char why[128];
                snprintf(why, sizeof why, "no word from it for %.0f s", wd_timeout_s);
                wd_declare(r, why);
                if (mpi_rank == 0)          /* the others learn it from rank 0 */
                    for (int o = 1; o < n; o++)
                        if (o != r)
                            wd_send(&peer[o], o, WD_LOST, r);
            }
        }
        if (atomic_load(&wd_lost) >= 0) {
            if (lost_at == 0)
                lost_at = now;
            if (now - lost_at > WD_GRACE_S) {
                if (!atomic_load(&wd_said))
                    fprintf(stderr, "luabench: rank %d (%s): %s\n", mpi_rank, mpi_host, wd_msg);
                fflush(NULL);
                _exit(1);
            }
        } else if (now >= next_beat) {
            next_beat = now + WD_BEAT_NS / 1e9;
            for (int r = 0; r < n; r++)
                if (r != mpi_rank && (mpi_rank == 0 || r == 0))
                    wd_send(&peer[r], r, WD_BEAT, 0);
        }
        nap(20000000L);
    }
    for (int r = 0; r < n; r++) {
        if (peer[r].rx != MPI_REQUEST_NULL) {
            MPI_Cancel(&peer[r].rx);
            MPI_Wait(&peer[r].rx, MPI_STATUS_IGNORE);
        }
        if (peer[r].tx != MPI_REQUEST_NULL)
            MPI_Wait(&peer[r].tx, MPI_STATUS_IGNORE);
    }
    free(peer);
    return NULL;
}

/* Waits for a started collective; -EHOSTDOWN once a rank is held lost. */
static int coll_wait(MPI_Request *rq)
{
    if (!atomic_load(&wd_running))
        return MPI_Wait(rq, MPI_STATUS_IGNORE) == MPI_SUCCESS ? 0 : -EIO;
    for (unsigned spins = 0;; spins++) {
        int done = 0;
        if (MPI_Test(rq, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return -EIO;
        if (done)
            return 0;
        if (atomic_load(&wd_lost) >= 0)
            return -EHOSTDOWN;       /* the request is left: this rank is ending */
        if (spins > 2000)
            nap(50000L);
    }
}

static void wd_start(void)
{
    const char *t = getenv("LUABENCH_MPI_TIMEOUT");
    if (t && *t) {
        char *end;
        double v = strtod(t, &end);
        if (*end == '\0' && v >= 0)
            wd_timeout_s = v;
        else
            fprintf(stderr, "luabench: LUABENCH_MPI_TIMEOUT=%s is not a number of seconds; "
                    "using %.0f\n", t, wd_timeout_s);
    }
    if (wd_timeout_s <= 0 || mpi_size < 2)
        return;
    if (MPI_Comm_dup(MPI_COMM_WORLD, &wd_comm) != MPI_SUCCESS)
        return;
    MPI_Comm_set_errhandler(wd_comm, MPI_ERRORS_RETURN);
    if (pthread_create(&wd_thread, NULL, wd_main, NULL) == 0)
        atomic_store(&wd_running, 1);
}

static void wd_end(void)
{
    if (!atomic_load(&wd_running))
        return;
    atomic_store(&wd_stop, 1);
    pthread_join(wd_thread, NULL);
    atomic_store(&wd_running, 0);
}
#endif

#ifdef LB_HAVE_MPI
/* After a loss, once this rank has said what it has: the watchdog ends it
 * at the end of its grace. */
static void linger_lost(void)
{
    atomic_store(&wd_said, 1);
    fflush(NULL);
    for (int i = 0; atomic_load(&wd_running) && i < (int)(WD_GRACE_S * 20) + 40; i++)
        nap(50000000L);
    _exit(1);
}
#endif

const char *lb_mpi_lost(void)
{
    return atomic_load(&wd_lost) >= 0 ? wd_msg : NULL;
}

/* The message of a failed collective. */
static const char *coll_error(int rc)
{
    const char *lost = lb_mpi_lost();
    if (lost)
        return lost;
    return rc == -ENOMEM ? "not enough memory" : "an MPI call failed";
}

int lb_mpi_init(int *argc, char ***argv)
{
    gethostname(mpi_host, sizeof mpi_host - 1);
#ifdef LB_HAVE_MPI
    if (!under_launcher())
        return 0;
    int provided;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
        return -EIO;
    mpi_on = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    wd_hosts = calloc((size_t)mpi_size, sizeof *wd_hosts);
    if (!wd_hosts)
        return -ENOMEM;
    if (MPI_Allgather(mpi_host, sizeof mpi_host, MPI_CHAR, wd_hosts, sizeof *wd_hosts, MPI_CHAR,
                      MPI_COMM_WORLD) != MPI_SUCCESS)
        return -EIO;
    if (provided >= MPI_THREAD_MULTIPLE)
        wd_start();
    else if (mpi_rank == 0 && mpi_size > 1)
        fprintf(stderr, "luabench: note: this MPI library gives no MPI_THREAD_MULTIPLE: "
                "no watchdog, a lost host makes the other ranks wait\n");
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
    if (!mpi_on)
        return;
    if (lb_mpi_lost()) {               /* a peer is gone: MPI_Finalize would wait for it */
        fprintf(stderr, "luabench: rank %d (%s): %s\n", mpi_rank, mpi_host, lb_mpi_lost());
        linger_lost();
    }
    /* all ranks are here before the watchdog stops: none ends early and
     * looks lost to a rank that is still running */
    if (lb_mpi_barrier() < 0) {
        fprintf(stderr, "luabench: rank %d (%s): %s\n", mpi_rank, mpi_host,
                coll_error(-EIO));
        fflush(NULL);
        _exit(1);
    }
    wd_end();
    MPI_Finalize();
    mpi_on = 0;
#endif
}

int lb_mpi_rank(void) { return mpi_rank; }
int lb_mpi_solo(void) { return mpi_solo > 0; }
int lb_mpi_size(void) { return mpi_size; }

int lb_mpi_barrier(void)
{
#ifdef LB_HAVE_MPI
    if (mpi_on && mpi_size > 1) {
        MPI_Request rq;
        if (MPI_Ibarrier(MPI_COMM_WORLD, &rq) != MPI_SUCCESS)
            return -EIO;
        return coll_wait(&rq);
    }
#endif
    return 0;
}

void lb_mpi_abort(int code)
{
#ifdef LB_HAVE_MPI
    if (mpi_on && mpi_size > 1) {
        fflush(NULL);
        if (lb_mpi_lost())             /* the launcher ends the job after the grace */
            linger_lost();
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

#ifdef LB_HAVE_MPI
/* The collectives, started non-blocking and waited for with coll_wait. */
static int c_allgather(const void *s, int n, MPI_Datatype t, void *r)
{
    MPI_Request rq;
    if (MPI_Iallgather(s, n, t, r, n, t, MPI_COMM_WORLD, &rq) != MPI_SUCCESS)
        return -EIO;
    return coll_wait(&rq);
}

static int c_allgatherv(const void *s, int n, MPI_Datatype t, void *r, const int *counts,
                        const int *displs)
{
    MPI_Request rq;
    if (MPI_Iallgatherv(s, n, t, r, counts, displs, t, MPI_COMM_WORLD, &rq) != MPI_SUCCESS)
        return -EIO;
    return coll_wait(&rq);
}

static int c_bcast(void *buf, int n, MPI_Datatype t, int root)
{
    MPI_Request rq;
    if (MPI_Ibcast(buf, n, t, root, MPI_COMM_WORLD, &rq) != MPI_SUCCESS)
        return -EIO;
    return coll_wait(&rq);
}
#endif

static int64_t real_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#define START_MARGIN_NS 20000000   /* rank 0's start time is this far ahead */

int lb_mpi_start_together(int64_t *start_ns)
{
    if (mpi_solo) {
        *start_ns = real_ns();
        return 0;
    }
    int rc = lb_mpi_barrier();
    int64_t at = real_ns() + START_MARGIN_NS;
#ifdef LB_HAVE_MPI
    if (rc == 0 && mpi_on && mpi_size > 1)
        rc = c_bcast(&at, 1, MPI_INT64_T, 0);
#endif
    if (rc < 0)
        return rc;
    if (mpi_size > 1) {
        struct timespec ts = {(time_t)(at / 1000000000), (long)(at % 1000000000)};
        while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == EINTR)
            ;
    }
    *start_ns = real_ns();
    return 0;
}

int lb_mpi_cluster(const struct lb_stats *mine, const struct lb_ivs *ivs, int64_t start_ns,
                   struct lb_cluster *c)
{
    memset(c, 0, sizeof *c);
#ifdef LB_HAVE_MPI
    int n = mpi_size, rc = 0, crc;
    struct lb_pack b = {0};
    struct lb_merged m;
    int64_t (*head)[2] = calloc((size_t)n, sizeof *head);   /* words, start time */
    int *counts = calloc((size_t)n, sizeof *counts), *displs = calloc((size_t)n, sizeof *displs);
    c->rows = calloc((size_t)n, sizeof *c->rows);
    c->nranks = n;
    if (lb_merged_init(&m) < 0 || !counts || !displs || !c->rows || !head)
        rc = -ENOMEM;
    if (rc == 0)
        rc = pack_mine(&b, mine, ivs);
    /* static: a collective left behind by a lost host may still write its
     * buffers while this rank ends (coll_wait), so none is on the stack */
    static int64_t myhead[2];
    static int ok, all_ok;
    myhead[0] = rc ? -1 : (int64_t)b.n;
    myhead[1] = start_ns;
    uint64_t *all = NULL;
    if (head && (crc = c_allgather(myhead, 2, MPI_INT64_T, head)) < 0) {
        rc = crc;
        goto out;
    }
    size_t total = 0;
    for (int i = 0; head && i < n; i++) {
        if (head[i][0] < 0 || head[i][0] > INT32_MAX)
            rc = rc ? rc : -ENOMEM;
        counts[i] = head[i][0] > 0 && head[i][0] <= INT32_MAX ? (int)head[i][0] : 0;
        displs[i] = (int)total;
        total += (size_t)counts[i];
    }
    if (!head)                        /* no one can proceed without the counts */
        goto out;
    if (rc == 0 && !(all = malloc((total ? total : 1) * sizeof *all)))
        rc = -ENOMEM;
    if (rc == -EHOSTDOWN || rc == -EIO)
        goto out;
    /* every rank knows from the counts whether all packed; memory for
     * the gathered words can still fail on one rank: all agree first */
    ok = rc == 0;
    all_ok = 0;
    MPI_Request rq;
    if (MPI_Iallreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD, &rq) != MPI_SUCCESS)
        rc = -EIO;
    else if ((crc = coll_wait(&rq)) < 0)
        rc = crc;
    else if (!all_ok && rc == 0)
        rc = -ENOMEM;
    if (rc == 0 && (crc = c_allgatherv(b.w, (int)b.n, MPI_UINT64_T, all, counts, displs)) < 0)
        rc = crc;
    int64_t first = head[0][1];
    for (int i = 1; i < n; i++)
        if (head[i][1] < first)
            first = head[i][1];
    for (int i = 0; i < n && rc == 0; i++) {
        rc = absorb(&m, c, i, all + displs[i], (size_t)counts[i]);
        c->rows[i].start_ns = (uint64_t)(head[i][1] - first);
        if (c->rows[i].start_ns > c->start_spread_ns)
            c->start_spread_ns = c->rows[i].start_ns;
    }
out:
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
    if (rc == -EHOSTDOWN)        /* MPI may still write these: this rank is ending */
        return rc;
    free(all);
    free(head);
    lb_pack_free(&b);
    free(counts);
    free(displs);
    return rc;
#else
    (void)mine;
    (void)ivs;
    (void)start_ns;
    (void)pack_mine;
    (void)absorb;
    return -ENOSYS;
#endif
}

const char *lb_mpi_error(int rc)
{
    return coll_error(rc);
}

void lb_cluster_free(struct lb_cluster *c)
{
    struct lb_merged m = { .total = c->total, .iv = c->iv, .niv = c->niv };

    lb_merged_free(&m);
    free(c->ivp);
    free(c->rows);
    memset(c, 0, sizeof *c);
}

/* ---- exchanges of other runs (lb.train) ---- */

int lb_mpi_train_sync(void *arg, int mine)
{
    (void)arg;
    int all = mine;
#ifdef LB_HAVE_MPI
    if (mpi_on && mpi_size > 1 && !mpi_solo) {
        MPI_Request rq;
        if (MPI_Iallreduce(&mine, &all, 1, MPI_INT, MPI_BOR, MPI_COMM_WORLD, &rq) != MPI_SUCCESS)
            return -EIO;
        int rc = coll_wait(&rq);
        if (rc < 0)
            return rc;
    }
#endif
    return all;
}

int lb_mpi_gather_words(const uint64_t *mine, size_t n, uint64_t **all, size_t *counts)
{
    *all = NULL;
    if (n > INT32_MAX)
        return -ENOMEM;
#ifdef LB_HAVE_MPI
    if (mpi_on && mpi_size > 1 && !mpi_solo) {
        int N = mpi_size, me = (int)n, rc;
        int *cnt = calloc(2 * (size_t)N, sizeof *cnt);
        if (!cnt)
            return -ENOMEM;
        int *displs = cnt + N;
        if ((rc = c_allgather(&me, 1, MPI_INT, cnt)) < 0) {
            free(cnt);
            return rc;
        }
        size_t total = 0;
        for (int i = 0; i < N; i++) {
            displs[i] = (int)total;
            counts[i] = (size_t)cnt[i];
            total += counts[i];
        }
        if (total > INT32_MAX || !(*all = malloc((total ? total : 1) * sizeof **all)))
            rc = -ENOMEM;
        if (rc == 0)
            rc = c_allgatherv(mine, me, MPI_UINT64_T, *all, cnt, displs);
        free(cnt);
        if (rc < 0) {
            free(*all);
            *all = NULL;
        }
        return rc;
    }
#endif
    if (!(*all = malloc((n ? n : 1) * sizeof **all)))
        return -ENOMEM;
    memcpy(*all, mine, n * sizeof *mine);
    counts[0] = n;
    return 0;
}

/* ---- Lua ---- */

static int coll_raise(lua_State *L, const char *what, int rc)
{
    return luaL_error(L, "%s: %s", what, coll_error(rc));
}

/* lb.solo(fn, ...): fn's results; inside it lb.run is this rank's alone
 * (no start together, no merge), as when one rank lays out files while
 * the others wait; the collectives are refused there. */
static int l_solo(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TFUNCTION);
    int base = 1;
    mpi_solo++;
    int status = lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0);
    mpi_solo--;
    if (status != LUA_OK)
        return lua_error(L);
    return lua_gettop(L) - base + 1;
}

static int solo_refuse(lua_State *L, const char *what)
{
    return luaL_error(L, "%s: inside lb.solo this rank runs alone: no collective", what);
}

static int l_barrier(lua_State *L)
{
    if (mpi_solo)
        return solo_refuse(L, "lb.barrier");
    int rc = lb_mpi_barrier();
    if (rc < 0)
        return coll_raise(L, "lb.barrier", rc);
    return 0;
}

/* lb.lost() -> "lost rank R (host): why" once the watchdog held a rank
 * lost (no collective can complete then), or nil */
static int l_lost(lua_State *L)
{
    const char *m = lb_mpi_lost();
    if (m)
        lua_pushstring(L, m);
    else
        lua_pushnil(L);
    return 1;
}

/* lb.allgather(string) -> {string of rank 0, rank 1, ...} */
static int l_allgather(lua_State *L)
{
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    if (mpi_solo && mpi_size > 1)
        return solo_refuse(L, "lb.allgather");
    lua_createtable(L, mpi_size, 0);
#ifdef LB_HAVE_MPI
    if (mpi_on && mpi_size > 1) {
        int n = mpi_size, mine = (int)len, rc;
        int *counts = malloc(2 * (size_t)n * sizeof *counts);
        if (!counts)
            return luaL_error(L, "lb.allgather: not enough memory");
        int *displs = counts + n;
        if ((rc = c_allgather(&mine, 1, MPI_INT, counts)) < 0) {
            free(counts);
            return coll_raise(L, "lb.allgather", rc);
        }
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
        if ((rc = c_allgatherv(s, mine, MPI_CHAR, all, counts, displs)) < 0) {
            free(all);
            free(counts);
            return coll_raise(L, "lb.allgather", rc);
        }
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
    if (mpi_solo && mpi_size > 1)
        return solo_refuse(L, "lb.bcast");
#ifdef LB_HAVE_MPI
    if (mpi_on && mpi_size > 1) {
        long long n = (long long)len;
        int rc = c_bcast(&n, 1, MPI_LONG_LONG, root);
        if (rc < 0)
            return coll_raise(L, "lb.bcast", rc);
        char *buf = malloc((size_t)n + 1);
        if (!buf)
            return luaL_error(L, "lb.bcast: not enough memory");
        if (mpi_rank == root)
            memcpy(buf, s, (size_t)n);
        if ((rc = c_bcast(buf, (int)n, MPI_CHAR, root)) < 0) {
            free(buf);
            return coll_raise(L, "lb.bcast", rc);
        }
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
    lua_pushcfunction(L, l_solo);
    lua_setfield(L, -2, "solo");
    lua_pushcfunction(L, l_lost);
    lua_setfield(L, -2, "lost");
    return 0;
}
