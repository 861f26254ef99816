/*
 * luabench's mark on the files it creates, fio's file name lists and
 * generated names, small facts about files and devices, and the names of
 * a tree of many files (see files.h).
 *
 * The manifest fallback is plain text, one "<inode> <name>" per line,
 * appended with a single O_APPEND write so concurrent layout threads do not
 * interleave; lb_file_unlink_ours() rewrites it without the line (temporary
 * file and rename) and deletes it once empty.
 */
#include "base/files.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

/* The directory part of path and its last component. */
static void path_split(const char *path, char *dir, size_t dlen, const char **base)
{
    const char *slash = strrchr(path, '/');

    if (!slash) {
        snprintf(dir, dlen, ".");
        *base = path;
    } else if (slash == path) {
        snprintf(dir, dlen, "/");
        *base = slash + 1;
    } else {
        snprintf(dir, dlen, "%.*s", (int)(slash - path), path);
        *base = slash + 1;
    }
}

static int manifest_path(const char *path, char *out, size_t len, const char **base)
{
    char dir[4096];

    path_split(path, dir, sizeof(dir), base);
    if ((size_t)snprintf(out, len, "%s/%s", dir, LB_FILE_MANIFEST) >= len)
        return -ENAMETOOLONG;
    return 0;
}

/* Opens the manifest at mpath with flags, never through a symbolic link,
 * and only when it is a regular file this user owns that nobody else may
 * write (a manifest anyone could edit would make any file ours). */
static int manifest_open(const char *mpath, int flags)
{
    struct stat st;
    int fd = open(mpath, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);

    if (fd < 0)
        return errno == ELOOP ? -EPERM : -errno;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
        (st.st_mode & (S_IWGRP | S_IWOTH))) {
        close(fd);
        return -EPERM;
    }
    return fd;
}

static int manifest_add(const char *path, uint64_t ino)
{
    char mpath[4200], line[4200];
    const char *base;
    int fd, n, ret = manifest_path(path, mpath, sizeof(mpath), &base);

    if (ret)
        return ret;
    if (strchr(base, '\n'))
        return -EINVAL;
    n = snprintf(line, sizeof(line), "%llu %s\n", (unsigned long long)ino, base);
    if (n >= (int)sizeof(line))
        return -ENAMETOOLONG;
    fd = manifest_open(mpath, O_WRONLY | O_APPEND | O_CREAT);
    if (fd < 0)
        return fd;
    ret = write(fd, line, n) == n ? 0 : -EIO;
    close(fd);
    return ret;
}

int lb_file_mark(int fd, const char *path)
{
    struct stat st;

    if (fsetxattr(fd, LB_FILE_XATTR, "1", 1, 0) == 0)
        return 0;
    if (fstat(fd, &st) < 0)
        return -errno;
    return manifest_add(path, st.st_ino);
}

