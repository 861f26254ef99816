/*
 * Run results as words, and their exact merge (stats_pack.c): how the
 * processes of a multi-host run (MPI ranks, lua/mpi.c) combine their
 * results.  Each process packs its host name, its total lb_stats and its
 * intervals into 64-bit words (histograms as sparse bucket lists); any
 * process then merges the packed results of all into one, counters summed
 * and histograms bucket by bucket, so every process that merges the same
 * buffers in the same order holds the same result.
 *
 * The words are in host byte order and copy struct lb_stats as its bytes:
 * the processes of one run are one build on one kind of machine.  Nothing
 * here moves the words (the caller's transport does) or prints.
 */
#ifndef LB_STATS_PACK_H
#define LB_STATS_PACK_H

#include <stddef.h>
#include <stdint.h>
#include "run/stats.h"

#define LB_PACK_HOST 64          /* bytes of the host name, NUL included */

/* A growing buffer of words.  Zero it before the first lb_stats_pack. */
struct lb_pack {
    uint64_t *w;
    size_t n, cap;               /* words used, words allocated */
    int oom;                     /* a word could not be added */
};

/* Appends host (truncated to LB_PACK_HOST - 1 bytes), s and the niv
 * intervals iv to b.  0, or -ENOMEM (b then holds an incomplete packing). */
int lb_stats_pack(struct lb_pack *b, const char *host, const struct lb_stats *s,
                  const struct lb_interval *const *iv, size_t niv);
void lb_pack_free(struct lb_pack *b);          /* b can be reused after */

/* What one packed result says about its process, beside what is merged. */
struct lb_pack_summary {
    char host[LB_PACK_HOST];
    uint64_t ios, bytes;         /* every direction */
    uint64_t runtime_ns;
    uint64_t p99_ns;             /* clat p99 of its busier direction, read or write */
};

/* The merge of packed results. */
struct lb_merged {
    struct lb_stats total;       /* every result's total merged */
    struct lb_interval *iv;      /* merged by interval index */
    size_t niv;                  /* the most intervals of any result */
};

/* 0 or -ENOMEM. */
int lb_merged_init(struct lb_merged *m);
/* Merges the packed result of n words at w into m and describes it in
 * sum.  0, -ENOMEM, or -EPROTO when the words are not one whole packed
 * result (m may then hold part of it). */
int lb_merged_add(struct lb_merged *m, const uint64_t *w, size_t n,
                  struct lb_pack_summary *sum);
/* Frees what m holds; safe on a zeroed m and twice. */
void lb_merged_free(struct lb_merged *m);

#endif
