/*
 * I/O engines: one file each under core/engines/, each exporting one const
 * struct lb_engine_ops listed in the table in engine.c.  Per-worker state
 * lives behind the priv pointer; the ops table is never written.
 *
 * Sync engines (LB_ENG_SYNC) complete every I/O inside queue().  Async
 * engines queue, submit on commit() and reap with getevents().
 */
#ifndef LB_ENGINE_H
#define LB_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/files.h"       /* struct lb_file_id */
#include "job/job.h"         /* LB_SYNC_OP, LB_DATASYNC_OP */

struct lb_file {
    char *path;
    int fd;                  /* -1 while closed */
    uint64_t size;           /* bytes the job uses */
    uint64_t file_offset;    /* where the job's region starts */
    uint64_t file_end;       /* the file's size once laid out (fio's real_file_size);
                                UINT64_MAX: none known (no file, a character device) */
    void *map;               /* mmap engine: the mapping */
    uint64_t map_len;
    int reg_index;           /* io_uring registered slot, -1 if none */
    bool created;            /* laid out by this run */
    struct lb_file_id id;    /* the file the plan checked: opens must find it */
    void *eng;               /* engine per-file state (mmap), NULL if none */
};

struct lb_io {
    struct lb_file *file;
    uint64_t offset;         /* absolute offset in the file */
    uint32_t len;
    uint8_t ddir;            /* LB_READ, LB_WRITE, LB_TRIM, LB_SYNC_OP... */
    uint16_t ioprio;         /* the priority it went at (job/prio.h): the
                                clone's, or what an LB_ENG_IOPRIO engine drew */
    void *buf;
    int buf_index;           /* index of a registered buffer, or -1 */
    int64_t result;          /* bytes transferred, or -errno */
    uint64_t t_start;        /* when the core queued it (clock ns) */
    uint64_t t_issue;        /* when it reached the kernel (slat end) */
    uint64_t t_done;         /* completion; the core fills 0 */
    uint64_t t_sched;        /* when the rate schedule had it due (clock
                                ns); 0: no rate cap.  The core's only */
    void *eng;               /* engine scratch */
};

struct lb_engine_cfg {
    const struct lb_job *job;
    unsigned depth;          /* iodepth */
    bool direct;
    struct lb_file *files;   /* the worker's files, already open */
    unsigned nfiles;
    void *bufs;              /* depth buffers of buf_len bytes, aligned */
    size_t buf_len;
    unsigned clone;          /* clone number within the job */
    unsigned busy_clones;    /* clones of the job (null engine's knee) */
    /* Optional (NULL: none).  init writes why it failed here ("IOPOLL
     * (hipri) needs direct=1"); the pointers are const, the text is not. */
    char *why;
    size_t why_len;
    /* Optional: nonzero once the run is stopping; engines that wait long
     * on their own (the fault engine's delay) poll it.  NULL: never. */
    const volatile int *stop;
};

enum { LB_Q_DONE = 0, LB_Q_QUEUED = 1, LB_Q_BUSY = 2 };
enum {
    LB_ENG_SYNC = 1,         /* queue() completes the I/O */
    LB_ENG_NOFILES = 2,      /* touches no files: nothing laid out */
    LB_ENG_IOPRIO = 4,       /* gives an I/O the priority cmdprio_* draws */
    LB_ENG_NOCOMMIT = 8,     /* queue() hands the I/O over, commit() does
                                nothing: fio's engines without a commit hook
                                count each queued I/O as a submission and a
                                completion of one (iodepth_submit/_complete) */
    LB_ENG_NOEXTEND = 16,    /* cannot write past a file's data: a write job's
                                new file is laid out (fio's FIO_NOEXTEND) */
};

struct lb_engine_ops {
    const char *name;
    const char *help;
    unsigned flags;
    /* Optional: 0 when the kernel supports the engine, else -errno with a
     * sentence in why ("io_uring_setup: Operation not permitted"). */
    int (*probe)(char *why, size_t len);
    /* 0 or -errno (a reason in cfg->why).  *priv may stay NULL for an
     * engine without state: NULL does not mean "not started". */
    int (*init)(const struct lb_engine_cfg *cfg, void **priv);
    void (*cleanup)(void *priv);
    /* Optional, after the core opened f->fd / before it closes it. */
    int (*open_file)(void *priv, struct lb_file *f);
    void (*close_file)(void *priv, struct lb_file *f);
    /* LB_Q_DONE (io->result set), LB_Q_QUEUED, LB_Q_BUSY, or -errno. */
    int (*queue)(void *priv, struct lb_io *io);
    /* Async only: submit what was queued and stamp t_issue.  0 or -errno;
     * what the kernel could not take yet (EAGAIN) stays queued and is
     * submitted by the next commit or getevents. */
    int (*commit)(void *priv);
    /* Async only: wait for at least min completions (never more than are
     * submitted), return up to max in evs; the count or -errno.  An engine
     * may return more than max, never more than it has in flight (evs
     * holds that many): fio's posixaio returns every completion it finds. */
    int (*getevents)(void *priv, unsigned min, unsigned max, struct lb_io **evs);
    /* Optional: the flags for this job when they depend on it (the fault
     * engine mirrors the engine it wraps).  NULL: flags.  Read them through
     * lb_engine_flags. */
    unsigned (*job_flags)(const struct lb_job *job);
};

/* The engine table, NULL-terminated, in --list-engines order. */
extern const struct lb_engine_ops *const lb_engines[];

/* The engine named name ("io_uring", "libaio"...), or NULL. */
const struct lb_engine_ops *lb_engine_find(const char *name);
/* Checks mandatory hooks (init, cleanup, queue; commit and getevents for
 * async engines).  0 or -EINVAL. */
int lb_engine_check(const struct lb_engine_ops *ops);
/* 0 when this kernel runs the engine, else -errno and a reason in why. */
int lb_engine_probe(const struct lb_engine_ops *ops, char *why, size_t len);
/* The engine's flags for job (job_flags when set, else ops->flags).  An
 * engine without LB_ENG_SYNC may still complete an I/O in queue()
 * (LB_Q_DONE): the core handles that for every engine. */
unsigned lb_engine_flags(const struct lb_engine_ops *ops, const struct lb_job *job);

#endif