/* Reads the whole manifest next to path into a NUL-terminated buffer. */
static char *manifest_read(const char *path, char *mpath, size_t mlen, const char **base)
{
    FILE *f;
    char *buf = NULL;
    size_t cap = 0;
    int fd;

    if (manifest_path(path, mpath, mlen, base) < 0)
        return NULL;
    fd = manifest_open(mpath, O_RDONLY);
    f = fd < 0 ? NULL : fdopen(fd, "r");
    if (!f) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    if (getdelim(&buf, &cap, '\0', f) < 0) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

/* The line "<ino> <base>\n" in text, or NULL. */
static char *manifest_find(char *text, uint64_t ino, const char *base)
{
    char want[4200];
    size_t n;

    n = (size_t)snprintf(want, sizeof(want), "%llu %s\n", (unsigned long long)ino, base);
    for (char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (strncmp(p, want, n) == 0)
            return p;
    return NULL;
}

/* Whether the regular file st (at path) is listed in its manifest. */
static int manifest_lists(const char *path, const struct stat *st)
{
    char mpath[4200];
    const char *base;
    char *text = manifest_read(path, mpath, sizeof(mpath), &base);
    int ours = text && manifest_find(text, st->st_ino, base) != NULL;

    free(text);
    return ours;
}

int lb_file_is_ours_fd(int fd, const char *path)
{
    char val[8];
    struct stat st;
    ssize_t n;

    if (fstat(fd, &st) < 0)
        return -errno;
    if (!S_ISREG(st.st_mode))
        return 0;
    n = fgetxattr(fd, LB_FILE_XATTR, val, sizeof(val));
    if (n == 1 && val[0] == '1')
        return 1;
    return manifest_lists(path, &st);
}

int lb_file_is_ours(const char *path)
{
    struct stat st;
    int fd, ours;

    if (lstat(path, &st) < 0)
        return -errno;
    if (!S_ISREG(st.st_mode))
        return 0;            /* a link to our file is not ours to write through */
    fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? -ENOENT : 0;
    ours = lb_file_is_ours_fd(fd, path);
    close(fd);
    return ours;
}

static int manifest_drop(const char *path, uint64_t ino)
{
    char mpath[4200], tmp[4300];
    const char *base;
    char *text = manifest_read(path, mpath, sizeof(mpath), &base);
    char *line = text ? manifest_find(text, ino, base) : NULL;
    char *end;
    size_t len;
    int fd, ret = 0;

    if (!line) {
        free(text);
        return 0;
    }
    end = strchr(line, '\n') + 1;
    memmove(line, end, strlen(end) + 1);
    if (!text[0]) {
        free(text);
        return unlink(mpath) < 0 ? -errno : 0;
    }
    snprintf(tmp, sizeof(tmp), "%s.%d.tmp", mpath, (int)getpid());
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        free(text);
        return -errno;
    }
    len = strlen(text);
    if (write(fd, text, len) != (ssize_t)len || fsync(fd) < 0)
        ret = -EIO;
    if (close(fd) < 0 && !ret)
        ret = -EIO;
    if (ret == 0 && rename(tmp, mpath) < 0)
        ret = -errno;
    if (ret)
        unlink(tmp);
    free(text);
    return ret;
}

int lb_file_unlink_ours(const char *path)
{
    struct stat st;
    int ours = lb_file_is_ours(path);

    if (ours < 0)
        return ours;
    if (!ours)
        return -EPERM;
    if (lstat(path, &st) < 0 || unlink(path) < 0)
        return -errno;
    return manifest_drop(path, st.st_ino);
}

/* which file a check looked at */

void lb_file_id_set(struct lb_file_id *id, const struct stat *st, bool link)
{
    id->dev = (uint64_t)st->st_dev;
    id->ino = (uint64_t)st->st_ino;
    id->type = (unsigned)(st->st_mode & S_IFMT);
    id->link = link;
}

bool lb_file_id_same(const struct lb_file_id *id, const struct stat *st)
{
    return id->type == (unsigned)(st->st_mode & S_IFMT) && id->dev == (uint64_t)st->st_dev &&
           id->ino == (uint64_t)st->st_ino;
}

int lb_file_open_checked(const char *path, int flags, const struct lb_file_id *id)
{
    bool follow = id && id->type && id->link;
    int fd = open(path, flags | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW), 0644);
    struct stat st;

    if (fd < 0)
        return -errno;
    if (!id || !id->type)
        return fd;
    if (fstat(fd, &st) < 0 || !lb_file_id_same(id, &st)) {
        close(fd);
        return -ESTALE;
    }
    return fd;
}

/* names */

