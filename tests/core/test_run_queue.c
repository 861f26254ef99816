/* Description: async queueing as fio does it (iodepth, iodepth_batch_submit,
 * iodepth_batch_complete_min/max, iodepth_low), over the null engine with a
 * set latency and over libaio and io_uring on a file in /dev/shm.  For each
 * setting the depth at which every I/O was submitted (iodepth_level) must
 * be exactly what fio's rules give, and with fio's defaults the in-flight
 * count by Little's law (IOPS x mean lat) must stay within 5% of iodepth;
 * under rate_iops the queue is reaped before each wait, as fio does.
 * Counts, not times: the rules fix the depth of each submission whatever
 * the machine's speed.  The two time averages (the in-flight count, the
 * share of rate-limited I/Os sent alone) also fall when a loaded machine
 * keeps the worker off the CPU; the faults they guard against (a queue
 * refilled in batches, a queue filled while waiting for the rate) lower
 * them in every run, so the best of three runs is compared. */
#include "engine.h"
#include "tsan.h"
#include "test_run.h"

static unsigned bucket(unsigned depth)
{
    unsigned b = depth > 1 ? 31 - (unsigned)__builtin_clz(depth) : 0;

    return b < 6 ? b : 6;
}

static unsigned batch_bucket(unsigned n)
{
    return n == 0 ? 0 : n <= 4 ? 1 : n > 64 ? 6 : 32 - (unsigned)__builtin_clz(n - 1) - 1;
}

/* What fio's rules give for n I/Os: iodepth_level (lv), iodepth_submit
 * (sub) and iodepth_complete (com) counts.  Fill to depth, committing each
 * time batch I/Os are queued since the last counted batch; a commit made
 * because the queue is full (fio's getevents commits first) is not a batch:
 * its I/Os count with the next one.  Once full, reap k at a time until no
 * more than low are in flight (k = 0: after each I/O, one); at the end reap
 * all in one call. */
static void expected(unsigned depth, unsigned batch, unsigned k, unsigned low, uint64_t n,
                     uint64_t lv[7], uint64_t sub[7], uint64_t com[7])
{
    uint64_t sent = 0;
    unsigned inflight = 0, queued = 0, unb = 0;

    memset(lv, 0, 7 * sizeof(*lv));
    memset(sub, 0, 7 * sizeof(*sub));
    memset(com, 0, 7 * sizeof(*com));
    if (k == 0) {                /* polling: one at a time */
        lv[0] = sub[1] = com[1] = n;
        return;
    }
    for (;;) {
        while (inflight + queued < depth && sent < n) {
            queued++;
            sent++;
            if (unb + queued >= batch) {
                inflight += queued;
                sub[batch_bucket(queued)]++;
                lv[bucket(inflight)] += unb + queued;
                unb = queued = 0;
            }
        }
        if (queued) {
            inflight += queued;
            sub[batch_bucket(queued)]++;
            unb += queued;
            queued = 0;
        }
        if (inflight < depth)
            break;
        do {
            unsigned r = k < inflight ? k : inflight;

            inflight -= r;
            com[batch_bucket(r)]++;
        } while (inflight > low);
    }
    if (inflight)
        com[batch_bucket(inflight)]++;
}

static double little(const struct lb_stats *s)
{
    const struct lb_dir_stats *d = &s->dir[LB_READ];

    return s->runtime_ns ? (double)d->ios * lb_hist_mean(d->lat) / (double)s->runtime_ns : 0;
}

/* Runs job, checks its levels against expected(); returns Little's law's
 * in-flight count, or -1 when the engine is not here. */
static double check(struct lb_job *job, const char *label, unsigned depth, unsigned batch,
                    unsigned k, unsigned low)
{
    struct lb_stats s;
    uint64_t want[7], sub[7], com[7];
    double inflight;

    if (t_run_total(job, &s)) {
        fprintf(stderr, "%s: skipped\n", label);
        return -1;
    }
    CHECK(s.err.count == 0, "%s: %s", label, s.err.first_msg);
    expected(depth, batch, k, low, s.dir[LB_READ].ios, want, sub, com);
    for (int i = 0; i < 7; i++) {
        CHECK(s.iodepth_level[i] == want[i], "%s: %llu I/Os submitted in depth bucket %d, "
                "fio's rules give %llu", label, (unsigned long long)s.iodepth_level[i], i,
                (unsigned long long)want[i]);
        CHECK(s.iodepth_submit[i] == sub[i], "%s: %llu submissions in bucket %d, "
                "fio's rules give %llu", label, (unsigned long long)s.iodepth_submit[i], i,
                (unsigned long long)sub[i]);
        CHECK(s.iodepth_complete[i] == com[i], "%s: %llu reaps in bucket %d, "
                "fio's rules give %llu", label, (unsigned long long)s.iodepth_complete[i], i,
                (unsigned long long)com[i]);
    }
    inflight = little(&s);
    printf("%-44s %6llu I/Os, in flight %.2f\n", label,
           (unsigned long long)s.dir[LB_READ].ios, inflight);
    lb_stats_release(&s);
    return inflight;
}

