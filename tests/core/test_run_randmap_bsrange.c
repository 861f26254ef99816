/* Description: a random job whose block size varies (bsrange, bssplit, a
 * block size above blockalign), with the random map, covers every sector
 * of its files exactly once per loop, as fio 3.33's random map does: an
 * I/O that falls on a done block moves to the next free one, one that would
 * run into a done block is cut short before it, so the bytes done equal the
 * files' size.  The same holds for randrw, randtrimwrite, lfsr and two files;
 * norandommap overlaps.  Sequential: the last I/O of a varying size ends at
 * the file's end (a size that fits is drawn). */
#include "engine.h"
#include "test_run.h"

#define SECTOR 512
#define FILE_BYTES (1u << 20)
#define SECTORS (FILE_BYTES / SECTOR)

static unsigned seen[2][SECTORS];        /* per file: I/Os over each sector */
static const struct lb_file *files[2];
static uint64_t bytes, ios, end_max, bad;

static void trace(void *arg, unsigned job, unsigned clone, const struct lb_io *io)
{
    unsigned f = 0;

    (void)job; (void)clone;
    if (io->ddir >= LB_DDIR_N || !(*(const unsigned *)arg & 1u << io->ddir))
        return;                          /* a direction not counted */
    if (!files[0] || files[0] == io->file)
        files[0] = io->file;
    else if (!files[1] || files[1] == io->file)
        files[f = 1] = io->file;
    if (io->offset % SECTOR || io->len % SECTOR || io->offset + io->len > FILE_BYTES ||
        io->len == 0) {
        bad++;
        return;
    }
    for (uint64_t s = io->offset / SECTOR; s < (io->offset + io->len) / SECTOR; s++)
        seen[f][s]++;
    bytes += io->len;
    ios++;
    if (io->offset + io->len > end_max)
        end_max = io->offset + io->len;
}

/* Runs one job over the null engine (1 MiB per file) with the options
 * given; counts what its I/Os of the directions in mask covered. */
static int run(unsigned mask, const char *o1, const char *o2, const char *o3)
{
    char err[512];
    struct lb_job job;
    struct lb_run *r;
    int ret;

    t_job(&job, "name=map", "ioengine=null", "filesize=1m", o1, o2, o3, NULL);
    memset(seen, 0, sizeof(seen));
    memset(files, 0, sizeof(files));
    bytes = ios = end_max = bad = 0;
    ret = lb_run_new(&r, &job, 1, err, sizeof(err));
    lb_job_free(&job);
    if (ret) {
        fprintf(stderr, "%s\n", err);
        return ret;
    }
    lb_run_set_trace(r, trace, &mask);
    ret = lb_run_prepare(r) ?: lb_run_start(r) ?: lb_run_wait(r);
    if (ret)
        fprintf(stderr, "%s\n", lb_run_error(r));
    lb_run_free(r);
    return ret;
}

/* every sector of nfiles files done times times */
static void check_each(const char *what, unsigned nfiles, unsigned times)
{
    unsigned wrong = 0, first = 0;

    for (unsigned f = 0; f < nfiles; f++)
        for (unsigned s = 0; s < SECTORS; s++)
            if (seen[f][s] != times && !wrong++)
                first = f * SECTORS + s;
    CHECK(bad == 0, "%s: %llu I/Os off the sectors or the file", what, (unsigned long long)bad);
    CHECK(wrong == 0, "%s: %u sectors not done %u times (the first: file %u sector %u, %u)",
          what, wrong, times, first / SECTORS, first % SECTORS,
          seen[first / SECTORS][first % SECTORS]);
    CHECK(bytes == (uint64_t)nfiles * times * FILE_BYTES, "%s: %llu bytes, the files hold %u",
          what, (unsigned long long)bytes, nfiles * times * FILE_BYTES);
}

static void once(const char *what, unsigned mask, const char *o1, const char *o2,
                 const char *o3, unsigned nfiles, unsigned times)
{
    if (run(mask, o1, o2, o3)) {
        CHECK(0, "%s: the job failed", what);
        return;
    }
    check_each(what, nfiles, times);
}

#define R (1u << LB_READ)
#define W (1u << LB_WRITE)
#define T (1u << LB_TRIM)

int main(void)
{
    unsigned most = 0;
    uint64_t n;

    once("randwrite bsrange", W, "rw=randwrite", "bsrange=512-8k", "loops=1", 1, 1);
    n = ios;
    CHECK(n > FILE_BYTES / 8192 && n < SECTORS, "randwrite bsrange: %llu I/Os",
          (unsigned long long)n);
    once("randread bssplit", R, "rw=randread", "bssplit=512/20:4k/30:64k/50", "loops=1",
         1, 1);
    once("two loops", R, "rw=randread", "bsrange=1k-16k", "loops=2", 1, 2);
    once("bs over blockalign", W, "rw=randwrite", "bs=8k", "blockalign=512", 1, 1);
    once("lfsr", R, "rw=randread", "bsrange=512-4k", "random_generator=lfsr", 1, 1);
    once("randtrimwrite bsrange", W, "rw=randtrimwrite", "bsrange=512-4k", "loops=1",
         1, 1);
    once("randtrimwrite trims", T, "rw=randtrimwrite", "bsrange=512-4k", "loops=1", 1, 1);
    once("two files", R, "rw=randread", "bsrange=512-32k", "nrfiles=2", 2, 1);
    once("randrw bsrange", R | W, "rw=randrw", "bsrange=512-16k", "rwmixread=50", 1, 1);

    /* without the map, I/Os overlap: the checks above can fail */
    if (run(R, "rw=randread", "bsrange=512-8k", "norandommap=1"))
        return 1;
    for (unsigned s = 0; s < SECTORS; s++)
        most = seen[0][s] > most ? seen[0][s] : most;
    CHECK(most >= 2, "norandommap: no sector read twice");

    /* sequential: the sizes drawn near the end are those that fit, so the
     * I/Os run to the file's end, each sector once */
    once("rw=read bsrange", R, "rw=read", "bsrange=4k-60k", "loops=1", 1, 1);
    CHECK(end_max == FILE_BYTES, "rw=read bsrange: the last I/O ends at %llu",
          (unsigned long long)end_max);
    once("rw=write bssplit", W, "rw=write", "bssplit=4k/50:64k/50", "loops=1", 1, 1);
    once("trimwrite bsrange", W, "rw=trimwrite", "bsrange=512-4k", "loops=1", 1, 1);
    return failures ? 1 : 0;
}
