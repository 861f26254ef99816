/*
 * System functions for scenario scripts, added to the lb table: page-cache
 * control and inspection (fadvise, residency, drop_caches), atomic file
 * writes for reports, appends synced line by line for journals, directory creation and stat for file sets, and what
 * a report says about the host (hostname, cpus, physical cores).
 *
 * Like Lua's own io library: a bad argument raises; a failure of the world
 * returns nil, a message naming the path, and the errno name ("EACCES").
 * Nothing here runs I/O for a benchmark; that is the core's business.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <lauxlib.h>

#include "base/files.h"
#include "base/units.h"
#include "host.h"
#include "result.h"
#include "sys.h"

#define RESIDENCY_CHUNK (256u << 20)   /* bytes mapped at a time by mincore */

static int s_fadvise(lua_State *L)
{
    static const char *const names[] = {"dontneed", "willneed", NULL};
    const char *path = luaL_checkstring(L, 1);
    int which = luaL_checkoption(L, 2, NULL, names);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return lb_pushresult(L, -errno, path);
    /* Dirty pages survive DONTNEED: write them back first. */
    if (which == 0 && fdatasync(fd) != 0 && errno != EINVAL) {
        int e = errno;
        close(fd);
        return lb_pushresult(L, -e, path);
    }
    int rc = posix_fadvise(fd, 0, 0, which == 0 ? POSIX_FADV_DONTNEED
                                                : POSIX_FADV_WILLNEED);
    close(fd);
    if (rc != 0)
        return lb_pushresult(L, -rc, path);
    lua_pushboolean(L, 1);
    return 1;
}

/* Resident pages of [off, off+len) of fd, or -errno. */
static long long resident_chunk(int fd, off_t off, size_t len, size_t page,
                                unsigned char *vec)
{
    void *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, off);
    if (m == MAP_FAILED)
        return -errno;
    size_t n = (len + page - 1) / page;
    long long res = 0;
    if (mincore(m, len, vec) != 0)
        res = -errno;
    for (size_t i = 0; res >= 0 && i < n; i++)
        res += vec[i] & 1;
    munmap(m, len);
    return res;
}

static int s_residency(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return lb_pushresult(L, -errno, path);
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return lb_pushresult(L, -e, path);
    }
    unsigned char *vec = malloc(RESIDENCY_CHUNK / page);
    if (vec == NULL) {
        close(fd);
        return lb_pushresult(L, -ENOMEM, path);
    }
    long long resident = 0;
    for (off_t off = 0; off < st.st_size && resident >= 0; off += RESIDENCY_CHUNK) {
        size_t len = st.st_size - off < RESIDENCY_CHUNK ? (size_t)(st.st_size - off)
                                                        : RESIDENCY_CHUNK;
        long long r = resident_chunk(fd, off, len, page, vec);
        resident = r < 0 ? r : resident + r;
    }
    free(vec);
    close(fd);
    if (resident < 0)
        return lb_pushresult(L, (int)resident, path);
    lua_pushinteger(L, resident);
    lua_pushinteger(L, (st.st_size + (off_t)page - 1) / (off_t)page);
    return 2;
}

static int s_drop_caches(lua_State *L)
{
    const char *path = "/proc/sys/vm/drop_caches";
    sync();
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return lb_pushresult(L, -errno, path);
    ssize_t n = write(fd, "3", 1);
    int e = n == 1 ? 0 : n < 0 ? errno : EIO;
    close(fd);
    if (e)
        return lb_pushresult(L, -e, path);
    lua_pushboolean(L, 1);
    return 1;
}

static int s_isatty(lua_State *L)
{
    lua_pushboolean(L, isatty((int)luaL_checkinteger(L, 1)));
    return 1;
}

static int write_all(int fd, const char *p, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* The directory holding path, for the temporary file and the dir fsync. */
static void dir_of(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        snprintf(dir, len, ".");
    else if (slash == path)
        snprintf(dir, len, "/");
    else
        snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

static int fsync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = fsync(fd) == 0 ? 0 : -errno;
    close(fd);
    return rc;
}

int lb_replace_allowed(const char *path, bool allow)
{
    struct stat st;

    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : -errno;
    if (S_ISDIR(st.st_mode))
        return -EISDIR;
    if (allow || lb_host.allow_overwrite || lb_file_is_ours(path) == 1)
        return 0;
    return -EPERM;
}

/* A character device or a FIFO (/dev/null, /dev/stdout, a pipe) holds no
 * data to lose: text is written into it as fio does, whoever made it.
 * 1 when path is one and text went there, 0 when it is not one (nothing
 * done), -errno on a failed write.  Decided on the descriptor. */
static int write_special(const char *path, const char *text, size_t len)
{
    struct stat st;
    int fd, rc;

    if (stat(path, &st) != 0 || !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)))
        return 0;
    fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    if (fstat(fd, &st) != 0 || !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
        close(fd);
        return 0;                 /* swapped for another file: the rules below */
    }
    rc = write_all(fd, text, len);
    if (close(fd) != 0 && rc == 0)
        rc = -errno;
    return rc ? rc : 1;
}

