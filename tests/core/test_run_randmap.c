/* Description: randread with the random map over a 256-block file reads
 * every block exactly once per loop (seen through the run's trace hook);
 * with norandommap some block is read twice. */
#include "engine.h"
#include "test_run.h"

#define BLOCKS 256

static unsigned seen[BLOCKS];

static void trace(void *arg, unsigned job, unsigned clone, const struct lb_io *io)
{
    (void)arg; (void)job; (void)clone;
    if (io->ddir == LB_READ && io->offset / 4096 < BLOCKS && io->len == 4096)
        seen[io->offset / 4096]++;
}

static int run(const char *file, const char *map, const char *loops)
{
    char fop[600], err[512];
    struct lb_job job;
    struct lb_run *r;
    int ret;

    snprintf(fop, sizeof(fop), "filename=%s", file);
    t_job(&job, "name=map", "ioengine=psync", "rw=randread", "bs=4k", "size=1m", fop,
          map, loops, NULL);
    memset(seen, 0, sizeof(seen));
    ret = lb_run_new(&r, &job, 1, err, sizeof(err));
    lb_job_free(&job);
    if (ret) {
        fprintf(stderr, "%s\n", err);
        return ret;
    }
    lb_run_set_trace(r, trace, NULL);
    ret = lb_run_prepare(r) ?: lb_run_start(r) ?: lb_run_wait(r);
    if (ret)
        fprintf(stderr, "%s\n", lb_run_error(r));
    lb_run_free(r);
    return ret;
}

int main(void)
{
    const char *file;
    unsigned most = 0;

    t_dir_make("randmap");
    file = t_path("blocks");
    if (run(file, "norandommap=0", "loops=1"))
        return 1;
    for (int b = 0; b < BLOCKS; b++)
        CHECK(seen[b] == 1, "block %d read %u times with the random map", b, seen[b]);
    if (run(file, "norandommap=0", "loops=2"))
        return 1;
    for (int b = 0; b < BLOCKS; b++)
        CHECK(seen[b] == 2, "block %d read %u times in two loops", b, seen[b]);
    if (run(file, "norandommap=1", "loops=1"))
        return 1;
    for (int b = 0; b < BLOCKS; b++)
        most = seen[b] > most ? seen[b] : most;
    CHECK(most >= 2, "no block was read twice without the random map");
    return failures ? 1 : 0;
}
