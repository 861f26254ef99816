/* Description: files opened at first use.  With openfiles=4 over 64 files
 * no more than 4 of the job's files are ever open in the worker and every
 * file is read, with sync engines and with async ones (iodepth above
 * openfiles); end_fsync syncs each file written once; a file that is gone
 * when its turn to be opened comes ends the clone with an error naming
 * it.  create_on_open lays
 * nothing out and creates each file (marked as luabench's) only when its
 * first I/O comes; a read of such a new file is short.  Under a descriptor
 * limit of 256 a job over 1200 files runs, opening at most the bound its
 * note names. */
#include <dirent.h>
#include <sys/resource.h>
#include "engine.h"
#include "files.h"
#include "test_run.h"

#define NF_MAX 1200

struct seen {
    unsigned open_max;           /* most of t_dir's files open at one completion */
    unsigned used[NF_MAX];       /* completions per file number */
    unsigned early;              /* files found on disk before their first I/O */
    const char *dir;             /* create_on_open: look for early files here */
    unsigned nfiles;
};

static unsigned file_number(const char *path)
{
    const char *dot = strrchr(path, '.');

    return dot ? (unsigned)strtoul(dot + 1, NULL, 10) : 0;
}

/* The descriptors of the calling thread's table that name a file in t_dir. */
static unsigned open_in_dir(void)
{
    DIR *d = opendir("/proc/thread-self/fd");
    struct dirent *e;
    unsigned n = 0;

    if (!d)
        return 0;
    while ((e = readdir(d))) {
        char link[600], target[600];
        ssize_t len;

        snprintf(link, sizeof(link), "/proc/thread-self/fd/%s", e->d_name);
        len = readlink(link, target, sizeof(target) - 1);
        if (len <= 0)
            continue;
        target[len] = '\0';
        n += strncmp(target, t_dir, strlen(t_dir)) == 0;
    }
    closedir(d);
    return n;
}

static void trace(void *arg, unsigned job, unsigned clone, const struct lb_io *io)
{
    struct seen *s = arg;
    unsigned n = open_in_dir(), k = file_number(io->file->path);

    if (n > s->open_max)
        s->open_max = n;
    if (s->dir && !s->used[k])
        for (unsigned i = 0; i < s->nfiles; i++) {
            char path[400];

            snprintf(path, sizeof(path), "%s/of.0.%u", s->dir, i);
            s->early += i != k && !s->used[i] && access(path, F_OK) == 0;
        }
    if (k < NF_MAX)
        s->used[k]++;
}

/* Runs job with the trace on; 0, 77 when the engine is not supported
 * here, else 1.  *total gets the run's total (release it). */
static int run_traced(struct lb_job *job, struct seen *s, struct lb_stats *total,
                      char *note, size_t notelen)
{
    const struct lb_interval *iv;
    struct lb_run *r;
    char err[512];
    int ret = lb_run_new(&r, job, 1, err, sizeof(err));

    lb_job_free(job);
    if (ret) {
        fprintf(stderr, "%s\n", err);
        return strstr(err, "not supported here") ? 77 : 1;
    }
    lb_run_set_trace(r, trace, s);
    ret = lb_run_prepare(r) ?: lb_run_start(r);
    while (!ret && (ret = lb_run_next_interval(r, &iv)) == 1)
        ret = 0;
    ret = ret ?: lb_run_wait(r);
    if (ret)
        fprintf(stderr, "FAIL: %s\n", lb_run_error(r));
    if (note)
        snprintf(note, notelen, "%s", lb_run_note(r) ? lb_run_note(r) : "");
    lb_stats_init(total);
    if (!ret)
        lb_stats_merge(total, lb_run_total(r));
    lb_run_free(r);
    return ret ? 1 : 0;
}

static unsigned files_used(const struct seen *s, unsigned n)
{
    unsigned k = 0;

    for (unsigned i = 0; i < n; i++)
        k += s->used[i] > 0;
    return k;
}