/* lb.write_atomic(path, text [, allow_overwrite]): a temporary file beside
 * path, fsync, rename over path, fsync the dir; the file is marked as
 * luabench's, so a later run replaces it, but a file luabench did not
 * create (or a symbolic link) is not replaced unless allowed.  The rename
 * replaces the name: nothing is ever written through a link.  A character
 * device or a FIFO is written into instead (write_special). */
static int s_write_atomic(lua_State *L)
{
    size_t len, plen;
    const char *path = luaL_checklstring(L, 1, &plen);
    const char *text = luaL_checklstring(L, 2, &len);
    bool allow = lua_toboolean(L, 3);
    char tmp[PATH_MAX], dir[PATH_MAX];
    if (strlen(path) != plen)
        return luaL_argerror(L, 1, "the path holds a NUL byte");
    if (snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= (int)sizeof tmp)
        return lb_pushresult(L, -ENAMETOOLONG, path);
    int rc = write_special(path, text, len);
    if (rc < 0)
        return lb_pushresult(L, rc, path);
    if (rc == 1) {
        lua_pushboolean(L, 1);
        return 1;
    }
    rc = lb_replace_allowed(path, allow);
    if (rc == -EPERM) {
        lua_pushnil(L);
        lua_pushfstring(L, "refusing to replace %s: not created by luabench (use "
                        "--allow-overwrite)", path);
        lua_pushstring(L, "EPERM");
        return 3;
    }
    if (rc != 0)
        return lb_pushresult(L, rc, path);
    dir_of(path, dir, sizeof dir);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return lb_pushresult(L, -errno, path);
    mode_t mask = umask(0);
    umask(mask);
    rc = fchmod(fd, 0666 & ~mask) == 0 ? 0 : -errno;
    if (rc == 0)
        rc = write_all(fd, text, len);
    if (rc == 0 && fsync(fd) != 0)
        rc = -errno;
    if (rc == 0 && rename(tmp, path) != 0)
        rc = -errno;
    if (rc == 0)
        lb_file_mark(fd, path);         /* after the rename: the manifest names path */
    if (close(fd) != 0 && rc == 0)
        rc = -errno;
    if (rc != 0) {
        unlink(tmp);
        return lb_pushresult(L, rc, path);
    }
    rc = fsync_dir(dir);
    if (rc != 0)
        return lb_pushresult(L, rc, dir);
    lua_pushboolean(L, 1);
    return 1;
}

/* lb.append_sync(path, text [, create]) -> true | nil, message, errno name:
 * appends text to path and fsyncs it, for a journal that keeps every line
 * a crash or a signal may follow.  create: the file must not exist yet
 * (made 0666 & ~umask, and its directory fsynced); otherwise it must.
 * Never follows a symbolic link. */
static int s_append_sync(lua_State *L)
{
    size_t len;
    const char *path = luaL_checkstring(L, 1);
    const char *text = luaL_checklstring(L, 2, &len);
    int create = lua_toboolean(L, 3);
    int flags = O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC | (create ? O_CREAT | O_EXCL : 0);
    int fd = open(path, flags, 0666);
    if (fd < 0)
        return lb_pushresult(L, -errno, path);
    int rc = write_all(fd, text, len);
    if (rc == 0 && fsync(fd) != 0)
        rc = -errno;
    if (close(fd) != 0 && rc == 0)
        rc = -errno;
    if (rc == 0 && create) {
        char dir[PATH_MAX];
        dir_of(path, dir, sizeof dir);
        rc = fsync_dir(dir);
    }
    if (rc != 0)
        return lb_pushresult(L, rc, path);
    lua_pushboolean(L, 1);
    return 1;
}

