/*
 * Description: engine conformance, run over every engine in lb_engines
 * (plus io_uring with registered files and buffers, io_uring with SQPOLL,
 * and the fault engine over the async engines, all probabilities 0).
 * For each: write a known pattern block by block through the engine (at
 * iodepth 1, and 8 for async engines), fsync, read it back through the
 * engine, compare; compare the bytes on disk with plain pread; trim punches
 * a hole; a read at end of file returns the short count, past it 0; with
 * O_DIRECT a misaligned buffer or length is -EINVAL, not a crash.  Passes:
 * a file in /dev/shm (buffered), and one under /var/tmp or /tmp with
 * O_DIRECT (skipped where the filesystem refuses O_DIRECT).  The null
 * engine instead completes with result = len and touches nothing.
 * An engine the kernel does not run is skipped with the reason.
 */
#include "engine_harness.h"
#include "tsan.h"

struct config {
    const char *engine;
    const char *label;
    void (*tweak)(struct lb_job *job);
    bool optional;               /* init may be refused (limits, privileges) */
};

static void tweak_fault_psync(struct lb_job *j) { j->fault_engine = "psync"; }
static void tweak_fault_libaio(struct lb_job *j) { j->fault_engine = "libaio"; }
static void tweak_fault_uring(struct lb_job *j) { j->fault_engine = "io_uring"; }
static void tweak_sqpoll(struct lb_job *j) { j->sqthread_poll = true; }
static void tweak_fixed(struct lb_job *j)
{
    j->registerfiles = true;
    j->fixedbufs = true;
}

static const struct config extra_configs[] = {
    { "io_uring", "io_uring registerfiles fixedbufs", tweak_fixed, true },
    { "io_uring", "io_uring sqthread_poll", tweak_sqpoll, true },
    { "fault", "fault over libaio", tweak_fault_libaio, false },
    { "fault", "fault over io_uring", tweak_fault_uring, false },
};

static unsigned n_run, n_skipped;

/* Moves the 64 blocks of data between the engine and the file; with
 * fixedbufs through the registered slots, a wave of depth at a time. */
static int move_blocks(struct harness *h, int ddir, unsigned char *data, int64_t *res)
{
    const struct lb_job *job = h->cfg.job;
    unsigned depth = h->cfg.depth, wave = job->fixedbufs ? depth : H_BLOCKS;
    struct lb_io ios[H_BLOCKS];

    for (unsigned w = 0; w < H_BLOCKS; w += wave) {
        unsigned n = H_BLOCKS - w < wave ? H_BLOCKS - w : wave;
        for (unsigned i = 0; i < n; i++) {
            unsigned b = w + i;
            void *buf = job->fixedbufs ? (void *)((char *)h->bufs + (size_t)i * H_BS)
                                       : (void *)(data + (size_t)b * H_BS);
            h_io(&ios[i], h, ddir, (uint64_t)b * H_BS, H_BS, buf);
            if (job->fixedbufs) {
                ios[i].buf_index = (int)i;
                if (ddir == LB_WRITE)
                    memcpy(buf, data + (size_t)b * H_BS, H_BS);
            }
        }
        int ret = h_run(h, ios, n);
        if (ret < 0)
            return ret;
        for (unsigned i = 0; i < n; i++) {
            res[w + i] = ios[i].result;
            if (job->fixedbufs && ddir == LB_READ)
                memcpy(data + (size_t)(w + i) * H_BS, ios[i].buf, H_BS);
        }
    }
    return 0;
}

static void check_results(const char *what, const int64_t *res, const char *label)
{
    for (unsigned b = 0; b < H_BLOCKS; b++)
        CHECK(res[b] == H_BS, "%s: %s block %u: result %lld", label, what, b,
              (long long)res[b]);
}

static void check_on_disk(const char *path, const unsigned char *want, const char *label)
{
    size_t len = (size_t)H_BS * H_BLOCKS;
    unsigned char *got = malloc(len);
    int fd = open(path, O_RDONLY);

    CHECK(fd >= 0 && pread(fd, got, len, 0) == (ssize_t)len,
          "%s: plain pread of %s", label, path);
    CHECK(memcmp(got, want, len) == 0, "%s: bytes on disk differ from the pattern", label);
    if (fd >= 0)
        close(fd);
    free(got);
}

