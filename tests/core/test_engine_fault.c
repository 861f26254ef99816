/*
 * Description: the fault engine injects what it is told, where it is told:
 * fault_eio=1 fails every I/O with EIO, fault_short=1 returns half of every
 * read, fault_enospc=1 fails writes (not reads) with ENOSPC, fault_delay=1
 * holds each I/O at least fault_delay_us (and a stopping run cuts the
 * wait); with one seed the same I/O indices fail in two runs, over psync
 * and over the async engines alike, and another seed or clone moves them.
 */
#include "engine_harness.h"

static char path[256];

static struct lb_job fault_job(const char *inner)
{
    struct lb_job job;

    memset(&job, 0, sizeof(job));
    job.fault_engine = (char *)inner;
    return job;
}

static bool inner_runs(const char *inner)
{
    char why[256];

    if (lb_engine_probe(lb_engine_find(inner), why, sizeof(why)) == 0)
        return true;
    printf("SKIP fault over %s: %s\n", inner, why);
    return false;
}

/* Reads the 64 blocks through fault; results into res. */
static void read_all(const struct lb_job *job, unsigned depth, unsigned clone,
                     int ddir, int64_t *res)
{
    unsigned char *data = h_alloc((size_t)H_BS * H_BLOCKS);
    struct lb_io ios[H_BLOCKS];
    struct harness h;
    int ret;

    ret = h_start(&h, lb_engine_find("fault"), job, path, O_RDWR, depth);
    CHECK(ret == 0, "fault over %s: init: %s (%s)", job->fault_engine, strerror(-ret), h.why);
    if (ret == 0 && clone) {      /* a second clone: the engine again, seeded apart */
        h.ops->close_file(h.priv, &h.file);
        h.ops->cleanup(h.priv);
        h.cfg.clone = clone;
        CHECK(h.ops->init(&h.cfg, &h.priv) == 0, "init clone %u", clone);
        CHECK(h.ops->open_file(h.priv, &h.file) == 0, "open_file clone %u", clone);
    }
    for (unsigned b = 0; b < H_BLOCKS; b++)
        h_io(&ios[b], &h, ddir, (uint64_t)b * H_BS, H_BS, data + (size_t)b * H_BS);
    CHECK(h_run(&h, ios, H_BLOCKS) == 0, "run over %s", job->fault_engine);
    for (unsigned b = 0; b < H_BLOCKS; b++)
        res[b] = ios[b].result;
    h_stop(&h);
    free(data);
}

static void check_all(const char *inner, unsigned depth, const char *what,
                      const struct lb_job *job, int ddir, int64_t want)
{
    int64_t res[H_BLOCKS];

    read_all(job, depth, 0, ddir, res);
    for (unsigned b = 0; b < H_BLOCKS; b++)
        CHECK(res[b] == want, "%s over %s, iodepth %u, block %u: %lld, want %lld", what,
              inner, depth, b, (long long)res[b], (long long)want);
}

static void check_kinds(const char *inner, unsigned depth)
{
    struct lb_job job = fault_job(inner);

    job.fault_eio = 1;
    check_all(inner, depth, "fault_eio=1 read", &job, LB_READ, -EIO);
    check_all(inner, depth, "fault_eio=1 write", &job, LB_WRITE, -EIO);
    job = fault_job(inner);
    job.fault_short = 1;
    check_all(inner, depth, "fault_short=1 read", &job, LB_READ, H_BS / 2);
    job = fault_job(inner);
    job.fault_enospc = 1;
    check_all(inner, depth, "fault_enospc=1 write", &job, LB_WRITE, -ENOSPC);
    check_all(inner, depth, "fault_enospc=1 read", &job, LB_READ, H_BS);
}

/* Bit b set when block b failed. */
static uint64_t failed_set(const char *inner, unsigned depth, uint64_t seed, unsigned clone)
{
    struct lb_job job = fault_job(inner);
    int64_t res[H_BLOCKS];
    uint64_t set = 0;

    job.fault_eio = 0.25;
    job.fault_seed = seed;
    read_all(&job, depth, clone, LB_READ, res);
    for (unsigned b = 0; b < H_BLOCKS; b++) {
        CHECK(res[b] == H_BS || res[b] == -EIO, "block %u: %lld", b, (long long)res[b]);
        if (res[b] == -EIO)
            set |= 1ull << b;
    }
    return set;
}

static void check_seeded(void)
{
    uint64_t a = failed_set("psync", 1, 42, 0), b = failed_set("psync", 1, 42, 0);
    static const char *async[] = { "libaio", "io_uring" };

    CHECK(a != 0 && a != ~0ull, "fault_eio=0.25 fails some blocks, not all: %#llx",
          (unsigned long long)a);
    CHECK(a == b, "same seed, same failed blocks: %#llx vs %#llx",
          (unsigned long long)a, (unsigned long long)b);
    CHECK(failed_set("psync", 1, 43, 0) != a, "another seed moves the faults");
    CHECK(failed_set("psync", 1, 42, 1) != a, "another clone moves the faults");
    for (size_t i = 0; i < 2; i++)
        if (inner_runs(async[i])) {
            uint64_t s = failed_set(async[i], 8, 42, 0);
            CHECK(s == a, "over %s at iodepth 8 the same I/Os fail: %#llx vs %#llx",
                  async[i], (unsigned long long)s, (unsigned long long)a);
        }
}

static void check_delay(void)
{
    struct lb_job job = fault_job("psync");
    unsigned char *buf = h_alloc(H_BS);
    struct harness h;
    uint64_t t0, t;

    job.fault_delay = 1;
    job.fault_delay_us = 20000;
    CHECK(h_start(&h, lb_engine_find("fault"), &job, path, O_RDWR, 1) == 0, "init");
    t0 = lb_clock_now();
    CHECK(h_one(&h, LB_READ, 0, H_BS, buf) == H_BS, "a delayed read still reads");
    t = lb_clock_now() - t0;
    CHECK(t >= 20000000, "fault_delay_us=20000: took %llu ns", (unsigned long long)t);
    /* A stopping run is not held for the whole delay. */
    h.stop = 1;
    job.fault_delay_us = 4000000;
    t0 = lb_clock_now();
    CHECK(h_one(&h, LB_READ, 0, H_BS, buf) == H_BS, "read while stopping");
    t = lb_clock_now() - t0;
    CHECK(t < 2000000000, "stop cuts a 4 s delay: took %llu ns", (unsigned long long)t);
    h_stop(&h);
    free(buf);
}

static int make_file(void)
{
    size_t len = (size_t)H_BS * H_BLOCKS;
    unsigned char *data = h_alloc(len);
    int fd, ok;

    if (h_tempfile(h_shm_dir(), path, sizeof(path)) < 0)
        return -1;
    h_pattern(data, len, 0, 1);
    fd = open(path, O_WRONLY);
    ok = fd >= 0 && pwrite(fd, data, len, 0) == (ssize_t)len;
    if (fd >= 0)
        close(fd);
    free(data);
    return ok ? 0 : -1;
}

int main(void)
{
    lb_clock_init();
    if (make_file() < 0) {
        perror("temp file");
        return 1;
    }
    check_kinds("psync", 1);
    if (inner_runs("libaio"))
        check_kinds("libaio", 8);
    if (inner_runs("io_uring"))
        check_kinds("io_uring", 8);
    check_seeded();
    check_delay();
    unlink(path);
    printf("%d failures\n", failures);
    return failures ? 1 : 0;
}