/* mkdir -p: every missing directory of path, mode 0777 & ~umask. */
static int s_mkdir(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    char buf[PATH_MAX];
    if (*path == 0)
        return lb_pushresult(L, -ENOENT, "mkdir ''");
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return lb_pushresult(L, -ENAMETOOLONG, path);
    for (char *p = buf + 1; ; p++) {
        if (*p != '/' && *p != 0)
            continue;
        char c = *p;
        *p = 0;
        struct stat st;
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return lb_pushresult(L, -errno, buf);
        if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))
            return lb_pushresult(L, -ENOTDIR, buf);
        if (c == 0)
            break;
        *p = c;
    }
    lua_pushboolean(L, 1);
    return 1;
}

static const char *type_name(mode_t m)
{
    return S_ISREG(m) ? "file" : S_ISDIR(m) ? "directory" : S_ISBLK(m) ? "block"
         : S_ISCHR(m) ? "char" : S_ISLNK(m) ? "link" : S_ISFIFO(m) ? "fifo"
         : "other";
}

/* {type=, size=, mtime= (s, float), ino=, mode=}; follows links. */
static int s_stat(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    struct stat st;
    if (stat(path, &st) != 0)
        return lb_pushresult(L, -errno, path);
    lua_createtable(L, 0, 5);
    lua_pushstring(L, type_name(st.st_mode));
    lua_setfield(L, -2, "type");
    lua_pushinteger(L, st.st_size);
    lua_setfield(L, -2, "size");
    lua_pushnumber(L, st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9);
    lua_setfield(L, -2, "mtime");
    lua_pushinteger(L, (lua_Integer)st.st_ino);
    lua_setfield(L, -2, "ino");
    lua_pushinteger(L, st.st_mode & 07777);
    lua_setfield(L, -2, "mode");
    return 1;
}

static int s_hostname(lua_State *L)
{
    char name[HOST_NAME_MAX + 1];
    if (gethostname(name, sizeof name) != 0)
        return lb_pushresult(L, -errno, "gethostname");
    name[HOST_NAME_MAX] = 0;
    lua_pushstring(L, name);
    return 1;
}

static int s_cpus(lua_State *L)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    lua_pushinteger(L, n > 0 ? n : 1);
    return 1;
}

static long read_long(const char *dir, const char *file)
{
    char path[PATH_MAX];
    long v = -1;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "re");
    if (f) {
        if (fscanf(f, "%ld", &v) != 1)
            v = -1;
        fclose(f);
    }
    return v;
}

/* Distinct (package, core) pairs among the CPUs with a topology. */
static int s_physical_cores(lua_State *L)
{
    glob_t g;
    long n = 0;
    if (glob("/sys/devices/system/cpu/cpu[0-9]*/topology", 0, NULL, &g) == 0) {
        long (*seen)[2] = calloc(g.gl_pathc, sizeof *seen);
        for (size_t i = 0; seen && i < g.gl_pathc; i++) {
            long pkg = read_long(g.gl_pathv[i], "physical_package_id");
            long core = read_long(g.gl_pathv[i], "core_id");
            long j = 0;
            if (pkg < 0 || core < 0)
                continue;
            while (j < n && !(seen[j][0] == pkg && seen[j][1] == core))
                j++;
            if (j == n) {
                seen[n][0] = pkg;
                seen[n][1] = core;
                n++;
            }
        }
        free(seen);
        globfree(&g);
    }
    if (n <= 0)
        return s_cpus(L);
    lua_pushinteger(L, n);
    return 1;
}

/* lb.parse_bool(s) -> true | false | nil: the one reading of a boolean
 * that options, parameters and flags share (core lb_parse_bool). */
static int s_parse_bool(lua_State *L)
{
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    int b;

    if (strlen(s) != len || lb_parse_bool(s, &b) != 0)
        lua_pushnil(L);
    else
        lua_pushboolean(L, b);
    return 1;
}

/* lb.escape(s [, one_line]) -> s as an error line may show it. */
static int s_escape(lua_State *L)
{
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);

    lb_msg_escape(L, s, len, lua_toboolean(L, 2));
    return 1;
}

int lb_sys_open(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"fadvise", s_fadvise},
        {"parse_bool", s_parse_bool},
        {"escape", s_escape},
        {"residency", s_residency},
        {"drop_caches", s_drop_caches},
        {"isatty", s_isatty},
        {"write_atomic", s_write_atomic},
        {"append_sync", s_append_sync},
        {"mkdir", s_mkdir},
        {"stat", s_stat},
        {"hostname", s_hostname},
        {"cpus", s_cpus},
        {"physical_cores", s_physical_cores},
        {NULL, NULL},
    };
    luaL_setfuncs(L, fns, 0);
    return 0;
}
