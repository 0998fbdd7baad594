/* log.h — what a tool prints, as make does: progress lines and results on
 * stdout (progressf), diagnostics on stderr prefixed with the tool's name
 * (warnf, die). Each line is one write, so lines of parallel jobs stay
 * whole, and `make ... | tee log` captures the progress. */
#ifndef SKILLC_BASE_LOG_H
#define SKILLC_BASE_LOG_H

#include <stdnoreturn.h>

#include "base/opts.h"
#include "base/util.h"

/* What every tool's main does first: sets the prefix for every message
 * (the tool's name, e.g. "skillc-check"), makes cJSON allocate by the
 * project's rule (json_use_project_allocator), and checks standard output
 * at exit: a write that failed (a full disk, >/dev/full) prints
 * "prog: cannot write standard output: ..." and the exit status becomes 1
 * when it was 0. */
void log_init(const char *progname);
const char *log_prog(void);
/* Renames the messages after log_init (a tool speaking for another: skillc-rules
 * says "skillc: ..." for make once its own options are handled). */
void log_speak_as(const char *name);

/* A progress line (no prefix) on stdout, flushed at once: a pipe sees it
 * when it happens. */
void progressf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "prog: message" on stderr. */
void warnf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* How many messages warnf (and die) printed so far. */
unsigned log_messages(void);
/* "prog: message" on stderr, then exit(status). For a tool's main and
 * its option parsing only: library code returns a struct err (or, for a
 * programmer error, calls BUG); tests/e2e/layers.sh checks it. */
noreturn void die(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints e->msg and exits with e->code (1 when unset). */
noreturn void die_err(const struct err *e);

/* Handles --help / --version for a tool whose options are rows
 * (base/opts.h): --help prints usage and then the rows' option list,
 * --version "prog <format-version>"; either exits 0. */
void opts_std(int argc, char **argv, const char *usage, const struct opt *rows,
              const char *version);
/* opts_parse, stopping with its one-line message and exit 2 on bad usage. */
void opts_parse_or_die(const struct opt *rows, int argc, char **argv, int start,
                       struct opts_rest *rest);
/* opts_args, stopping the same way. */
void opts_args_or_die(const struct opt *rows, int argc, char **argv, int start,
                      struct strlist *args);
/* opts_std for a tool of subcommands: --help after a subcommand's name
 * prints its rows, else every subcommand's (opts_help_cmds). */
void opts_cmds_std(int argc, char **argv, const char *usage, const struct opt_cmd *cmds,
                   const char *version);

#endif
