/*
 * Shared by the run loop tests (test_run_*.c): a scratch directory under
 * /dev/shm made with mkdtemp and removed at the end, jobs built from fio
 * option strings, a run driven from start to results (or a long one to
 * end early), the file engines a test repeats over, and small file helpers
 * (size, mtime, checksum, xattr).
 * Static functions only: each test is one executable.
 */
#ifndef LB_TEST_RUN_H
#define LB_TEST_RUN_H

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "engine.h"
#include "options.h"
#include "run.h"
#include "shm_dir.h"
#include "check.h"

static char t_dir[256];

static inline void t_dir_remove(void)
{
    if (t_dir[0])
        shm_dir_remove(t_dir);
    t_dir[0] = '\0';
}

/* A fresh directory under /dev/shm (else $TMPDIR or /tmp), removed at exit;
 * exits 77 when it cannot be made. */
static inline const char *t_dir_make(const char *tag)
{
    if (shm_dir_make(t_dir, sizeof(t_dir), tag)) {
        perror("mkdtemp");
        exit(77);
    }
    atexit(t_dir_remove);
    return t_dir;
}

static inline char *t_path(const char *name)
{
    static char buf[8][512];
    static int i;

    i = (i + 1) % 8;
    snprintf(buf[i], sizeof(buf[i]), "%s/%s", t_dir, name);
    return buf[i];
}

/* The file engines a behaviour is checked over (liburing's
 * FOR_ALL_TEST_CONFIGS habit): a test loops over them and skips, with the
 * reason on stderr, each one t_engine_runs says this kernel refuses. */
static const char *const t_engines[] = { "psync", "libaio", "io_uring" };
#define T_NENGINES (sizeof(t_engines) / sizeof(t_engines[0]))

static inline bool t_engine_runs(const char *name)
{
    const struct lb_engine_ops *ops = lb_engine_find(name);
    char why[256] = "";

    if (ops && lb_engine_probe(ops, why, sizeof(why)) == 0)
        return true;
    fprintf(stderr, "SKIP %s: %s\n", name, ops ? why : "no such engine");
    return false;
}

/* A job from "key=value" pairs, NULL-terminated; exits on a bad option. */
static inline void t_job(struct lb_job *j, ...)
{
    va_list ap;
    const char *kv;
    char err[256];

    lb_job_init(j);
    va_start(ap, j);
    while ((kv = va_arg(ap, const char *))) {
        char key[128];
        const char *eq = strchr(kv, '=');

        snprintf(key, sizeof(key), "%.*s", (int)(eq - kv), kv);
        if (lb_job_set(j, key, eq + 1, err, sizeof(err))) {
            fprintf(stderr, "bad option %s: %s\n", kv, err);
            exit(1);
        }
    }
    va_end(ap);
}

/* Runs jobs to the end (intervals drained).  0 or -errno with the message
 * in err; *out is the waited run (free it) on success. */
static inline int t_run(struct lb_job *jobs, size_t n, struct lb_run **out, char *err, size_t errlen)
{
    struct lb_run *r;
    const struct lb_interval *iv;
    int ret = lb_run_new(&r, jobs, n, err, errlen);

    *out = NULL;
    if (ret)
        return ret;
    ret = lb_run_prepare(r);
    if (!ret)
        ret = lb_run_start(r);
    while (!ret && (ret = lb_run_next_interval(r, &iv)) == 1)
        ret = 0;
    if (!ret)
        ret = lb_run_wait(r);
    if (ret) {
        snprintf(err, errlen, "%s", lb_run_error(r));
        lb_run_free(r);
        return ret;
    }
    *out = r;
    return 0;
}

/* t_run for one job that must run: prints "FAIL: message" and exits 1
 * when it does not. */
static inline struct lb_run *t_run_one(struct lb_job *job)
{
    struct lb_run *r;
    char err[512];

    if (t_run(job, 1, &r, err, sizeof(err))) {
        fprintf(stderr, "FAIL: %s\n", err);
        exit(1);
    }
    return r;
}

/* Runs one job, frees it and copies the run's total into *out (lb_stats_init'ed
 * here; lb_stats_release it).  0, or -errno with the message on stderr. */
static inline int t_run_total(struct lb_job *job, struct lb_stats *out)
{
    struct lb_run *r;
    char err[512];
    int ret = t_run(job, 1, &r, err, sizeof(err));

    lb_job_free(job);
    if (ret) {
        fprintf(stderr, "%s\n", err);
        return ret;
    }
    lb_stats_init(out);
    lb_stats_merge(out, lb_run_total(r));
    lb_run_free(r);
    return 0;
}

/* Starts a 60 s job (named by "name=...") reporting every 100 ms, for a
 * test that ends it early: over the null engine (100 us per I/O), or over
 * a file engine reading a 1 MiB file of the scratch directory; exits 1
 * when it cannot start.  Returns 1 once the first interval is in, 0 when
 * the run ended before. */
static inline int t_start_long_on(struct lb_job *job, const char *name, const char *engine,
                                  struct lb_run **out)
{
    const struct lb_interval *iv;
    char err[512], eop[64], fop[600];

    snprintf(eop, sizeof(eop), "ioengine=%s", engine);
    snprintf(fop, sizeof(fop), "filename=%s", t_path(engine));
    if (strcmp(engine, "null") == 0)
        t_job(job, name, eop, "null_lat=100000", "size=64m",
              "time_based=1", "runtime=60s", "interval=100ms", NULL);
    else
        t_job(job, name, eop, fop, "size=1m",
              "time_based=1", "runtime=60s", "interval=100ms", NULL);
    if (lb_run_new(out, job, 1, err, sizeof(err)) || lb_run_prepare(*out) ||
        lb_run_start(*out)) {
        fprintf(stderr, "FAIL: %s\n", err);
        exit(1);
    }
    return lb_run_next_interval(*out, &iv) == 1;
}

static inline int t_start_long(struct lb_job *job, const char *name, struct lb_run **out)
{
    return t_start_long_on(job, name, "null", out);
}

/* Drains the intervals left and waits for the run: lb_run_wait's result. */
static inline int t_finish(struct lb_run *r)
{
    const struct lb_interval *iv;

    while (lb_run_next_interval(r, &iv) == 1)
        ;
    return lb_run_wait(r);
}

static inline uint64_t t_ios(const struct lb_stats *s)
{
    return s->dir[0].ios + s->dir[1].ios + s->dir[2].ios;
}

static inline uint64_t t_file_hash(const char *path)
{
    uint64_t h = 1469598103934665603ull;
    unsigned char buf[65536];
    ssize_t n;
    int fd = open(path, O_RDONLY);

    if (fd < 0)
        return 0;
    while ((n = read(fd, buf, sizeof(buf))) > 0)
        for (ssize_t i = 0; i < n; i++)
            h = (h ^ buf[i]) * 1099511628211ull;
    close(fd);
    return h;
}

static inline int t_write_file(const char *path, size_t len, unsigned char fill)
{
    unsigned char buf[4096];
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

    if (fd < 0)
        return -1;
    memset(buf, fill, sizeof(buf));
    for (size_t off = 0; off < len; off += sizeof(buf))
        if (write(fd, buf, len - off < sizeof(buf) ? len - off : sizeof(buf)) < 0) {
            close(fd);
            return -1;
        }
    close(fd);
    return 0;
}

#endif