/* openfiles=4 over 64 files of one engine configuration. */
static void bounded(const char *engine, const char *depth, const char *extra)
{
    static struct seen s;
    struct lb_stats t;
    struct lb_job job;
    char dop[300];
    int ret;

    memset(&s, 0, sizeof(s));
    snprintf(dop, sizeof(dop), "directory=%s", t_dir);
    t_job(&job, "name=of", engine, depth, extra, "rw=randread", "bs=4k", "nrfiles=64",
          "filesize=8k", "openfiles=4", "file_service_type=random", dop, NULL);
    ret = run_traced(&job, &s, &t, NULL, 0);
    if (ret == 77) {
        fprintf(stderr, "skipped: %s\n", engine);
        return;
    }
    CHECK(ret == 0, "%s: the run failed", engine);
    CHECK(s.open_max >= 1 && s.open_max <= 4, "%s: %u files open at once", engine,
          s.open_max);
    CHECK(files_used(&s, 64) == 64, "%s: %u of 64 files read", engine, files_used(&s, 64));
    CHECK(t.dir[LB_READ].ios == 128 && t.err.count == 0 && t.dir[LB_READ].short_ios == 0,
          "%s: %llu reads, %llu short, %llu errors (%s)", engine,
          (unsigned long long)t.dir[LB_READ].ios, (unsigned long long)t.dir[LB_READ].short_ios,
          (unsigned long long)t.err.count, t.err.first_msg);
    lb_stats_release(&t);
}

static void end_fsync(void)
{
    static struct seen s;
    struct lb_stats t;
    struct lb_job job;
    char dop[300];

    memset(&s, 0, sizeof(s));
    snprintf(dop, sizeof(dop), "directory=%s", t_dir);
    t_job(&job, "name=of", "ioengine=psync", "rw=randwrite", "bs=4k", "nrfiles=8",
          "filesize=8k", "openfiles=2", "end_fsync=1", dop, NULL);
    if (run_traced(&job, &s, &t, NULL, 0))
        exit(1);
    CHECK(s.open_max <= 2, "end_fsync: %u files open at once", s.open_max);
    /* fio counts and times no end_fsync (tests/sh/test_sync_files.sh
     * counts the system calls: one per file) */
    CHECK(t.dir[LB_WRITE].ios == 16 && t.fsyncs == 0 && lb_hist_count(t.sync_lat) == 0 && t.err.count == 0,
          "end_fsync: %llu writes, %llu fsyncs counted, %llu errors (%s)",
          (unsigned long long)t.dir[LB_WRITE].ios, (unsigned long long)t.fsyncs,
          (unsigned long long)t.err.count, t.err.first_msg);
    lb_stats_release(&t);
}

static void drop_file3(void *arg, unsigned job, unsigned clone, const struct lb_io *io)
{
    char name[64];

    snprintf(name, sizeof(name), "gone/of.0.3");
    if (!*(int *)arg)
        unlink(t_path(name));
    *(int *)arg = 1;
}

static void open_fails(void)
{
    const struct lb_interval *iv;
    const struct lb_stats *t;
    struct lb_run *r;
    struct lb_job job;
    char dop[600], sub[400], err[512];
    int once = 0, ret;

    snprintf(sub, sizeof(sub), "%s/gone", t_dir);
    mkdir(sub, 0755);
    snprintf(dop, sizeof(dop), "directory=%s", sub);
    t_job(&job, "name=of", "ioengine=psync", "rw=read", "bs=4k", "nrfiles=4", "filesize=8k",
          "openfiles=1", dop, NULL);
    ret = lb_run_new(&r, &job, 1, err, sizeof(err));
    lb_job_free(&job);
    if (ret)
        exit(1);
    lb_run_set_trace(r, drop_file3, &once);
    ret = lb_run_prepare(r) ?: lb_run_start(r);
    while (!ret && (ret = lb_run_next_interval(r, &iv)) == 1)
        ret = 0;
    ret = ret ?: lb_run_wait(r);
    CHECK(ret == 0, "a failed open failed the run: %s", lb_run_error(r));
    t = lb_run_total(r);
    CHECK(t && t->err.count == 1 && t->err.first_errno == ENOENT &&
          strstr(t->err.first_msg, "cannot open ") && strstr(t->err.first_msg, "of.0.3") &&
          t->dir[LB_READ].ios == 3, "a failed open: %llu errors, errno %d, '%s', %llu reads",
          t ? (unsigned long long)t->err.count : 0ull, t ? t->err.first_errno : 0,
          t ? t->err.first_msg : "", t ? (unsigned long long)t->dir[LB_READ].ios : 0ull);
    lb_run_free(r);
}

