/*
 * Description: the engine table: every engine in lb_engines has a unique
 * name and passes lb_engine_check; an ops table lacking a mandatory hook
 * is refused; probe answers 0 or -errno with a reason; the fault engine
 * mirrors the flags of the engine it wraps and refuses to wrap itself or
 * an unknown engine; io_uring refuses hipri without direct, saying why.
 */
#include "engine_harness.h"

static int dummy_init(const struct lb_engine_cfg *c, void **p) { return 0; }
static void dummy_cleanup(void *p) { }
static int dummy_queue(void *p, struct lb_io *io) { return LB_Q_DONE; }

static void check_table(void)
{
    const char *want[] = { "null", "sync", "psync", "pvsync2", "libaio", "posixaio", "io_uring",
                           "mmap", "fault" };
    size_t n = 0;

    for (const struct lb_engine_ops *const *e = lb_engines; *e; e++, n++) {
        char why[256] = "x";
        CHECK(lb_engine_check(*e) == 0, "%s passes lb_engine_check", (*e)->name);
        CHECK(lb_engine_find((*e)->name) == *e, "find %s", (*e)->name);
        CHECK((*e)->help && *(*e)->help, "%s has help", (*e)->name);
        int ret = lb_engine_probe(*e, why, sizeof(why));
        CHECK(ret <= 0 && (ret == 0 ? why[0] == '\0' : why[0] != '\0'),
              "%s probe: %d '%s'", (*e)->name, ret, why);
        printf("%-9s %s\n", (*e)->name, ret == 0 ? "supported" : why);
    }
    CHECK(n == sizeof(want) / sizeof(want[0]), "%zu engines", n);
    for (size_t i = 0; i < n && i < 9; i++)
        CHECK(strcmp(lb_engines[i]->name, want[i]) == 0, "engine %zu is %s", i, want[i]);
    CHECK(lb_engine_find("nonesuch") == NULL && lb_engine_find(NULL) == NULL, "unknown");
}

static void check_hooks(void)
{
    struct lb_engine_ops ops = { .name = "t", .flags = LB_ENG_SYNC, .init = dummy_init,
                                 .cleanup = dummy_cleanup, .queue = dummy_queue };
    char why[128];

    CHECK(lb_engine_check(&ops) == 0, "a complete sync engine");
    ops.flags = 0;
    CHECK(lb_engine_check(&ops) == -EINVAL, "async without commit/getevents");
    ops.flags = LB_ENG_SYNC;
    ops.queue = NULL;
    CHECK(lb_engine_check(&ops) == -EINVAL, "no queue");
    CHECK(lb_engine_probe(&ops, why, sizeof(why)) == -EINVAL && why[0], "probe says so");
    CHECK(lb_engine_check(NULL) == -EINVAL, "NULL");
}

static void check_fault_flags(void)
{
    const struct lb_engine_ops *fault = lb_engine_find("fault");
    struct lb_job job = { 0 };
    struct harness h;

    CHECK(lb_engine_flags(fault, &job) == LB_ENG_SYNC, "fault defaults to psync");
    job.fault_engine = "null";
    CHECK(lb_engine_flags(fault, &job) == (LB_ENG_SYNC | LB_ENG_NOFILES), "over null");
    job.fault_engine = "io_uring";
    CHECK(lb_engine_flags(fault, &job) == LB_ENG_IOPRIO, "over io_uring: async, with its priorities");
    CHECK(lb_engine_flags(lb_engine_find("psync"), &job) == LB_ENG_SYNC, "plain flags");
    job.fault_engine = "fault";
    CHECK(h_start(&h, fault, &job, NULL, 0, 1) == -EINVAL && strstr(h.why, "itself"),
          "fault over fault refused: '%s'", h.why);
    h_stop(&h);
    job.fault_engine = "nonesuch";
    CHECK(h_start(&h, fault, &job, NULL, 0, 1) == -ENOENT && strstr(h.why, "nonesuch"),
          "unknown fault_engine: '%s'", h.why);
    h_stop(&h);
}

static void check_uring_hipri(void)
{
    const struct lb_engine_ops *ops = lb_engine_find("io_uring");
    struct lb_job job = { .hipri = true };
    struct harness h;
    char why[256];

    if (lb_engine_probe(ops, why, sizeof(why)) < 0) {
        printf("SKIP io_uring hipri: %s\n", why);
        return;
    }
    CHECK(h_start(&h, ops, &job, NULL, 0, 4) == -EINVAL && strstr(h.why, "direct"),
          "hipri without direct: '%s'", h.why);
    h_stop(&h);
}

int main(void)
{
    lb_clock_init();
    check_table();
    check_hooks();
    check_fault_flags();
    check_uring_hipri();
    printf("%d failures\n", failures);
    return failures ? 1 : 0;
}
