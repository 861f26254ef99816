/* Description: a check on a name holds only for the file found under it:
 * lb_file_open opens the file that was checked or nothing.  A symbolic
 * link swapped in after the check (to a user's file) and another file
 * renamed over the name are both refused, and the user's file keeps its
 * bytes; a write with no check needs a file of ours, decided on the
 * descriptor; a symbolic link is never ours; the manifest is not read or
 * appended to through a symbolic link. */
#include "files.h"
#include "test_run.h"

static int open_w(const char *path, const struct lb_file_id *id, char *err)
{
    return lb_file_open(path, id, true, 0, err, 256);
}

int main(void)
{
    char *ours, *user, *other;
    struct lb_file_id id = { 0 };
    struct stat st;
    uint64_t h_user;
    char err[256];
    int fd;

    t_dir_make("checked");
    ours = strdup(t_path("ours"));
    user = strdup(t_path("user"));
    other = strdup(t_path("other"));
    if (!ours || !user || !other || t_write_file(ours, 8192, 1) ||
        t_write_file(user, 8192, 2) || t_write_file(other, 8192, 3))
        return 77;
    h_user = t_file_hash(user);
    fd = open(ours, O_RDWR);
    CHECK(fd >= 0 && lb_file_mark(fd, ours) == 0, "lb_file_mark failed");
    close(fd);

    /* the checked file opens */
    CHECK(stat(ours, &st) == 0, "stat");
    lb_file_id_set(&id, &st, false);
    fd = open_w(ours, &id, err);
    CHECK(fd >= 0, "the checked file does not open: %s", err);
    close(fd);

    /* a symbolic link put in its place after the check */
    CHECK(rename(ours, t_path("ours.moved")) == 0 && symlink(user, ours) == 0, "swap");
    fd = open_w(ours, &id, err);
    CHECK(fd == -ELOOP, "a symbolic link swapped in was opened (%d)", fd);
    CHECK(strstr(err, "refusing to open") && strstr(err, "a symbolic link"), "message: %s", err);
    CHECK(lb_file_is_ours(ours) == 0, "a symbolic link to a user's file is ours");
    /* even to a file of ours, a link is not ours to write through */
    unlink(ours);
    CHECK(symlink(t_path("ours.moved"), ours) == 0, "link to ours");
    CHECK(lb_file_is_ours(ours) == 0, "a symbolic link to our file is ours");
    CHECK(open_w(ours, &id, err) == -ELOOP, "a link to our file was opened unchecked");

    /* another regular file renamed over the name */
    unlink(ours);
    CHECK(link(other, ours) == 0, "hard link");
    fd = open_w(ours, &id, err);
    CHECK(fd == -ESTALE, "another file under the checked name was opened (%d)", fd);
    CHECK(strstr(err, "another file"), "message: %s", err);

    /* no check: only our own file is written */
    fd = open_w(user, NULL, err);
    CHECK(fd == -EPERM, "an unchecked write opened a user's file (%d)", fd);
    fd = open_w(t_path("ours.moved"), NULL, err);
    CHECK(fd >= 0, "an unchecked write refused our file: %s", err);
    close(fd);

    /* a name that was a link when checked is followed, to the same file */
    unlink(ours);
    CHECK(symlink(t_path("ours.moved"), ours) == 0 && stat(ours, &st) == 0, "link");
    lb_file_id_set(&id, &st, true);
    fd = open_w(ours, &id, err);
    CHECK(fd >= 0, "a checked link does not open: %s", err);
    close(fd);
    unlink(ours);
    CHECK(symlink(user, ours) == 0, "relink");
    CHECK(open_w(ours, &id, err) == -ESTALE, "a link retargeted after the check was opened");

    /* the manifest: never through a symbolic link */
    CHECK(symlink(user, t_path(LB_FILE_MANIFEST)) == 0, "manifest link");
    fd = open(t_path("nomark"), O_RDWR | O_CREAT, 0644);
    CHECK(fd >= 0, "create");
    /* tmpfs takes user xattrs; the manifest path is what a file system
     * without them uses: exercise it through a name it cannot mark */
    CHECK(lb_file_is_ours(t_path("nomark")) == 0, "an unmarked file is ours");
    close(fd);
    {
        char line[128];
        int mf;

        unlink(t_path(LB_FILE_MANIFEST));
        CHECK(stat(user, &st) == 0, "stat user");
        /* a link whose target lists the user's file by inode */
        snprintf(line, sizeof(line), "%llu user\n", (unsigned long long)st.st_ino);
        mf = open(t_path("fake-manifest"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        CHECK(mf >= 0 && write(mf, line, strlen(line)) == (ssize_t)strlen(line), "fake");
        close(mf);
        CHECK(symlink(t_path("fake-manifest"), t_path(LB_FILE_MANIFEST)) == 0, "link");
        CHECK(lb_file_is_ours(user) == 0, "a manifest read through a symbolic link counts");
        unlink(t_path(LB_FILE_MANIFEST));
        /* one that anyone may write is not trusted either */
        CHECK(rename(t_path("fake-manifest"), t_path(LB_FILE_MANIFEST)) == 0, "place");
        chmod(t_path(LB_FILE_MANIFEST), 0666);
        CHECK(lb_file_is_ours(user) == 0, "a world-writable manifest counts");
        chmod(t_path(LB_FILE_MANIFEST), 0644);
        CHECK(lb_file_is_ours(user) == 1, "the manifest line is not seen");
    }
    CHECK(t_file_hash(user) == h_user, "the user's file changed");
    free(ours);
    free(user);
    free(other);
    return failures ? 1 : 0;
}
