/* Description: the async path (libaio and io_uring, where the kernel has
 * them) at iodepth=8 with batched submission: randread over a 256-block
 * file reads every block exactly once, and every I/O has its submission,
 * completion and total latency recorded and its depth counted. */
#include "engine.h"
#include "test_run.h"

#define BLOCKS 256

static unsigned seen[BLOCKS];

static void trace(void *arg, unsigned job, unsigned clone, const struct lb_io *io)
{
    (void)arg; (void)job; (void)clone;
    if (io->ddir == LB_READ && io->offset / 4096 < BLOCKS && io->len == 4096 && io->result == 4096)
        seen[io->offset / 4096]++;
}

/* 1 when the engine ran and was checked, 0 when the kernel lacks it. */
static int check_engine(const char *engine, const char *file)
{
    char fop[600], eop[64], err[512];
    struct lb_job job;
    struct lb_run *r;
    const struct lb_stats *s;
    uint64_t levels = 0;
    int ret;

    snprintf(fop, sizeof(fop), "filename=%s", file);
    snprintf(eop, sizeof(eop), "ioengine=%s", engine);
    t_job(&job, "name=aio", eop, "rw=randread", "bs=4k", "size=1m", "iodepth=8",
          "iodepth_batch_submit=4", "iodepth_batch_complete_min=2", fop, NULL);
    memset(seen, 0, sizeof(seen));
    ret = lb_run_new(&r, &job, 1, err, sizeof(err));
    lb_job_free(&job);
    if (ret) {
        fprintf(stderr, "%s: %s (skipped)\n", engine, err);
        return 0;
    }
    lb_run_set_trace(r, trace, NULL);
    ret = lb_run_prepare(r) ?: lb_run_start(r) ?: lb_run_wait(r);
    if (ret) {
        fprintf(stderr, "%s: %s (skipped)\n", engine, lb_run_error(r));
        lb_run_free(r);
        return 0;
    }
    s = lb_run_total(r);
    CHECK(s->dir[LB_READ].ios == BLOCKS && s->err.count == 0, "%s: %llu I/Os, %llu errors: %s",
          engine, (unsigned long long)s->dir[LB_READ].ios,
          (unsigned long long)s->err.count, s->err.first_msg);
    for (int b = 0; b < BLOCKS; b++)
        CHECK(seen[b] == 1, "%s: block %d read %u times", engine, b, seen[b]);
    CHECK(lb_hist_count(s->dir[LB_READ].slat) == BLOCKS &&
          lb_hist_count(s->dir[LB_READ].clat) == BLOCKS &&
          lb_hist_count(s->dir[LB_READ].lat) == BLOCKS, "%s: latency counts %llu %llu %llu",
          engine, (unsigned long long)lb_hist_count(s->dir[LB_READ].slat),
          (unsigned long long)lb_hist_count(s->dir[LB_READ].clat),
          (unsigned long long)lb_hist_count(s->dir[LB_READ].lat));
    CHECK(lb_hist_mean(s->dir[LB_READ].lat) >= lb_hist_mean(s->dir[LB_READ].clat),
          "%s: lat below clat", engine);
    for (int i = 0; i < 7; i++)
        levels += s->iodepth_level[i];
    CHECK(levels == BLOCKS, "%s: depth counted for %llu I/Os", engine,
          (unsigned long long)levels);
    lb_run_free(r);
    return 1;
}

int main(void)
{
    const char *file;
    int ran = 0;

    t_dir_make("async");
    file = t_path("blocks");
    ran += check_engine("libaio", file);
    ran += check_engine("io_uring", file);
    if (!ran)
        return 77;
    return failures ? 1 : 0;
}