/* A null-engine job; extra (may be NULL) is one more option. */
static void null_job(struct lb_job *job, const char *lat, const char *size, const char *depth,
                     const char *extra)
{
    t_job(job, "name=q", "ioengine=null", "rw=read", "bs=4k", lat, size, depth, extra, NULL);
}

#define TRIES 3

/* Under ThreadSanitizer every memory access of the worker is instrumented:
 * the time between a reap and the next submission grows to the size of a
 * read from /dev/shm, so the file engines' average depth measures the
 * instrumentation, not the queueing (whose levels are still checked). */
#ifdef LB_TSAN
static const double file_share = 0;
#else
static const double file_share = 0.95;
#endif

/* check() on a job make() builds (t_run_total frees each) up to TRIES
 * times, until Little's count reaches 95% of depth; returns the best count
 * (-1: the engine is not here). */
static double best_inflight(void (*make)(struct lb_job *, const char *), const char *arg,
                            const char *label, unsigned depth)
{
    double best = -1;

    for (int i = 0; i < TRIES && best < 0.95 * depth; i++) {
        struct lb_job job;
        double n;

        make(&job, arg);
        n = check(&job, label, depth, 1, 1, depth);
        if (n < 0)
            return -1;
        best = n > best ? n : best;
    }
    return best;
}

static void null32(struct lb_job *job, const char *unused)
{
    (void)unused;
    null_job(job, "null_lat=1ms", "size=32m", "iodepth=32", NULL);
}

static void check_null(void)
{
    struct lb_job job;
    double n;

    n = best_inflight(null32, NULL, "null iodepth=32", 32);
    CHECK(n >= 0.95 * 32, "null iodepth=32: %.2f in flight, want 32", n);
    null_job(&job, "null_lat=1ms", "size=12016k", "iodepth=16", "iodepth_low=4");
    check(&job, "null iodepth=16 iodepth_low=4", 16, 1, 1, 4);
    null_job(&job, "null_lat=1ms", "size=32m", "iodepth=32", "iodepth_batch_complete_min=4");
    check(&job, "null iodepth=32 iodepth_batch_complete_min=4", 32, 1, 4, 32);
    null_job(&job, "null_lat=1ms", "size=32m", "iodepth=32", "iodepth_batch_submit=0");
    check(&job, "null iodepth=32 iodepth_batch_submit=0", 32, 32, 1, 32);
    t_job(&job, "name=q", "ioengine=null", "rw=read", "bs=4k", "null_lat=1ms", "size=4m",
          "iodepth=8", "iodepth_batch_submit=4", "iodepth_batch_complete_min=3",
          "iodepth_batch_complete_max=3", NULL);
    check(&job, "null iodepth=8 batch_submit=4 complete=3", 8, 4, 3, 8);
    t_job(&job, "name=q", "ioengine=null", "rw=read", "bs=4k", "null_lat=1ms", "size=4100k",
          "iodepth=8", "iodepth_batch_submit=3", "iodepth_batch_complete_min=2",
          "iodepth_low=3", NULL);
    check(&job, "null iodepth=8 batch_submit=3 complete_min=2 low=3", 8, 3, 2, 3);
    null_job(&job, "null_lat=50us", "size=8m", "iodepth=32", "iodepth_batch_complete_min=0");
    n = check(&job, "null iodepth=32 iodepth_batch_complete_min=0", 32, 1, 0, 32);
    CHECK(n >= 0 && n <= 1.01, "polling: %.2f in flight, fio keeps 1", n);
}

/* rate_iops: before each wait for the next I/O's turn, what is in flight is
 * reaped (fio's io_u_quiesce), so I/Os on time go out one by one instead
 * of filling the queue while their predecessors' completions wait. */
static void check_rate(void)
{
    struct lb_stats s;
    struct lb_job job;
    uint64_t ios = 0, alone = 0;

    for (int i = 0; i < TRIES && 4 * alone < 250; i++) {
        null_job(&job, "null_lat=100us", "size=1000k", "iodepth=8", "rate_iops=500");
        if (t_run_total(&job, &s)) {
            CHECK(0, "the rate-limited null run failed");
            return;
        }
        ios = s.dir[LB_READ].ios;
        alone = s.iodepth_level[0] > alone ? s.iodepth_level[0] : alone;
        printf("%-44s %6llu I/Os, %llu at depth 1\n", "null iodepth=8 rate_iops=500",
               (unsigned long long)ios, (unsigned long long)s.iodepth_level[0]);
        lb_stats_release(&s);
        CHECK(ios == 250, "rate_iops=500: %llu I/Os, want 250", (unsigned long long)ios);
    }
    CHECK(4 * alone >= 250, "rate_iops=500: at best %llu of 250 I/Os submitted alone",
          (unsigned long long)alone);
}

