/*
 * Fuzzes the fio job-file parser (stdlib/luabench/fio/parse.lua) and the
 * fio command line (luabench.fio's cli and cli_jobs) inside an embedded
 * Lua state.  An input that starts with "--" is a command line, one
 * argument per line; any other input is a job file.  Lua errors are the
 * parser refusing bad input and are ignored; only crashes, sanitizer
 * reports and runaway time or memory count.
 *
 * The system's Lua is not instrumented, so a line hook hands libFuzzer the
 * parser's own coverage (which line follows which) through extra counters.
 * The parser may only read files of a private directory (io.open is
 * replaced), where two include files wait; it never writes or runs
 * anything.  The option table is the core's (lb_opts), as lb.options()
 * would give it.  Suggestions for unknown names (an edit distance to every
 * option, in Lua) would take most of the time: they are computed only for
 * inputs that open with ';'.  Run with -detect_leaks=0: the Lua state
 * keeps memory from one input to the next, and a leak check after every
 * input would dominate.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#include "options.h"

#define BUDGET_STEPS 20000               /* count hooks of 1000 instructions */
#define MEM_LIMIT (256u << 20)

__attribute__((used, section("__libfuzzer_extra_counters")))
static uint8_t lua_edges[1 << 14];

static lua_State *L;
static char dir[64];
static size_t mem_used;
static unsigned steps, prev_line;

static void *bounded_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    if (ptr == NULL)
        osize = 0;
    if (nsize == 0) {
        mem_used -= osize;
        free(ptr);
        return NULL;
    }
    if (nsize > osize && mem_used + (nsize - osize) > MEM_LIMIT)
        return NULL;                     /* Lua raises "not enough memory" */
    void *p = realloc(ptr, nsize);
    if (p)
        mem_used = mem_used - osize + nsize;
    return p;
}

/* Line events feed the edge counters; count events enforce the budget. */
static void hook(lua_State *l, lua_Debug *ar)
{
    if (ar->event == LUA_HOOKCOUNT) {
        if (++steps > BUDGET_STEPS)
            luaL_error(l, "instruction budget spent");
        return;
    }
    lua_getinfo(l, "S", ar);
    uintptr_t h = (uintptr_t)ar->source * 31u + (unsigned)ar->currentline * 65599u + prev_line;
    lua_edges[(h ^ (h >> 15)) % sizeof lua_edges]++;
    prev_line = (unsigned)ar->currentline;
}

static void write_file(const char *name, const void *data, size_t len)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    if (len && fwrite(data, 1, len, f) != len)
        abort();
    fclose(f);
}

/* The core's options as lb.options() gives them: TAB for the parser. */
static void push_option_table(void)
{
    lua_getglobal(L, "P");
    lua_getfield(L, -1, "option_table");
    lua_newtable(L);
    int i = 0;
    for (const struct lb_opt *o = lb_opts; o->name; o++) {
        lua_createtable(L, 0, 2);
        lua_pushstring(L, o->name);
        lua_setfield(L, -2, "name");
        if (o->alias) {
            lua_pushstring(L, o->alias);
            lua_setfield(L, -2, "alias");
        }
        lua_rawseti(L, -2, ++i);
    }
    lua_newtable(L);
    i = 0;
    for (const char *const *ig = lb_opts_ignored; *ig; ig++) {
        lua_pushstring(L, *ig);
        lua_rawseti(L, -2, ++i);
    }
    if (lua_pcall(L, 2, 1, 0) != LUA_OK)
        abort();
    lua_setglobal(L, "TAB");
    lua_pop(L, 1);
}

