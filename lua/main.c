/*
 * The luabench host, shaped like Lua's own lua.c: main creates the Lua
 * state and calls pmain under lua_pcall with a message handler; pmain does
 * the rest (the command line, MPI and the clock, the libraries and the lb
 * module, the script or the fio front end) and turns the outcome into an
 * exit status (host.h): 0 success, 1 run-time failure, 2 bad input, 128 +
 * the signal when interrupted.  Bad input and a failed run are one
 * line without a traceback (a script's own error has one); signals only
 * set a flag, and a second one exits at once.
 */
#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#include "clock.h"
#include "engine.h"
#include "options.h"
#include "run.h"
#include "units.h"
#include "host.h"
#include "lb.h"
#include "mpi.h"
#include "lb_commit.h"

static const char usage[] =
"usage: luabench [options] SCRIPT.lua [key=value ...]\n"
"       luabench [options] --fio JOBFILE... [--fio-option=value ...]\n"
"       luabench fio [fio command-line options]\n"
"       luabench compare [options] A.json B.json [C.json ...]\n"
"       luabench-fio [fio command-line options]   (the same as luabench fio)\n"
"\n"
"Runs a benchmark scenario written in Lua; the key=value pairs reach the\n"
"script in the global table 'args'.  Workloads use fio's option names.\n"
"luabench compare says whether B beats A (see luabench compare --help).\n"
"\n"
"options:\n"
"  -h, --help          this text, with every workload option\n"
"  -v, --version       print the version and the git commit of the build\n"
"  --list-engines      each I/O engine and whether this kernel runs it\n"
"  -q, --quiet         no progress line, no notes\n"
"  --eta=WHEN          fio's status line on stdout during lb.run, lb.train and\n"
"                      lb.meta: auto (when stdout is a terminal), always, never\n"
"  --eta-newline=TIME  a new status line every TIME instead of redrawing it\n"
"  --readonly          open no file for writing and create none\n"
"  --allow-overwrite   allow writing into files luabench did not create\n"
"  --fio               run fio job files (see also: luabench fio --help)\n"
"\n"
"As fio, luabench writes its own notes (options it ignores, how it runs a\n"
"job) only with luabench fio --verbose; outside fio's front end, --quiet\n"
"silences them.\n"
"\n"
"exit status: 0 ok, 1 run-time failure, 2 bad input, 129/130/143 interrupted\n"
"(by SIGHUP/SIGINT/SIGTERM)\n"
"\n"
"workload options (lb.run{...}, fio job files, luabench fio --NAME=VALUE):\n";

/* A second signal ends the process at once, also when the main thread is
 * busy in Lua code, where the flag alone is never seen.  SIGHUP never
 * does: a terminal that goes away may send it more than once, and the
 * script is to keep what it measured (its journal, its files). */
static void on_signal(int sig)
{
    if (lb_host.signal && sig != SIGHUP)
        _exit(lb_exit_signal(sig));
    if (lb_host.signal)
        return;
    lb_host.signal = sig;
    lb_run_interrupt_all();
}

static void print_help(void)
{
    static char buf[1 << 16];
    lb_opts_help(buf, sizeof buf);
    fputs(usage, stdout);
    fputs(buf, stdout);
}

static int list_engines(void)
{
    for (const struct lb_engine_ops *const *e = lb_engines; *e; e++) {
        char why[256] = "";
        int rc = lb_engine_probe(*e, why, sizeof why);
        printf("%-10s %-13s %s\n", (*e)->name, rc == 0 ? "supported" : "unsupported",
               rc == 0 ? ((*e)->help ? (*e)->help : "") : why);
    }
    return 0;
}

static int dir_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The stdlib of the source tree for a binary in the build tree, else the
 * installed one (beside the binary's prefix, then the configured prefix);
 * LUABENCH_STDLIB overrides them all. */
static const char *find_stdlib(void)
{
    static char exe[PATH_MAX];
    const char *env = getenv("LUABENCH_STDLIB");
    if (env && *env)
        return env;
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = 0;
        if (strcmp(exe, LB_BUILD_DIR) == 0 && dir_exists(LB_SRC_DIR "/stdlib"))
            return LB_SRC_DIR "/stdlib";
        /* an installed tree moved as a whole: <prefix>/bin/../share/luabench */
        static char rel[PATH_MAX + 32];
        snprintf(rel, sizeof rel, "%s/../share/luabench/stdlib", exe);
        if (dir_exists(rel))
            return rel;
    }
    if (dir_exists(LB_STDLIB_INSTALL "/stdlib"))
        return LB_STDLIB_INSTALL "/stdlib";
    return LB_SRC_DIR "/stdlib";
}

/* The traceback's last line is pmain, the host's own frame: not the
 * script's business. */
