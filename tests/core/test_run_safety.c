/* Description: an existing file luabench did not create is never written:
 * a write job (or one that would extend it) is refused with the exact
 * message and leaves its bytes and mtime alone; readonly refuses a write
 * job and does not create a missing file; allow_overwrite=true permits
 * the write. */
#include "test_run.h"

static struct stat st0;
static uint64_t h0;

static int try_run(const char *file, char *err, size_t errlen, ...)
{
    char fop[600];
    struct lb_job job;
    struct lb_run *r;
    va_list ap;
    const char *kv;
    int ret;

    snprintf(fop, sizeof(fop), "filename=%s", file);
    t_job(&job, "name=safe", "ioengine=psync", "bs=4k", fop, NULL);
    va_start(ap, errlen);
    while ((kv = va_arg(ap, const char *))) {
        char key[64];
        const char *eq = strchr(kv, '=');

        snprintf(key, sizeof(key), "%.*s", (int)(eq - kv), kv);
        lb_job_set(&job, key, eq + 1, err, errlen);
    }
    va_end(ap);
    err[0] = '\0';
    ret = t_run(&job, 1, &r, err, errlen);
    lb_job_free(&job);
    lb_run_free(r);
    return ret;
}

static void check_untouched(const char *file, const char *what)
{
    struct stat st;

    CHECK(t_file_hash(file) == h0, "%s: the bytes changed", what);
    CHECK(stat(file, &st) == 0 && st.st_mtim.tv_sec == st0.st_mtim.tv_sec &&
          st.st_mtim.tv_nsec == st0.st_mtim.tv_nsec && st.st_size == st0.st_size,
          "%s: mtime or size changed", what);
}

int main(void)
{
    char err[512], want[1024];
    const char *file, *missing;
    int ret;

    t_dir_make("safety");
    file = t_path("precious");
    missing = t_path("missing");
    if (t_write_file(file, 1 << 20, 0xab) || stat(file, &st0))
        return 77;
    h0 = t_file_hash(file);
    snprintf(want, sizeof(want), "refusing to write to %s: not created by luabench "
             "(use allow_overwrite=true or --allow-overwrite)", file);

    ret = try_run(file, err, sizeof(err), "rw=write", "size=1m", NULL);
    CHECK(ret == -EPERM, "write job: %d", ret);
    CHECK(strcmp(err, want) == 0, "write job message: %s", err);
    check_untouched(file, "write job");

    ret = try_run(file, err, sizeof(err), "rw=read", "size=2m", NULL);
    CHECK(ret == -EPERM && strcmp(err, want) == 0, "extending read job: %d %s", ret, err);
    check_untouched(file, "extending read job");

    ret = try_run(file, err, sizeof(err), "rw=randwrite", "size=1m", "readonly=1", NULL);
    CHECK(ret < 0 && err[0], "readonly write job was not refused");
    check_untouched(file, "readonly write job");

    ret = try_run(missing, err, sizeof(err), "rw=read", "size=1m", "readonly=1", NULL);
    CHECK(ret < 0 && strstr(err, missing), "readonly, missing file: %d %s", ret, err);
    CHECK(access(missing, F_OK) != 0, "readonly created %s", missing);

    ret = try_run(file, err, sizeof(err), "rw=read", "size=1m", "readonly=1", NULL);
    CHECK(ret == 0, "readonly read job: %s", err);
    check_untouched(file, "readonly read job");

    ret = try_run(file, err, sizeof(err), "rw=write", "size=1m", "allow_overwrite=1", NULL);
    CHECK(ret == 0, "allow_overwrite write job: %s", err);
    CHECK(t_file_hash(file) != h0, "allow_overwrite: the file was not written");
    return failures ? 1 : 0;
}