/* 4096 random 4k reads of file at iodepth=32; a and b (may be NULL) are
 * more options. */
static void file_job(struct lb_job *job, const char *engine, const char *file,
                     const char *a, const char *b)
{
    char fop[600], eop[64];

    snprintf(fop, sizeof(fop), "filename=%s", file);
    snprintf(eop, sizeof(eop), "ioengine=%s", engine);
    t_job(job, "name=q", eop, fop, "rw=randread", "bs=4k", "size=16m", "iodepth=32", a, b,
          NULL);
}

/* Every setting fio accepts runs to the end: 64 random reads and writes at
 * iodepth 1, 4 and 32, each value of iodepth_batch_submit,
 * _complete_min and _complete_max below, above and at the depth (0 too),
 * with iodepth_low at its default and at 2. */
static void check_grid(const char *engine, const char *file)
{
    static const char *const depth[] = {"1", "4", "32"}, *const v[] = {"0", "1", "3", "64"};
    unsigned runs = 0;

    for (unsigned d = 0; d < 3; d++)
        for (unsigned b = 0; b < 4; b++)
            for (unsigned lo = 0; lo < 4; lo++)
                for (unsigned hi = 0; hi < 4; hi++) {
                    char o[5][64], fop[600];
                    struct lb_job job;
                    struct lb_stats s;
                    uint64_t ios;

                    snprintf(fop, sizeof(fop), "filename=%s", file);
                    snprintf(o[0], sizeof(o[0]), "ioengine=%s", engine);
                    snprintf(o[1], sizeof(o[1]), "iodepth=%s", depth[d]);
                    snprintf(o[2], sizeof(o[2]), "iodepth_batch_submit=%s", v[b]);
                    snprintf(o[3], sizeof(o[3]), "iodepth_batch_complete_min=%s", v[lo]);
                    snprintf(o[4], sizeof(o[4]), "iodepth_batch_complete_max=%s", v[hi]);
                    t_job(&job, "name=g", o[0], o[1], o[2], o[3], o[4], "rw=randrw", "bs=4k",
                          "size=256k", fop, (runs & 1) ? "iodepth_low=2" : "iodepth_low=0",
                          NULL);
                    runs++;
                    if (t_run_total(&job, &s)) {
                        CHECK(0, "%s %s %s %s %s: the run failed", engine, o[1], o[2], o[3], o[4]);
                        continue;
                    }
                    ios = s.dir[LB_READ].ios + s.dir[LB_WRITE].ios;
                    CHECK(s.err.count == 0 && ios == 64, "%s %s %s %s %s: %llu of 64 I/Os, %s",
                          engine, o[1], o[2], o[3], o[4], (unsigned long long)ios,
                          s.err.first_msg);
                    lb_stats_release(&s);
                }
    printf("%-44s %6u settings ran\n", engine, runs);
}

static const char *file;   /* the file the engine runs read */

static void file32(struct lb_job *job, const char *engine)
{
    file_job(job, engine, file, NULL, NULL);
}

/* 1 when the engine ran. */
static int check_engine(const char *engine)
{
    struct lb_job job;
    char label[128];
    double n;

    snprintf(label, sizeof(label), "%s iodepth=32", engine);
    n = best_inflight(file32, engine, label, 32);
    if (n < 0)
        return 0;
    CHECK(n >= file_share * 32, "%s: %.2f in flight, want 32", label, n);
    file_job(&job, engine, file, "iodepth_batch_complete_max=1", NULL);
    snprintf(label, sizeof(label), "%s iodepth_batch_complete_max=1", engine);
    check(&job, label, 32, 1, 1, 32);
    file_job(&job, engine, file, "iodepth_low=8", NULL);
    snprintf(label, sizeof(label), "%s iodepth_low=8", engine);
    check(&job, label, 32, 1, 1, 8);
    file_job(&job, engine, file, "iodepth_batch_complete_min=2", "iodepth_batch_complete_max=1");
    snprintf(label, sizeof(label), "%s complete_min=2 complete_max=1", engine);
    check(&job, label, 32, 1, 2, 32);
    file_job(&job, engine, file, "iodepth_batch_complete_min=0", NULL);
    snprintf(label, sizeof(label), "%s iodepth_batch_complete_min=0", engine);
    check(&job, label, 32, 1, 0, 32);
    check_grid(engine, file);
    return 1;
}

int main(void)
{
    int ran = 0;

    t_dir_make("queue");
    check_null();
    check_rate();
    file = t_path("blocks");
    ran += check_engine("libaio");
    ran += check_engine("io_uring");
    if (!ran)
        fprintf(stderr, "neither libaio nor io_uring here: the file runs were skipped\n");
    return failures ? 1 : 0;
}