static void check_write_read(struct harness *h, const char *path, unsigned char *pattern,
                             const char *label)
{
    size_t len = (size_t)H_BS * H_BLOCKS;
    unsigned char *back = h_alloc(len);
    int64_t res[H_BLOCKS];

    CHECK(move_blocks(h, LB_WRITE, pattern, res) == 0, "%s: write run", label);
    check_results("write", res, label);
    CHECK(h_one(h, LB_SYNC_OP, 0, 0, NULL) == 0, "%s: fsync", label);
    CHECK(h_one(h, LB_DATASYNC_OP, 0, 0, NULL) == 0, "%s: fdatasync", label);
    memset(back, 0xEE, len);
    CHECK(move_blocks(h, LB_READ, back, res) == 0, "%s: read run", label);
    check_results("read", res, label);
    CHECK(memcmp(back, pattern, len) == 0, "%s: read back differs from what was written",
          label);
    check_on_disk(path, pattern, label);
    free(back);
}

static void check_trim(struct harness *h, const char *path, unsigned char *pattern,
                       const char *label)
{
    int64_t r = h_one(h, LB_TRIM, H_BS, H_BS, NULL);

    CHECK(r == H_BS || r == -EOPNOTSUPP, "%s: trim result %lld", label, (long long)r);
    if (r == H_BS)
        memset(pattern + H_BS, 0, H_BS);   /* the hole reads as zeros */
    check_on_disk(path, pattern, label);
}

/* The file loses its last 1000 bytes; reading the last block gets the rest. */
static void check_short_read(struct harness *h, const unsigned char *pattern,
                             const char *label)
{
    uint64_t end = (uint64_t)H_BS * H_BLOCKS;
    unsigned char *buf = h_alloc(H_BS);
    int64_t r;

    CHECK(ftruncate(h->file.fd, (off_t)(end - 1000)) == 0, "%s: truncate", label);
    CHECK(h_reopen_file(h) == 0, "%s: reopen after truncate", label);
    r = h_one(h, LB_READ, end - H_BS, H_BS, buf);
    CHECK(r == H_BS - 1000, "%s: short read at EOF: %lld, want %u", label,
          (long long)r, H_BS - 1000);
    if (r > 0)
        CHECK(memcmp(buf, pattern + end - H_BS, (size_t)r) == 0,
              "%s: short read bytes", label);
    r = h_one(h, LB_READ, end, H_BS, buf);
    CHECK(r == 0, "%s: read past EOF: %lld, want 0", label, (long long)r);
    free(buf);
}

static void check_misaligned(struct harness *h, const char *label)
{
    unsigned char *buf = h_alloc(2 * H_BS);
    int64_t r;

    r = h_one(h, LB_READ, 0, H_BS, buf + 1);
    CHECK(r == -EINVAL, "%s: O_DIRECT read into a misaligned buffer: %lld", label,
          (long long)r);
    r = h_one(h, LB_READ, 0, 1000, buf);
    CHECK(r == -EINVAL, "%s: O_DIRECT read of 1000 bytes: %lld", label, (long long)r);
    free(buf);
}

/* A file that is not open, between two good reads in one batch: its I/O
 * fails with EBADF (for async engines, the kernel refuses it at submission
 * or completion) and the others are unharmed. */
static void check_bad_fd(struct harness *h, const char *label)
{
    struct lb_file bad = { .path = "closed", .fd = -1, .reg_index = -1, .size = H_BS };
    unsigned char *buf = h_alloc(3 * H_BS);
    struct lb_io ios[3];

    for (unsigned i = 0; i < 3; i++)
        h_io(&ios[i], h, LB_READ, (uint64_t)i * H_BS, H_BS, buf + (size_t)i * H_BS);
    ios[1].file = &bad;
    ios[1].offset = 0;
    CHECK(h_run(h, ios, 3) == 0, "%s: run with a closed file", label);
    CHECK(ios[0].result == H_BS && ios[2].result == H_BS, "%s: good I/Os: %lld %lld",
          label, (long long)ios[0].result, (long long)ios[2].result);
    CHECK(ios[1].result == -EBADF, "%s: I/O on a closed file: %lld", label,
          (long long)ios[1].result);
    free(buf);
}

