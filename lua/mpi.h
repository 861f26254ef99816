/*
 * Running on several hosts under MPI (mpirun, srun): every rank runs the
 * same script; lb.run starts the timed phase on all ranks together and
 * returns the cluster's merged result on every rank.  Without MPI support
 * (or outside a launcher) there is one rank and these are no-ops.
 */
#ifndef LB_MPI_H
#define LB_MPI_H

#include <stddef.h>
#include <stdint.h>
#include "run.h"
#include <lauxlib.h>
#include "result.h"

int lb_mpi_init(int *argc, char ***argv);
void lb_mpi_finalize(void);
int lb_mpi_rank(void);
int lb_mpi_size(void);
/* Inside lb.solo: lb.run is this rank's alone. */
int lb_mpi_solo(void);
/* 0, or -EHOSTDOWN when a rank was held lost (lb_mpi_lost says which),
 * -EIO when MPI failed. */
int lb_mpi_barrier(void);
/* A barrier, then every rank waits until one start time (rank 0's clock
 * plus a margin) and stores its own clock (CLOCK_REALTIME, ns) at the
 * start in start_ns; 0 or as lb_mpi_barrier. */
int lb_mpi_start_together(int64_t *start_ns);
/* "lost rank R (host): why" once the watchdog held a rank lost, else NULL. */
const char *lb_mpi_lost(void);
/* The message for a failed collective's rc. */
const char *lb_mpi_error(int rc);
/* Ends every rank with code (after this rank printed its message). */
void lb_mpi_abort(int code);
/* lb.train's exchange (an lb_train_sync_fn): the OR of every rank's bits,
 * or -errno as lb_mpi_barrier. */
int lb_mpi_train_sync(void *arg, int mine);
/* Every rank's n words, in rank order, in *all (free it); counts[i] (an
 * array of lb_mpi_size()) the words of rank i.  0 or as lb_mpi_barrier,
 * -ENOMEM. */
int lb_mpi_gather_words(const uint64_t *mine, size_t n, uint64_t **all, size_t *counts);
/* lb.rank, lb.size, lb.barrier, lb.allgather, lb.bcast into the table on top. */
int lb_mpi_open(lua_State *L);

struct lb_host_row {
    char host[64];
    int rank;
    uint64_t ios, bytes, runtime_ns, p99_ns;
    uint64_t start_ns;                   /* its start after the first rank's */
};

/* A run seen from the whole cluster. */
struct lb_cluster {
    struct lb_stats total;               /* every rank's total merged */
    struct lb_interval *iv;              /* merged by interval index */
    const struct lb_interval **ivp;
    size_t niv;
    struct lb_host_row *rows;            /* one per rank, in rank order */
    int nranks;
    uint64_t start_spread_ns;            /* last rank's start after the first's */
};

/* Exchanges this rank's totals and intervals with all ranks and merges
 * them exactly (counters summed, histograms bucket by bucket, runtime the
 * slowest rank's), and the ranks' start times (start_ns, this rank's
 * clock at its start).  0 or -errno (-EHOSTDOWN: a rank was lost). */
int lb_mpi_cluster(const struct lb_stats *mine, const struct lb_ivs *ivs, int64_t start_ns,
                   struct lb_cluster *c);
void lb_cluster_free(struct lb_cluster *c);

#endif
