/* Description: time_based runtime=2500ms with interval=500ms gives about
 * five intervals, handed out in order, whose I/O counts add up exactly to
 * the run's total and whose merged histograms hold exactly the total's
 * completions. */
#include "test_run.h"

int main(void)
{
    struct lb_job job;
    struct lb_run *r;
    const struct lb_interval *iv;
    const struct lb_stats *tot;
    struct lb_hist *merged;
    uint64_t ios = 0, handed = 0;
    char err[512];
    int ret;

    t_dir_make("intervals");
    t_job(&job, "name=iv", "ioengine=null", "null_lat=20000", "rw=randread", "bs=4k",
          "size=64m", "time_based=1", "runtime=2500ms", "interval=500ms", "numjobs=2", NULL);
    if (lb_run_new(&r, &job, 1, err, sizeof(err)) || lb_run_prepare(r) || lb_run_start(r)) {
        fprintf(stderr, "FAIL: %s %s\n", err, r ? lb_run_error(r) : "");
        return 1;
    }
    while ((ret = lb_run_next_interval(r, &iv)) == 1) {
        CHECK(iv->index == handed, "interval %u handed out as number %llu", iv->index,
              (unsigned long long)handed);
        CHECK(iv->end_ns > iv->start_ns, "interval %u is empty in time", iv->index);
        handed++;
    }
    CHECK(ret == 0, "next_interval: %d", ret);
    CHECK(lb_run_wait(r) == 0, "wait");
    CHECK(handed >= 5 && handed <= 6, "%llu intervals", (unsigned long long)handed);
    CHECK(lb_run_nintervals(r) == handed, "%zu intervals kept, %llu handed out",
          lb_run_nintervals(r), (unsigned long long)handed);
    lb_hist_new(&merged);
    for (size_t i = 0; i < lb_run_nintervals(r); i++) {
        iv = lb_run_interval(r, i);
        ios += iv->ios[LB_READ];
        CHECK(lb_hist_count(iv->clat[LB_READ]) == iv->ios[LB_READ],
              "interval %zu: %llu I/Os, histogram of %llu", i,
              (unsigned long long)iv->ios[LB_READ],
              (unsigned long long)lb_hist_count(iv->clat[LB_READ]));
        lb_hist_add(merged, iv->clat[LB_READ]);
    }
    tot = lb_run_total(r);
    CHECK(tot->dir[LB_READ].ios > 0, "no I/O");
    CHECK(ios == tot->dir[LB_READ].ios, "intervals %llu, total %llu",
          (unsigned long long)ios, (unsigned long long)tot->dir[LB_READ].ios);
    CHECK(lb_hist_count(merged) == lb_hist_count(tot->dir[LB_READ].clat),
          "merged histograms %llu, total %llu", (unsigned long long)lb_hist_count(merged),
          (unsigned long long)lb_hist_count(tot->dir[LB_READ].clat));
    lb_hist_free(merged);
    lb_run_free(r);
    lb_job_free(&job);
    return failures ? 1 : 0;
}