static void drop_host_frame(lua_State *L)
{
    static const char frame[] = "\n\t[C]: in ?";
    size_t len, n = sizeof frame - 1;
    const char *tb = lua_tolstring(L, -1, &len);
    if (len >= n && memcmp(tb + len - n, frame, n) == 0) {
        lua_pushlstring(L, tb, len - n);
        lua_remove(L, -2);
    }
}

static int msghandler(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (msg == NULL) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
            return 1;
        msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    if (lb_is_usage(L, msg) || lb_is_failure(L, msg))
        return 1;               /* bad input, a failed run: one line, no traceback */
    luaL_traceback(L, L, msg, 1);
    drop_host_frame(L);
    return 1;
}

static void set_path(lua_State *L, const char *stdlib)
{
    lua_getglobal(L, "package");
    lua_pushfstring(L, "%s/?.lua;%s/?/init.lua;./?.lua", stdlib, stdlib);
    lua_setfield(L, -2, "path");
    lua_pop(L, 1);
}

/* What scripts find in lb beside the binding's own functions: names for
 * library functions, in Lua, loading their module at the first call. */
static const char lb_aliases[] =
    "local lb = ...\n"
    "function lb.report(...) return require('luabench.report').print(...) end\n"
    "lb.run = require('luabench.progress').plain(lb.run)\n"
    "lb.train = require('luabench.progress').train(lb.train)\n"
    "lb.meta = require('luabench.progress').meta(lb.meta)\n";

/* The lb module as the global lb, with its aliases. */
static void open_lb(lua_State *L)
{
    luaL_requiref(L, "luabench", luaopen_luabench, 0);
    lua_pushvalue(L, -1);
    lua_setglobal(L, "lb");        /* the aliases' modules find it there */
    if (luaL_loadbuffer(L, lb_aliases, sizeof lb_aliases - 1, "=luabench") != LUA_OK)
        lua_error(L);
    lua_pushvalue(L, -2);
    lua_call(L, 1, 0);
    lua_setglobal(L, "lb");
}

/* args: key=value pairs as a table of strings; arg: the raw list, like lua.c */
static int push_args(lua_State *L, char **argv, int argc, const char *script)
{
    lua_newtable(L);
    for (int i = 0; i < argc; i++) {
        const char *eq = strchr(argv[i], '=');
        if (eq == NULL || eq == argv[i]) {
            lua_pushstring(L, argv[i]);
            lua_rawseti(L, -2, (lua_Integer)luaL_len(L, -2) + 1);
            continue;
        }
        lua_pushlstring(L, argv[i], (size_t)(eq - argv[i]));
        lua_pushstring(L, eq + 1);
        lua_settable(L, -3);
    }
    lua_setglobal(L, "args");
    lua_createtable(L, argc, 1);
    lua_pushstring(L, script);
    lua_rawseti(L, -2, 0);
    for (int i = 0; i < argc; i++) {
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setglobal(L, "arg");
    return 0;
}

/* Prints the error; under MPI with several ranks, ends every rank. */
static int report_error(lua_State *L, int status)
{
    size_t len = 0;
    const char *msg = lua_tolstring(L, -1, &len);
    bool usage = lb_is_usage(L, msg) || status == LUA_ERRSYNTAX;
    int code = lb_exit_status(usage ? LB_EXIT_USAGE : LB_EXIT_FAILURE);
    if (!msg) {
        msg = "error";
        len = 5;
    }
    if (lb_mpi_size() > 1) {
        char host[64] = "", prefix[128];
        gethostname(host, sizeof host - 1);
        snprintf(prefix, sizeof prefix, "luabench: rank %d (%s): ", lb_mpi_rank(), host);
        lb_msg_escape(L, msg, len, usage);
        fprintf(stderr, "%s%s\n", prefix, lua_tostring(L, -1));
        lb_mpi_abort(code);
    }
    lb_msg_escape(L, msg, len, usage);
    /* a front end's own name ("luabench fio: ...") stands for the prefix */
    fprintf(stderr, "%s%s\n", usage && !strncmp(msg, "luabench ", 9) ? "" : "luabench: ",
            lua_tostring(L, -1));
    return code;
}

/* Runs chunk on top of the stack with the arguments; returns the exit code. */
static int run_chunk(lua_State *L, int nargs)
{
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, msghandler);
    lua_insert(L, base);
    int status = lua_pcall(L, nargs, 1, base);
    lua_remove(L, base);
    if (status != LUA_OK)
        return report_error(L, status);
    int code = LB_EXIT_OK;
    if (lua_isinteger(L, -1))
        code = (int)lua_tointeger(L, -1);
    else if (lua_isboolean(L, -1) && !lua_toboolean(L, -1))
        code = LB_EXIT_FAILURE;
    return lb_exit_status(code);
}

