/* Description: luabench's mark on the files it creates: lb_file_mark makes
 * a file ours, a line "<inode> <name>" in the directory's manifest does too
 * (the fallback where extended attributes are refused) but only for that
 * inode; lb_file_unlink_ours deletes only our files and drops the
 * manifest line. */
#include "files.h"
#include "test_run.h"

static void manifest(const char *line)
{
    FILE *f = fopen(t_path(LB_FILE_MANIFEST), "w");

    if (!f || fputs(line, f) < 0 || fclose(f))
        exit(77);
}

int main(void)
{
    const char *foreign, *listed, *marked;
    struct stat st;
    char line[128];
    int fd;

    t_dir_make("marks");
    foreign = t_path("foreign");
    listed = t_path("listed");
    marked = t_path("marked");
    if (t_write_file(foreign, 4096, 1) || t_write_file(listed, 4096, 2) ||
        t_write_file(marked, 4096, 3) || stat(listed, &st))
        return 77;

    CHECK(lb_file_is_ours(foreign) == 0, "a foreign file is ours");
    CHECK(lb_file_is_ours(t_path("missing")) == -ENOENT, "a missing file");
    CHECK(lb_file_unlink_ours(foreign) == -EPERM && access(foreign, F_OK) == 0,
          "a foreign file was deleted");

    snprintf(line, sizeof(line), "%llu listed\n", (unsigned long long)st.st_ino + 1);
    manifest(line);
    CHECK(lb_file_is_ours(listed) == 0, "a manifest line of another inode counts");
    snprintf(line, sizeof(line), "%llu listed\n", (unsigned long long)st.st_ino);
    manifest(line);
    CHECK(lb_file_is_ours(listed) == 1, "the manifest line is not seen");
    CHECK(lb_file_unlink_ours(listed) == 0 && access(listed, F_OK) != 0,
          "a listed file was not deleted");
    CHECK(access(t_path(LB_FILE_MANIFEST), F_OK) != 0, "the empty manifest is left");

    fd = open(marked, O_RDWR);
    CHECK(fd >= 0 && lb_file_mark(fd, marked) == 0, "lb_file_mark failed");
    close(fd);
    CHECK(lb_file_is_ours(marked) == 1, "a marked file is not ours");
    CHECK(lb_file_unlink_ours(marked) == 0 && access(marked, F_OK) != 0,
          "a marked file was not deleted");
    return failures ? 1 : 0;
}