static void create_on_open(const char *rw)
{
    static struct seen s;
    struct lb_stats t;
    struct lb_job job;
    char dop[600], sub[400], rwop[32];
    bool reads = strcmp(rw, "randread") == 0;

    memset(&s, 0, sizeof(s));
    snprintf(sub, sizeof(sub), "%s/coo-%s", t_dir, rw);
    s.dir = sub;
    s.nfiles = 8;
    mkdir(sub, 0755);
    snprintf(dop, sizeof(dop), "directory=%s", sub);
    snprintf(rwop, sizeof(rwop), "rw=%s", rw);
    t_job(&job, "name=of", "ioengine=psync", rwop, "bs=4k", "nrfiles=8", "filesize=16k",
          "create_on_open=1", "file_service_type=random", dop, NULL);
    if (run_traced(&job, &s, &t, NULL, 0))
        exit(1);
    CHECK(s.early == 0, "create_on_open %s: %u files existed before their first I/O", rw,
          s.early);
    for (unsigned i = 0; i < 8; i++) {
        char path[600];
        struct stat st;

        snprintf(path, sizeof(path), "%s/of.0.%u", sub, i);
        CHECK(stat(path, &st) == 0 && st.st_size == (reads ? 0 : 16384),
              "create_on_open %s: %s is missing or of the wrong size", rw, path);
        CHECK(lb_file_is_ours(path) == 1, "create_on_open %s: %s is not marked", rw, path);
    }
    if (reads)
        CHECK(t.dir[LB_READ].ios == 32 && t.dir[LB_READ].short_ios == 32 &&
              t.dir[LB_READ].bytes == 0 && t.err.count == 0,
              "create_on_open reads: %llu ios, %llu short, %llu bytes, %llu errors",
              (unsigned long long)t.dir[LB_READ].ios,
              (unsigned long long)t.dir[LB_READ].short_ios,
              (unsigned long long)t.dir[LB_READ].bytes, (unsigned long long)t.err.count);
    else
        CHECK(t.dir[LB_WRITE].ios == 32 && t.err.count == 0,
              "create_on_open writes: %llu ios, %llu errors (%s)",
              (unsigned long long)t.dir[LB_WRITE].ios, (unsigned long long)t.err.count,
              t.err.first_msg);
    lb_stats_release(&t);
}

/* Last: lowers this process's descriptor limit for good. */
static void low_limit(void)
{
    static struct seen s;
    struct rlimit rl = { 256, 256 };
    struct lb_stats t;
    struct lb_job job;
    char dop[600], sub[400], note[256];
    unsigned bound = 0;
    const char *at;

    if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
        perror("setrlimit");
        exit(1);
    }
    memset(&s, 0, sizeof(s));
    snprintf(sub, sizeof(sub), "%s/many", t_dir);
    mkdir(sub, 0755);
    snprintf(dop, sizeof(dop), "directory=%s", sub);
    t_job(&job, "name=of", "ioengine=psync", "rw=randread", "bs=4k", "nrfiles=1200",
          "filesize=4k", "file_service_type=random", dop, NULL);
    if (run_traced(&job, &s, &t, note, sizeof(note)))
        exit(1);
    at = strstr(note, "at most ");
    if (at)
        bound = (unsigned)strtoul(at + 8, NULL, 10);
    CHECK(strstr(note, "opening files lazily: 1200 files per clone") && bound >= 1 &&
          bound < 256 && strstr(note, "(descriptor limit 256)"), "note: '%s'", note);
    CHECK(s.open_max >= 1 && s.open_max <= bound, "%u files open at once, bound %u",
          s.open_max, bound);
    CHECK(t.dir[LB_READ].ios == 1200 && t.err.count == 0 && files_used(&s, 1200) == 1200,
          "%llu reads of %u files, %llu errors (%s)", (unsigned long long)t.dir[LB_READ].ios,
          files_used(&s, 1200), (unsigned long long)t.err.count, t.err.first_msg);
    lb_stats_release(&t);
}

int main(void)
{
    t_dir_make("openfiles");
    if (access("/proc/thread-self/fd", R_OK) != 0) {
        fprintf(stderr, "no /proc/thread-self/fd: skipped\n");
        return 77;
    }
    bounded("ioengine=psync", "iodepth=1", "invalidate=1");
    bounded("ioengine=mmap", "iodepth=1", "invalidate=0");
    bounded("ioengine=libaio", "iodepth=8", "iodepth_batch_submit=4");
    bounded("ioengine=io_uring", "iodepth=8", "registerfiles=1");
    end_fsync();
    open_fails();
    create_on_open("randwrite");
    create_on_open("randread");
    low_limit();
    return failures ? 1 : 0;
}
