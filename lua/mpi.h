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
void lb_mpi_barrier(void);
/* Ends every rank with code (after this rank printed its message). */
void lb_mpi_abort(int code);
/* lb.rank, lb.size, lb.barrier, lb.allgather, lb.bcast into the table on top. */
int lb_mpi_open(lua_State *L);

struct lb_host_row {
    char host[64];
    int rank;
    uint64_t ios, bytes, runtime_ns, p99_ns;
};

/* A run seen from the whole cluster. */
struct lb_cluster {
    struct lb_stats total;               /* every rank's total merged */
    struct lb_interval *iv;              /* merged by interval index */
    const struct lb_interval **ivp;
    size_t niv;
    struct lb_host_row *rows;            /* one per rank, in rank order */
    int nranks;
};

/* Exchanges this rank's totals and intervals with all ranks and merges
 * them exactly (counters summed, histograms bucket by bucket, runtime the
 * slowest rank's).  0 or -errno. */
int lb_mpi_cluster(const struct lb_stats *mine, const struct lb_ivs *ivs,
                   struct lb_cluster *c);
void lb_cluster_free(struct lb_cluster *c);

#endif
