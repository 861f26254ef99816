/* Description: fio's file naming: filename is a colon-separated list with
 * "\:" for a colon inside a name, shared by the clones, size split over
 * its files; without filename each clone gets nrfiles files named
 * jobname.clone.filenum in directory, each size/nrfiles bytes. */
#include "test_run.h"

/* Runs the job to the end (exits 1 when it fails) and frees it. */
static void run(struct lb_job *job)
{
    lb_run_free(t_run_one(job));
    lb_job_free(job);
}

static long long size_of(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

int main(void)
{
    const char *dir = t_dir_make("files");
    char fop[1200], dop[600];
    struct lb_job job;

    snprintf(fop, sizeof(fop), "filename=%s/a\\:b:%s/c", dir, dir);
    t_job(&job, "name=list", "ioengine=psync", "rw=write", "size=2m", "numjobs=2", fop, NULL);
    run(&job);
    CHECK(size_of(t_path("a:b")) == 1 << 20, "a:b is %lld bytes", size_of(t_path("a:b")));
    CHECK(size_of(t_path("c")) == 1 << 20, "c is %lld bytes", size_of(t_path("c")));

    snprintf(dop, sizeof(dop), "directory=%s", dir);
    t_job(&job, "name=gen", "ioengine=psync", "rw=read", "size=3m", "nrfiles=3", "numjobs=2",
          dop, NULL);
    run(&job);
    for (int c = 0; c < 2; c++)
        for (int f = 0; f < 3; f++) {
            char name[64];

            snprintf(name, sizeof(name), "gen.%d.%d", c, f);
            CHECK(size_of(t_path(name)) == 1 << 20, "%s is %lld bytes", name,
                  size_of(t_path(name)));
        }
    return failures ? 1 : 0;
}