/* Sandbox and entry points, in Lua.  DIR is the private directory. */
static const char setup_lua[] =
"local dir = DIR\n"
"local real_open = io.open\n"
"io.open = function(path, mode)\n"
"  if type(path) ~= 'string' or (mode and mode ~= 'r' and mode ~= 'rb') then\n"
"    return nil, 'refused', 13 end\n"
"  local name = path:sub(1, #dir + 1) == dir .. '/' and path:sub(#dir + 2) or path\n"
"  name = name:gsub('^%./', '')\n"
"  if not name:match('^[%w_%-][%w_%.%-]*$') then\n"
"    return nil, path .. ': No such file or directory', 2 end\n"
"  return real_open(dir .. '/' .. name, 'r')\n"
"end\n"
"io.write = function() end\n"
"io.popen, os.execute, os.remove, os.rename, os.exit = nil, nil, nil, nil, nil\n"
"os.tmpname, io.output, dofile, loadfile = nil, nil, nil, nil\n"
"P = require 'luabench.fio.parse'\n"
"P.note = function() end\n"
"local suggest = P.suggest\n"
"function P.suggest(tab, name)\n"   /* slow: only for inputs opening with ';' */
"  if FULL then return suggest(tab, name) end\n"
"end\n"
"F = require 'luabench.fio'\n"
"local env = {A = '4k', B = 'randread', EMPTY = '', N = '(2*3)'}\n"
"function PARSE(path)\n"
"  local jobs = P.load(path, {tab = TAB, env = function(k) return env[k] end})\n"
"  P.groups(jobs)\n"
"  return #jobs\n"
"end\n"
"function CLI(text)\n"
"  local argv = {}\n"
"  for a in text:gmatch('[^\\n]+') do argv[#argv + 1] = a end\n"
"  local cfg = F.cli(argv, TAB)\n"
"  if cfg.exit then return 0 end\n"
"  for i, f in ipairs(cfg.files) do cfg.files[i] = dir .. '/' .. f end\n"
"  return #F.cli_jobs(cfg)\n"
"end\n";

static void setup(void)
{
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(dir, sizeof dir, "%s/lbfuzz.XXXXXX", base);
    if (!mkdtemp(dir))
        abort();
    static const char a[] = "bs=4k\nrw=randread\n", b[] = "include a.inc\nsize=1m\n";
    write_file("a.inc", a, sizeof a - 1);
    write_file("b.inc", b, sizeof b - 1);
    L = lua_newstate(bounded_alloc, NULL);
    if (!L)
        abort();
    luaL_openlibs(L);
    lua_getglobal(L, "package");
    lua_pushstring(L, LB_STDLIB_DIR "/?.lua;" LB_STDLIB_DIR "/?/init.lua");
    lua_setfield(L, -2, "path");
    lua_pop(L, 1);
    lua_pushstring(L, dir);
    lua_setglobal(L, "DIR");
    if (luaL_dostring(L, setup_lua) != LUA_OK) {
        fprintf(stderr, "fuzz_fioparse: setup: %s\n", lua_tostring(L, -1));
        abort();
    }
    push_option_table();
}

static void cleanup(void)
{
    char path[128];
    static const char *const names[] = {"a.inc", "b.inc", "job.fio", NULL};
    for (int i = 0; names[i]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    setup();
    atexit(cleanup);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int cli = size >= 2 && data[0] == '-' && data[1] == '-';
    if (cli) {
        lua_getglobal(L, "CLI");
        lua_pushlstring(L, (const char *)data, size);
    } else {
        write_file("job.fio", data, size);
        lua_getglobal(L, "PARSE");
        lua_pushfstring(L, "%s/job.fio", dir);
    }
    lua_pushboolean(L, size && data[0] == ';');
    lua_setglobal(L, "FULL");
    steps = prev_line = 0;
    lua_sethook(L, hook, LUA_MASKCOUNT | LUA_MASKLINE, 1000);
    lua_pcall(L, 1, 1, 0);               /* an error is a refusal: fine */
    lua_sethook(L, NULL, 0, 0);
    lua_settop(L, 0);
    if (mem_used > MEM_LIMIT / 2)
        lua_gc(L, LUA_GCCOLLECT);
    return 0;
}