static int run_script(lua_State *L, const char *script, char **argv, int argc)
{
    push_args(L, argv, argc, script);
    lb_host.script = script;
    int status = luaL_loadfile(L, script);
    if (status != LUA_OK)
        return report_error(L, LUA_ERRSYNTAX);
    return run_chunk(L, 0);
}

/* luabench --fio FILE... / luabench fio ...: luabench.fio's main(argv);
 * luabench compare ...: luabench.compare's. */
static int run_module(lua_State *L, const char *module, char **argv, int argc,
                      const char *first)
{
    lua_getglobal(L, "require");
    lua_pushstring(L, module);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK)
        return report_error(L, LUA_ERRRUN);
    lua_getfield(L, -1, "main");
    lua_createtable(L, argc + 1, 0);
    int n = 0;
    if (first) {
        lua_pushstring(L, first);
        lua_rawseti(L, -2, ++n);
    }
    for (int i = 0; i < argc; i++) {
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, ++n);
    }
    return run_chunk(L, 1);
}

/* What the command line asks for. */
struct cmdline {
    int fio_mode;          /* 0 a script, 1 --fio FILE..., 2 luabench fio ...,
                              3 luabench compare ... */
    int first;             /* argv index of the script or of fio's arguments */
};

enum { GO_ON = -1 };       /* a step's result when the program goes on */

/* The script must be there before anything is set up for it. */
static void check_script(lua_State *L, const char *script)
{
    struct stat st;
    if (stat(script, &st) != 0)
        lb_usage_error(L, "cannot open script %s", script);
    if (S_ISDIR(st.st_mode))
        lb_usage_error(L, "script %s is a directory", script);
}

/* Reads the options into lb_host and cl; returns GO_ON, or the exit
 * status of a command line that is all done (--help) or bad. */
/* "--NAME" sets *v, "--NAME=VALUE" sets it to the boolean VALUE (one
 * parser for every boolean: lb_parse_bool); another value is refused. */
static bool flag(lua_State *L, const char *a, const char *name, int *v)
{
    size_t n = strlen(name);
    int b = 1;

    if (strncmp(a, name, n) != 0 || (a[n] && a[n] != '='))
        return false;
    if (a[n] == '=' && lb_parse_bool(a + n + 1, &b) != 0)
        lb_usage_error(L, "bad value '%s' for '%s': not a boolean (use 1/0, true/false, "
                       "yes/no, on/off)", a + n + 1, name);
    *v = b;
    return true;
}

/* The name the program was started by, without its directory. */
static const char *program_name(const char *argv0)
{
    const char *slash = argv0 ? strrchr(argv0, '/') : NULL;
    return slash ? slash + 1 : (argv0 ? argv0 : "");
}

/* fio's front end is as quiet as fio: luabench's notes only with --verbose. */
static void fio_notes(int argc, char **argv, int first)
{
    lb_host.no_notes = 1;
    for (int i = first; i < argc; i++)
        if (!strcmp(argv[i], "--verbose") || !strcmp(argv[i], "-verbose"))
            lb_host.no_notes = 0;
}

static int parse_args(lua_State *L, int argc, char **argv, struct cmdline *cl)
{
    int i = 1;
    cl->fio_mode = 0;
    if (argc > 0 && !strcmp(program_name(argv[0]), "luabench-fio")) {
        cl->fio_mode = 2;         /* luabench-fio ARGS: luabench fio ARGS */
        cl->first = 1;
        fio_notes(argc, argv, 1);
        return GO_ON;
    }
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            print_help();
            return LB_EXIT_OK;
        } else if (!strcmp(a, "-v") || !strcmp(a, "--version")) {
            printf("luabench %s (commit %s)\n", LB_VERSION, LB_COMMIT);
            return LB_EXIT_OK;
        } else if (!strcmp(a, "--list-engines")) {
            return list_engines();
        } else if (!strcmp(a, "-q")) {
            lb_host.quiet = 1;
        } else if (!strncmp(a, "--eta=", 6)) {
            lb_host.eta = a + 6;
            if (strcmp(lb_host.eta, "auto") && strcmp(lb_host.eta, "always") &&
                strcmp(lb_host.eta, "never"))
                lb_usage_error(L, "--eta must be auto, always or never, not '%s'", lb_host.eta);
        } else if (!strncmp(a, "--eta-newline=", 14)) {
            lb_host.eta_newline = a + 14;
        } else if (flag(L, a, "--quiet", &lb_host.quiet) ||
                   flag(L, a, "--readonly", &lb_host.readonly) ||
                   flag(L, a, "--allow-overwrite", &lb_host.allow_overwrite)) {
            /* set */
        } else if (!strcmp(a, "--fio")) {
            cl->fio_mode = 1;
            i++;
            break;
        } else if (!strcmp(a, "--")) {
            i++;
            break;
        } else {
            lb_usage_error(L, "unknown option '%s' (see luabench --help)", a);
        }
    }
    if (!cl->fio_mode && i < argc && !strcmp(argv[i], "fio")) {
        cl->fio_mode = 2;
        i++;
    } else if (!cl->fio_mode && i < argc && !strcmp(argv[i], "compare")) {
        cl->fio_mode = 3;
        i++;
    }
    if (!cl->fio_mode && i >= argc) {
        fputs("usage: luabench [options] SCRIPT.lua [key=value ...] (see luabench --help)\n",
              stderr);
        return LB_EXIT_USAGE;
    }
    cl->first = i;
    if (cl->fio_mode)
        fio_notes(argc, argv, i);
    else
        check_script(L, argv[i]);
    return GO_ON;
}