/* 1 when the pass ran, 0 when init was refused for an optional config. */
static int pass_files(const struct config *c, const struct lb_job *job, const char *dir,
                      int oflags, unsigned depth)
{
    const struct lb_engine_ops *ops = lb_engine_find(c->engine);
    size_t len = (size_t)H_BS * H_BLOCKS;
    unsigned char *pattern = h_alloc(len);
    struct harness h;
    char path[256], label[384];
    int ret;

    snprintf(label, sizeof(label), "%s, %s%s, iodepth %u", c->label, dir,
             oflags & O_DIRECT ? " O_DIRECT" : "", depth);
    CHECK(h_tempfile(dir, path, sizeof(path)) == 0, "%s: temp file", label);
    h_pattern(pattern, len, 0, depth * 7 + (unsigned)oflags);
    ret = h_start(&h, ops, job, path, O_RDWR | oflags, depth);
    if (ret < 0 && c->optional) {
        printf("SKIP %s: init: %s (%s)\n", label, strerror(-ret), h.why);
    } else {
        CHECK(ret == 0, "%s: init: %s (%s)", label, strerror(-ret), h.why);
    }
    if (ret == 0) {
        check_write_read(&h, path, pattern, label);
        check_bad_fd(&h, label);
        check_trim(&h, path, pattern, label);
        check_short_read(&h, pattern, label);
        if ((oflags & O_DIRECT) && strcmp(c->engine, "mmap") != 0)
            check_misaligned(&h, label);
        printf("ok   %s\n", label);
    }
    h_stop(&h);
    unlink(path);
    free(pattern);
    return ret == 0;
}

static void pass_null(const struct config *c, const struct lb_job *job)
{
    unsigned char *buf = h_alloc(H_BS), *copy = malloc(H_BS);
    struct harness h;

    CHECK(h_start(&h, lb_engine_find(c->engine), job, NULL, 0, 1) == 0, "%s: init", c->label);
    for (int ddir = LB_READ; ddir <= LB_TRIM; ddir++) {
        h_pattern(buf, H_BS, 0, (unsigned)ddir);
        memcpy(copy, buf, H_BS);
        int64_t r = h_one(&h, ddir, 12345, H_BS, buf);
        CHECK(r == H_BS, "%s: ddir %d result %lld", c->label, ddir, (long long)r);
        CHECK(memcmp(buf, copy, H_BS) == 0, "%s: buffer touched", c->label);
    }
    h_stop(&h);
    free(buf);
    free(copy);
    printf("ok   %s (touches nothing)\n", c->label);
}

/* Where O_DIRECT works: /var/tmp, else /tmp, else NULL. */
static const char *direct_dir(void)
{
    static const char *dirs[] = { "/var/tmp", "/tmp" };

    for (size_t i = 0; i < 2; i++) {
        char path[256];
        if (h_tempfile(dirs[i], path, sizeof(path)) < 0)
            continue;
        int fd = open(path, O_RDWR | O_DIRECT);
        unlink(path);
        if (fd >= 0) {
            close(fd);
            return dirs[i];
        }
    }
    return NULL;
}

static void run_config(const struct config *c)
{
    const struct lb_engine_ops *ops = lb_engine_find(c->engine);
    struct lb_job job;
    char why[256];
    int ret;

    memset(&job, 0, sizeof(job));
    if (c->tweak)
        c->tweak(&job);
    ret = lb_engine_probe(ops, why, sizeof(why));
    if (ret == 0 && strcmp(c->engine, "fault") == 0)
        ret = lb_engine_probe(lb_engine_find(job.fault_engine), why, sizeof(why));
    if (ret < 0) {
        printf("SKIP %s: %s\n", c->label, why);
        n_skipped++;
        return;
    }
    n_run++;
    unsigned flags = lb_engine_flags(ops, &job);
    if (flags & LB_ENG_NOFILES) {
        pass_null(c, &job);
        return;
    }
    const char *ddir = direct_dir();
    for (unsigned depth = 1; depth <= 8; depth += 7) {
        if (depth > 1 && (flags & LB_ENG_SYNC))
            break;
        pass_files(c, &job, h_shm_dir(), 0, depth);
        if (ddir)
            pass_files(c, &job, ddir, O_DIRECT, depth);
    }
    if (!ddir)
        printf("SKIP %s O_DIRECT pass: no O_DIRECT filesystem under /var/tmp or /tmp\n",
               c->label);
}

