/*
 * Files as the run sees them: which ones luabench created (and so may
 * write to and delete), fio's file name lists and generated names, the
 * facts about a file or device the run needs (size, logical block size),
 * and the names in a tree of many files that meta/ and train/ share.
 *
 * A file luabench creates is marked with the extended attribute
 * user.luabench = "1"; where the filesystem refuses extended attributes a
 * line "<inode> <name>" is appended to the manifest ".luabench-created" in
 * the file's directory instead.  lb_file_is_ours() accepts either mark (the
 * manifest line only while the inode still matches).  The manifest is
 * trusted only as a regular file (never a symbolic link) owned by this
 * user and writable by nobody else.
 */
#ifndef LB_FILES_H
#define LB_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#define LB_FILE_XATTR "user.luabench"
#define LB_FILE_MANIFEST ".luabench-created"

/* Marks the open file fd (at path) as created by luabench.  0 or -errno. */
int lb_file_mark(int fd, const char *path);
/* 1 when path carries luabench's mark, 0 when not, -errno when it cannot
 * be looked at (-ENOENT: missing).  A symbolic link is never ours. */
int lb_file_is_ours(const char *path);
/* The same decided on the open descriptor fd (of path): 1 only for a
 * regular file with the mark, or listed under its inode in the manifest. */
int lb_file_is_ours_fd(int fd, const char *path);
/* Deletes path if luabench created it (and drops its manifest line).
 * 0, -EPERM when it is not ours, or -errno. */
int lb_file_unlink_ours(const char *path);

/* Splits a colon-separated list ("\:" is a colon inside a name) into *out
 * (n strings, owned; free with lb_file_list_free).  Empty items are
 * skipped.  0 or -ENOMEM. */
int lb_file_split(const char *list, char ***out, unsigned *n);
void lb_file_list_free(char **v, unsigned n);
/* The generated name of a job's file: fmt with $jobname, $jobnum (the
 * clone) and $filenum replaced (NULL fmt: "$jobname.$jobnum.$filenum"),
 * under dir when dir is not NULL.  NULL on ENOMEM. */
char *lb_file_name(const char *dir, const char *fmt, const char *jobname,
                   unsigned clone, unsigned filenum);

/* The character device /dev/null (writes to it are always allowed). */
bool lb_file_is_devnull(const struct stat *st);
/* Size of the block device open at fd.  0 or -errno. */
int lb_file_dev_size(int fd, uint64_t *size);
/* Offset and length alignment O_DIRECT needs on fd: the logical block
 * size of a device; for a file what statx reports, else 512. */
unsigned lb_file_direct_align(int fd, const struct stat *st);
/* The file a safety check looked at.  What is decided about a name holds
 * only for the file found under it then: every later open checks that it
 * got that file (an attacker may swap a symbolic link in between). */
struct lb_file_id {
    uint64_t dev, ino;
    unsigned type;           /* S_IFREG, S_IFBLK, S_IFCHR; 0: none checked */
    bool link;               /* the name was a symbolic link, followed */
};
void lb_file_id_set(struct lb_file_id *id, const struct stat *st, bool link);
bool lb_file_id_same(const struct lb_file_id *id, const struct stat *st);
/* open(path, flags) without following a symbolic link (unless the checked
 * name was one), then the descriptor compared with id (when id->type).
 * The fd, -ELOOP (a link now), -ESTALE (another file) or -errno. */
int lb_file_open_checked(const char *path, int flags, const struct lb_file_id *id);
/* Opens path for I/O (O_RDWR when write, O_DIRECT when direct) as
 * lb_file_open_checked; a write with no checked id needs a file of ours.
 * The fd, or -errno with a message naming the path in err. */
int lb_file_open(const char *path, const struct lb_file_id *id, bool write, int oflags,
                 char *err, unsigned errlen);
/* "what path: strerror(-err)" into buf, cut to len bytes (a path near
 * PATH_MAX does not fit a one-line message). */
void lb_file_errmsg(char *buf, size_t len, const char *what, const char *path, int err);

/* Path of file i in a tree of fanout files per directory (0: flat):
 * DIR/dNNNN/PREFIXNNNN.SUFFIX with `width` digits at least.  Returns the
 * length, or -ENAMETOOLONG. */
int lb_tree_path(char *buf, size_t len, const char *dir, uint32_t fanout,
                 const char *prefix, int width, const char *suffix, uint64_t i);
/* Path of directory d of such a tree. */
int lb_tree_dir(char *buf, size_t len, const char *dir, uint64_t d);

#endif
