/*
 * For the tests: a scratch directory under /dev/shm (or $TMPDIR when /dev/shm
 * is missing) made with mkdtemp, and its removal with everything in it.
 * Static functions only: each test is one executable.  Checks: check.h.
 */
#ifndef LB_SHM_DIR_H
#define LB_SHM_DIR_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Makes the directory into buf (at least 64 bytes); 0 or -1. */
static int shm_dir_make(char *buf, size_t len, const char *tag)
{
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" :
                       getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(buf, len, "%s/lbtest-%s-XXXXXX", base, tag);
    return mkdtemp(buf) ? 0 : -1;
}

static int shm_rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
    (void)st; (void)flag; (void)f;
    return remove(path);
}

static void shm_dir_remove(const char *dir)
{
    nftw(dir, shm_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
