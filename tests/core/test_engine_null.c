/*
 * Description: the null engine, the reference engine: every I/O completes
 * in queue() with result = len and no buffer or file touched; with
 * null_lat each I/O takes at least that long; past null_knee busy clones
 * the latency grows in proportion (null_lat * busy_clones / null_knee).
 * Above iodepth=1 it is asynchronous, as fio's: I/Os wait for commit, BUSY
 * beyond iodepth, and each completes null_lat after its submission, oldest
 * first.  Only lower bounds on time are asserted.
 */
#include "engine_harness.h"

static void check_results(void)
{
    const struct lb_engine_ops *ops = lb_engine_find("null");
    unsigned char buf[512], copy[512];
    struct lb_job job = { 0 };
    struct harness h;

    CHECK(ops && (lb_engine_flags(ops, &job) & (LB_ENG_SYNC | LB_ENG_NOFILES)) ==
          (LB_ENG_SYNC | LB_ENG_NOFILES), "null is sync and touches no files");
    CHECK(h_start(&h, ops, &job, NULL, 0, 4) == 0, "init");
    for (int ddir = LB_READ; ddir <= LB_DATASYNC_OP; ddir++) {
        h_pattern(buf, sizeof(buf), 0, (unsigned)ddir);
        memcpy(copy, buf, sizeof(buf));
        struct lb_io io;
        h_io(&io, &h, ddir, 1u << 30, sizeof(buf), buf);
        io.file = NULL;           /* a files-less engine never looks */
        CHECK(ops->queue(h.priv, &io) == LB_Q_DONE, "ddir %d completes in queue", ddir);
        CHECK(io.result == sizeof(buf), "ddir %d result %lld", ddir, (long long)io.result);
        CHECK(memcmp(buf, copy, sizeof(buf)) == 0, "ddir %d touched the buffer", ddir);
    }
    h_stop(&h);
}

/* The time one read takes with this job and busy_clones, in ns. */
static uint64_t timed_read(const struct lb_job *job, unsigned busy_clones)
{
    const struct lb_engine_ops *ops = lb_engine_find("null");
    struct lb_engine_cfg cfg = { .job = job, .depth = 1, .busy_clones = busy_clones };
    struct lb_io io = { .ddir = LB_READ, .len = 4096, .buf_index = -1 };
    void *priv = NULL;
    uint64_t t0, t1;

    CHECK(ops->init(&cfg, &priv) == 0, "init");
    t0 = lb_clock_now();
    CHECK(ops->queue(priv, &io) == LB_Q_DONE && io.result == 4096, "timed read");
    t1 = lb_clock_now();
    ops->cleanup(priv);
    return t1 - t0;
}

static void check_latency(void)
{
    struct lb_job job = { .null_lat = 2000000 };
    uint64_t t = timed_read(&job, 1);

    CHECK(t >= 2000000, "null_lat=2ms: the I/O took %llu ns", (unsigned long long)t);
    job.null_lat = 1000000;
    job.null_knee = 2;
    t = timed_read(&job, 6);
    CHECK(t >= 3000000, "null_lat=1ms, knee 2, 6 clones: took %llu ns, want >= 3 ms",
          (unsigned long long)t);
    t = timed_read(&job, 2);
    CHECK(t >= 1000000, "at the knee: took %llu ns, want >= 1 ms", (unsigned long long)t);
}

/* iodepth=8: 8 queued, the 9th BUSY; getevents(min 1) waits for the first
 * to be due and returns them oldest first with result = len. */
static void check_async(void)
{
    const struct lb_engine_ops *ops = lb_engine_find("null");
    struct lb_job job = { .iodepth = 8, .null_lat = 2000000 };
    struct lb_engine_cfg cfg = { .job = &job, .depth = 8 };
    struct lb_io io[9], *evs[8];
    void *priv = NULL;
    unsigned got = 0;
    uint64_t t0;

    CHECK((lb_engine_flags(ops, &job) & (LB_ENG_SYNC | LB_ENG_NOFILES)) == LB_ENG_NOFILES,
          "null at iodepth=8 is async");
    CHECK(ops->init(&cfg, &priv) == 0, "init");
    for (int i = 0; i < 9; i++) {
        io[i] = (struct lb_io){ .ddir = LB_READ, .offset = 4096u * i, .len = 4096,
                                .buf_index = -1, .result = -1 };
        CHECK(ops->queue(priv, &io[i]) == (i < 8 ? LB_Q_QUEUED : LB_Q_BUSY), "queue %d", i);
    }
    t0 = lb_clock_now();
    CHECK(ops->commit(priv) == 0, "commit");
    CHECK(ops->getevents(priv, 0, 8, evs) == 0, "nothing due before null_lat");
    while (got < 8) {
        int n = ops->getevents(priv, 1, 8 - got, evs + got);

        CHECK(n >= 1, "getevents(1) returned %d", n);
        if (n < 1)
            break;
        got += (unsigned)n;
    }
    CHECK(lb_clock_now() - t0 >= 2000000, "completed before null_lat");
    for (unsigned i = 0; i < got; i++)
        CHECK(evs[i] == &io[i] && io[i].result == 4096, "completion %u out of order", i);
    ops->cleanup(priv);
}

int main(void)
{
    lb_clock_init();
    check_results();
    check_latency();
    check_async();
    printf("%d failures\n", failures);
    return failures ? 1 : 0;
}