/* pvsync2 with nowait or hipri: every result is the bytes, or the EAGAIN /
 * EOPNOTSUPP the kernel answers with (a result, not a crash), and the bytes
 * read are the file's. */
static void check_pvsync2_flags(void)
{
    static const char *names[] = { "pvsync2 nowait", "pvsync2 hipri" };
    size_t len = (size_t)H_BS * H_BLOCKS;
    unsigned char *pattern = h_alloc(len), *back = h_alloc(len);
    char path[256];
    int64_t res[H_BLOCKS];
    struct harness h;

    for (int k = 0; k < 2; k++) {
        struct lb_job job = { .nowait = k == 0, .hipri = k == 1 };
        CHECK(h_tempfile(h_shm_dir(), path, sizeof(path)) == 0, "temp file");
        CHECK(h_start(&h, lb_engine_find("pvsync2"), &job, path, O_RDWR, 1) == 0, "init");
        h_pattern(pattern, len, 0, 99);
        for (int ddir = LB_WRITE; ddir >= LB_READ; ddir--) {
            memset(back, 0xEE, len);
            CHECK(move_blocks(&h, ddir, ddir == LB_WRITE ? pattern : back, res) == 0, "run");
            for (unsigned b = 0; b < H_BLOCKS; b++) {
                int64_t r = res[b];
                CHECK(r == H_BS || r == -EAGAIN || r == -EOPNOTSUPP,
                      "%s: ddir %d block %u: %lld", names[k], ddir, b, (long long)r);
                if (ddir == LB_WRITE && r != H_BS)
                    memset(pattern + (size_t)b * H_BS, 0, H_BS);  /* never written */
                if (ddir == LB_READ && r == H_BS)
                    CHECK(memcmp(back + (size_t)b * H_BS, pattern + (size_t)b * H_BS,
                                   H_BS) == 0, "%s: block %u bytes", names[k], b);
            }
            printf("ok   %s %s: %lld bytes first block\n", names[k],
                   ddir == LB_READ ? "read" : "write", (long long)res[0]);
        }
        h_stop(&h);
        unlink(path);
    }
    free(pattern);
    free(back);
}

/* glibc's POSIX AIO starts its helper threads inside libc, where
 * ThreadSanitizer cannot see them (its allocator crashes in them): the
 * posixaio engine is left out of a ThreadSanitizer build's run. */
static bool left_out(const char *engine)
{
#ifdef LB_TSAN
    if (strncmp(engine, "posixaio", 8) == 0) {
        printf("skip %s: glibc's AIO threads are invisible to ThreadSanitizer\n", engine);
        n_skipped++;
        return true;
    }
#endif
    (void)engine;
    return false;
}

int main(void)
{
    lb_clock_init();
    for (const struct lb_engine_ops *const *e = lb_engines; *e; e++) {
        struct config c = { (*e)->name, (*e)->name, NULL, false };
        if (left_out((*e)->name))
            continue;
        if (strcmp((*e)->name, "fault") == 0)
            c = (struct config){ "fault", "fault over psync", tweak_fault_psync, false };
        run_config(&c);
    }
    for (size_t i = 0; i < sizeof(extra_configs) / sizeof(extra_configs[0]); i++)
        if (!left_out(extra_configs[i].engine))
            run_config(&extra_configs[i]);
    check_pvsync2_flags();
    printf("%u configurations run, %u skipped, %d failures\n", n_run, n_skipped, failures);
    if (n_run == 0)
        return 77;
    return failures ? 1 : 0;
}