/* A build without MPI refuses to be one of several ranks, and so does a
 * task of srun started without an MPI plugin (srun --mpi=none): each of
 * its tasks would run alone, as N unrelated runs on one storage. */
static void reject_mpi_launch(lua_State *L)
{
    const char *v = getenv("OMPI_COMM_WORLD_SIZE");
    if (!v)
        v = getenv("PMI_SIZE");
#ifndef LB_HAVE_MPI
    if (v && atoi(v) > 1)
        lb_usage_error(L, "started by mpirun, but this build has no MPI support "
                       "(install libopenmpi-dev and rebuild)");
#endif
    const char *tasks = getenv("SLURM_STEP_NUM_TASKS");
    if (!v && !getenv("PMIX_RANK") && !getenv("PMI_RANK") && tasks && atoi(tasks) > 1)
        lb_usage_error(L, "started by srun as one of %d tasks, but without MPI between them "
                       "(srun --mpi=none?): start it with srun --mpi=pmix%s", atoi(tasks),
#ifdef LB_HAVE_MPI
                       ""
#else
                       ", from a build with MPI support (install libopenmpi-dev and rebuild)"
#endif
                       );
}

/* MPI (under a launcher), the clock and the signal handlers; GO_ON, or
 * the exit status of a set-up that failed. */
static int set_up(lua_State *L, int argc, char **argv)
{
    reject_mpi_launch(L);
    if (lb_mpi_init(&argc, &argv) < 0) {
        fputs("luabench: MPI could not be initialised\n", stderr);
        return LB_EXIT_FAILURE;
    }
    int rc = lb_clock_init();
    if (rc < 0) {
        fprintf(stderr, "luabench: cannot set up the clock: %s\n", strerror(-rc));
        return LB_EXIT_FAILURE;
    }
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    return GO_ON;
}

/* The standard libraries, the stdlib on package.path, and lb. */
static void open_libs(lua_State *L)
{
    lb_host.stdlib = find_stdlib();
    luaL_openlibs(L);
    set_path(L, lb_host.stdlib);
    open_lb(L);
}

/* The script, or the fio front end; returns the exit status. */
static int run(lua_State *L, int argc, char **argv, const struct cmdline *cl)
{
    int i = cl->first;
    if (cl->fio_mode == 1)
        return run_module(L, "luabench.fio", argv + i, argc - i, "--fio");
    if (cl->fio_mode == 2)
        return run_module(L, "luabench.fio", argv + i, argc - i, NULL);
    if (cl->fio_mode == 3)
        return run_module(L, "luabench.compare", argv + i, argc - i, NULL);
    return run_script(L, argv[i], argv + i + 1, argc - i - 1);
}

/* After the run: what was printed goes out, and an interrupt says so. */
static void note_interrupt(void)
{
    fflush(stdout);
    if (lb_host.signal)
        fprintf(stderr, "luabench: interrupted by %s: the results are partial\n",
                lb_signal_name(lb_host.signal));
}

/* Everything after the state's creation, protected; pushes the exit status. */
static int pmain(lua_State *L)
{
    int argc = (int)lua_tointeger(L, 1);
    char **argv = lua_touserdata(L, 2);
    struct cmdline cl;
    int code = parse_args(L, argc, argv, &cl);
    if (code == GO_ON)
        code = set_up(L, argc, argv);
    if (code == GO_ON) {
        open_libs(L);
        code = run(L, argc, argv, &cl);
        note_interrupt();
    }
    lua_pushinteger(L, code);
    return 1;
}

int main(int argc, char **argv)
{
    lua_State *L = luaL_newstate();
    if (L == NULL) {
        fputs("luabench: cannot create a Lua state: not enough memory\n", stderr);
        return LB_EXIT_FAILURE;
    }
    lua_pushcfunction(L, msghandler);
    lua_pushcfunction(L, pmain);
    lua_pushinteger(L, argc);
    lua_pushlightuserdata(L, argv);
    int status = lua_pcall(L, 2, 1, 1);
    int code = status == LUA_OK ? (int)lua_tointeger(L, -1) : report_error(L, status);
    lua_close(L);
    lb_mpi_finalize();
    return code;
}
