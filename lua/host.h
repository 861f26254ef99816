/*
 * The host's ground floor: the process-wide settings of the command line,
 * the usage-error channel (bad input: one line, exit 2) and the table of
 * exit statuses.  Every binding file may include this header; it includes
 * no other file of lua/ and calls nothing above it.
 */
#ifndef LB_HOST_H
#define LB_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <lua.h>

/* Process-wide settings from the command line. */
struct lb_host {
    int quiet;             /* -q: no progress line, no notes */
    const char *eta;       /* --eta: fio's status line: auto, always, never */
    const char *eta_newline; /* --eta-newline: the time between new lines */
    int no_notes;          /* fio's front end without --verbose: no notes */
    int readonly;          /* --readonly: open nothing for writing */
    int allow_overwrite;   /* --allow-overwrite: write into files not ours */
    volatile int signal;   /* the interrupting signal received, else 0 */
    int failed;            /* lb.fail(): results kept, but something failed */
    const char *stdlib;    /* directory holding the luabench modules */
    const char *script;    /* the script being run, or NULL */
};
extern struct lb_host lb_host;

/* Exit statuses: what a run's outcome becomes. */
enum lb_exit {
    LB_EXIT_OK = 0,
    LB_EXIT_FAILURE = 1,   /* a run-time failure */
    LB_EXIT_USAGE = 2,     /* bad input */
};

/* The exit status of a process ended by signal sig (128 + sig, as a shell
 * reports it: 129 SIGHUP, 130 SIGINT, 143 SIGTERM), and the signal's name.
 * Async-signal-safe: a signal handler may call them. */
int lb_exit_signal(int sig);
const char *lb_signal_name(int sig);

/* code, unless a signal interrupted the run: then that signal's status;
 * 1 for 0 when the script said something failed (lb.fail). */
int lb_exit_status(int code);

/* Raises a Lua error that the host reports as bad input (exit 2), with the
 * position of the calling Lua code as luaL_error gives it. */
int lb_usage_error(lua_State *L, const char *fmt, ...);
/* Raises the message on top of the stack as bad input. */
int lb_usage_raise(lua_State *L);
/* Whether msg is (or wraps) the last bad-input message raised. */
int lb_is_usage(lua_State *L, const char *msg);

/* The same for a failure of the run itself (a file that cannot be made or
 * read, a device error): reported in one line with no traceback, exit 1.
 * A script's own errors keep their traceback. */
int lb_failure_error(lua_State *L, const char *fmt, ...);
int lb_failure_raise(lua_State *L);
int lb_is_failure(lua_State *L, const char *msg);

/* Pushes msg as a terminal may show it: control bytes and invalid UTF-8
 * as \xNN (a newline too when one_line), cut after LB_MSG_MAX bytes (a
 * name of a megabyte is not worth printing whole). */
#define LB_MSG_MAX 4096
void lb_msg_escape(lua_State *L, const char *msg, size_t len, bool one_line);

#endif
