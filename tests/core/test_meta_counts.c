/*
 * Description: the metadata phases do one operation per file (per
 * directory for mkdir and readdir): N creates, N stats, N reads, N
 * unlinks; created files hold `size` bytes; afterwards the files and the
 * emptied directories are gone, while a file luabench did not create is
 * neither deleted nor counted as unlinked.  Creating over an existing file
 * fails with the path in the message.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "files.h"
#include "hist.h"
#include "meta.h"
#include "check.h"
#include "shm_dir.h"

#define FILES 250
#define FANOUT 100
#define SIZE 3000

static void cfg_for(struct lb_meta_cfg *c, const char *dir, int nops, const int *ops)
{
    lb_meta_cfg_init(c);
    c->dir = dir;
    c->files = FILES;
    c->size = SIZE;
    c->fanout = FANOUT;
    c->threads = 3;
    c->seed = 5;
    c->nphases = (uint32_t)nops;
    for (int i = 0; i < nops; i++)
        c->phases[i] = (enum lb_meta_op)ops[i];
}

static uint64_t count(const struct lb_meta_result *r, enum lb_meta_op op)
{
    return r->op[op].count;
}

/* create alone, then a foreign file in place of file 7 */
static void make_tree(const char *dir, char *foreign, size_t len)
{
    struct lb_meta_cfg c;
    struct lb_meta_result r;
    static const int ops[] = {LB_META_CREATE};
    cfg_for(&c, dir, 1, ops);
    c.openfiles = 8;
    int rc = lb_meta_run(&c, &r);
    CHECK(rc == 0, "create: %d %s", rc, r.err);
    CHECK(count(&r, LB_META_CREATE) == FILES, "creates %llu",
          (unsigned long long)count(&r, LB_META_CREATE));
    CHECK(r.op[LB_META_CREATE].bytes == (uint64_t)FILES * SIZE, "bytes written");
    CHECK(r.dirs == 3, "dirs %llu", (unsigned long long)r.dirs);
    lb_meta_result_free(&r);

    struct stat st;
    lb_tree_path(foreign, len, dir, FANOUT, "f", 7, NULL, 7);
    CHECK(stat(foreign, &st) == 0 && st.st_size == SIZE, "%s: not %d bytes", foreign, SIZE);
    unlink(foreign);
    int fd = open(foreign, O_WRONLY | O_CREAT | O_EXCL, 0644);   /* not marked */
    CHECK(fd >= 0 && write(fd, "x", 1) == 1, "cannot place %s", foreign);
    close(fd);
}

static void test_phases(const char *dir)
{
    char foreign[512], d1[512];
    struct lb_meta_cfg c;
    struct lb_meta_result r;
    static const int ops[] = {LB_META_STAT, LB_META_READ, LB_META_READDIR, LB_META_UNLINK};
    make_tree(dir, foreign, sizeof foreign);
    cfg_for(&c, dir, 4, ops);
    int rc = lb_meta_run(&c, &r);
    CHECK(rc == 0, "phases: %d %s", rc, r.err);
    CHECK(count(&r, LB_META_STAT) == FILES, "stats %llu",
          (unsigned long long)count(&r, LB_META_STAT));
    CHECK(count(&r, LB_META_READ) == FILES, "reads %llu",
          (unsigned long long)count(&r, LB_META_READ));
    CHECK(r.op[LB_META_READ].bytes == (uint64_t)(FILES - 1) * SIZE + 1, "bytes read %llu",
          (unsigned long long)r.op[LB_META_READ].bytes);
    CHECK(count(&r, LB_META_READDIR) == 3, "readdirs %llu",
          (unsigned long long)count(&r, LB_META_READDIR));
    CHECK(count(&r, LB_META_UNLINK) == FILES - 1, "unlinks %llu",
          (unsigned long long)count(&r, LB_META_UNLINK));
    CHECK(r.op[LB_META_UNLINK].skipped == 1, "skipped %llu",
          (unsigned long long)r.op[LB_META_UNLINK].skipped);
    CHECK(lb_hist_count(r.op[LB_META_STAT].lat) == FILES, "stat histogram");
    CHECK(r.op[LB_META_STAT].ops_per_s > 0, "stat rate");
    lb_meta_result_free(&r);

    struct stat st;
    CHECK(stat(foreign, &st) == 0, "the foreign file %s was deleted", foreign);
    lb_tree_dir(d1, sizeof d1, dir, 1);
    CHECK(stat(d1, &st) < 0 && errno == ENOENT, "%s left behind", d1);
    for (int i = 0; i < FILES; i++) {
        char p[512];
        lb_tree_path(p, sizeof p, dir, FANOUT, "f", 7, NULL, (uint64_t)i);
        if (i != 7)
            CHECK(stat(p, &st) < 0, "%s left behind", p);
    }
    unlink(foreign);
    lb_tree_dir(d1, sizeof d1, dir, 0);
    CHECK(rmdir(d1) == 0, "%s: not empty or gone", d1);
}

static void test_mkdir_and_exists(const char *dir)
{
    struct lb_meta_cfg c;
    struct lb_meta_result r;
    static const int ops[] = {LB_META_MKDIR, LB_META_CREATE, LB_META_CREATE, LB_META_UNLINK};
    cfg_for(&c, dir, 4, ops);
    int rc = lb_meta_run(&c, &r);
    CHECK(rc == -EEXIST, "second create: %d, not -EEXIST", rc);
    CHECK(strstr(r.err, "create ") && strstr(r.err, dir) && strstr(r.err, "exists"),
          "message: %s", r.err);
    CHECK(count(&r, LB_META_MKDIR) == 3, "mkdirs %llu",
          (unsigned long long)count(&r, LB_META_MKDIR));
    lb_meta_result_free(&r);

    static const int rm[] = {LB_META_UNLINK};
    cfg_for(&c, dir, 1, rm);
    rc = lb_meta_run(&c, &r);                  /* marked files from before */
    CHECK(rc == 0 && count(&r, LB_META_UNLINK) == FILES, "cleanup: %d %s, %llu unlinks",
          rc, r.err, (unsigned long long)count(&r, LB_META_UNLINK));
    lb_meta_result_free(&r);
}

int main(void)
{
    char dir[256];
    if (shm_dir_make(dir, sizeof dir, "meta") < 0)
        return 77;
    test_phases(dir);
    test_mkdir_and_exists(dir);
    shm_dir_remove(dir);
    return failures ? 1 : 0;
}