void lb_file_list_free(char **v, unsigned n)
{
    if (!v)
        return;
    for (unsigned i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* Copies one item of list starting at *p (unescaping "\:") into a new string. */
static char *split_item(const char **p)
{
    const char *s = *p;
    char *item = malloc(strlen(s) + 1), *o = item;

    if (!item)
        return NULL;
    for (; *s && *s != ':'; s++) {
        if (s[0] == '\\' && s[1] == ':')
            s++;
        *o++ = *s;
    }
    *o = '\0';
    *p = *s ? s + 1 : s;
    return item;
}

int lb_file_split(const char *list, char ***out, unsigned *n)
{
    size_t cap = 1;
    char **v;
    const char *p = list ? list : "";

    for (const char *s = p; *s; s++)
        cap += *s == ':';
    v = calloc(cap, sizeof(*v));
    *out = v;
    *n = 0;
    if (!v)
        return -ENOMEM;
    while (*p) {
        char *item = split_item(&p);

        if (!item)
            return -ENOMEM;
        if (!item[0])
            free(item);
        else
            v[(*n)++] = item;
    }
    return 0;
}

static int append(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t c = (*len + n + 1) * 2;
        char *b = realloc(*buf, c);

        if (!b)
            return -ENOMEM;
        *buf = b;
        *cap = c;
    }
    memcpy(*buf + *len, s, n);
    *len += n;
    (*buf)[*len] = '\0';
    return 0;
}

char *lb_file_name(const char *dir, const char *fmt, const char *jobname,
                   unsigned clone, unsigned filenum)
{
    char *buf = NULL, num[32];
    size_t len = 0, cap = 0;
    int ret = 0;

    if (!fmt || !*fmt)
        fmt = "$jobname.$jobnum.$filenum";
    if (dir && *dir)
        ret = append(&buf, &len, &cap, dir, strlen(dir)) ?:
              (dir[strlen(dir) - 1] == '/' ? 0 : append(&buf, &len, &cap, "/", 1));
    for (const char *s = fmt; *s && ret == 0; ) {
        if (strncmp(s, "$jobname", 8) == 0) {
            ret = append(&buf, &len, &cap, jobname, strlen(jobname));
            s += 8;
        } else if (strncmp(s, "$jobnum", 7) == 0 || strncmp(s, "$filenum", 8) == 0) {
            int n = snprintf(num, sizeof(num), "%u", s[1] == 'j' ? clone : filenum);

            ret = append(&buf, &len, &cap, num, (size_t)n);
            s += s[1] == 'j' ? 7 : 8;
        } else {
            ret = append(&buf, &len, &cap, s, 1);
            s++;
        }
    }
    if (ret == 0 && !buf)
        ret = append(&buf, &len, &cap, "", 0);
    if (ret) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* devices and opening */

bool lb_file_is_devnull(const struct stat *st)
{
    return S_ISCHR(st->st_mode) && major(st->st_rdev) == 1 && minor(st->st_rdev) == 3;
}

int lb_file_dev_size(int fd, uint64_t *size)
{
    return ioctl(fd, BLKGETSIZE64, size) < 0 ? -errno : 0;
}

unsigned lb_file_direct_align(int fd, const struct stat *st)
{
    if (S_ISBLK(st->st_mode)) {
        int lbs = 0;

        if (ioctl(fd, BLKSSZGET, &lbs) == 0 && lbs > 0)
            return (unsigned)lbs;
        return 512;
    }
#ifdef STATX_DIOALIGN
    {
        struct statx sx;

        if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) == 0 &&
            (sx.stx_mask & STATX_DIOALIGN) && sx.stx_dio_offset_align)
            return sx.stx_dio_offset_align;
    }
#endif
    return 512;
}

int lb_file_open(const char *path, const struct lb_file_id *id, bool write, int oflags,
                 char *err, unsigned errlen)
{
    bool direct = oflags & O_DIRECT;
    int flags = (write ? O_RDWR : O_RDONLY) | oflags;
    int fd = lb_file_open_checked(path, flags, id);

    if (fd >= 0 && write && (!id || !id->type) && lb_file_is_ours_fd(fd, path) != 1) {
        close(fd);
        fd = -EPERM;
    }
    if (fd >= 0)
        return fd;
    if (direct && fd == -EINVAL)
        snprintf(err, errlen, "O_DIRECT is not supported on %s: %s", path, strerror(-fd));
    else if (fd == -ELOOP || fd == -ESTALE || fd == -EPERM)
        snprintf(err, errlen, "refusing to open %s: it is not the file that was checked "
                 "(replaced by %s since)", path,
                 fd == -ELOOP ? "a symbolic link" : "another file");
    else
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(-fd));
    return fd;
}

void lb_file_errmsg(char *buf, size_t len, const char *what, const char *path, int err)
{
    snprintf(buf, len, "%s %s: %s", what, path, strerror(-err));
}

int lb_tree_dir(char *buf, size_t len, const char *dir, uint64_t d)
{
    int n = snprintf(buf, len, "%s/d%04llu", dir, (unsigned long long)d);
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : n;
}

int lb_tree_path(char *buf, size_t len, const char *dir, uint32_t fanout,
                 const char *prefix, int width, const char *suffix, uint64_t i)
{
    int n;
    if (fanout)
        n = snprintf(buf, len, "%s/d%04llu/%s%0*llu%s", dir,
                     (unsigned long long)(i / fanout), prefix, width,
                     (unsigned long long)i, suffix ? suffix : "");
    else
        n = snprintf(buf, len, "%s/%s%0*llu%s", dir, prefix, width,
                     (unsigned long long)i, suffix ? suffix : "");
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : n;
}
