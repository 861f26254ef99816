/* Description: psync on /dev/shm: a missing file is laid out before the
 * run with the size the job needs and marked as created by luabench; the
 * bytes a rw=write job leaves on disk are not zeros; an existing file of
 * the right size is reused as is (a read job leaves its mtime alone and
 * lays out nothing). */
#include <sys/xattr.h>
#include "files.h"
#include "test_run.h"

/* Number of 4 KiB blocks of path that are all zeros. */
static int zero_blocks(const char *path)
{
    static const char zero[4096];
    char buf[4096];
    int fd = open(path, O_RDONLY), n = 0;

    if (fd < 0)
        return -1;
    while (read(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf))
        n += memcmp(buf, zero, sizeof(buf)) == 0;
    close(fd);
    return n;
}

static int run_one(const char *rw, const char *file, struct lb_run **r)
{
    char fop[600], rwop[64], err[512];
    struct lb_job job;
    int ret;

    snprintf(fop, sizeof(fop), "filename=%s", file);
    snprintf(rwop, sizeof(rwop), "rw=%s", rw);
    t_job(&job, "name=lay", "ioengine=psync", "bs=4k", "size=1m", fop, rwop, NULL);
    ret = t_run(&job, 1, r, err, sizeof(err));
    if (ret)
        fprintf(stderr, "run %s: %s\n", rw, err);
    lb_job_free(&job);
    return ret;
}

int main(void)
{
    const char *file;
    struct lb_run *r;
    struct stat st, st2;
    char val[8];

    t_dir_make("layout");
    file = t_path("data");
    if (run_one("write", file, &r))
        return 1;
    /* fio's rule: a write job's new file is allocated and written by the
     * job alone, never laid out first */
    CHECK(lb_run_laid_out(r) == 0, "a write job laid out %llu bytes",
          (unsigned long long)lb_run_laid_out(r));
    CHECK(lb_run_total(r)->dir[LB_WRITE].ios == 256, "wrote %llu blocks",
          (unsigned long long)lb_run_total(r)->dir[LB_WRITE].ios);
    lb_run_free(r);
    CHECK(stat(file, &st) == 0 && st.st_size == 1 << 20, "size %lld",
          (long long)st.st_size);
    CHECK(lb_file_is_ours(file) == 1, "the new file is not marked as ours");
    CHECK(getxattr(file, LB_FILE_XATTR, val, sizeof(val)) == 1 ||
          access(t_path(LB_FILE_MANIFEST), F_OK) == 0, "neither xattr nor manifest");
    CHECK(zero_blocks(file) == 0, "%d blocks of zeros on disk", zero_blocks(file));

    if (run_one("read", file, &r))
        return 1;
    CHECK(lb_run_laid_out(r) == 0, "laid out %llu bytes again",
          (unsigned long long)lb_run_laid_out(r));
    CHECK(lb_run_total(r)->dir[LB_READ].ios == 256, "read %llu blocks",
          (unsigned long long)lb_run_total(r)->dir[LB_READ].ios);
    lb_run_free(r);
    CHECK(stat(file, &st2) == 0 && st2.st_mtim.tv_sec == st.st_mtim.tv_sec &&
          st2.st_mtim.tv_nsec == st.st_mtim.tv_nsec && st2.st_size == st.st_size,
          "the read job changed the file");
    return failures ? 1 : 0;
}
