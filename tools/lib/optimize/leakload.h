/* leakload.h — the leakage guard's index for one task (compile/leak.h):
 * held out are every text file under the task's tests/ and solution/,
 * every file named *expected* elsewhere in the task (outside
 * environment/skills/), and the verifier evidence of the given traces
 * (failing tests, messages, test output); known are the instruction and
 * every text of the skill set being optimized. Fast's apply and Deep's edit
 * hand it to the guard (guard_base.leak). docs/leakage.md. */
#ifndef SKILLC_OPTIMIZE_LEAKLOAD_H
#define SKILLC_OPTIMIZE_LEAKLOAD_H

#include "base/util.h"
#include "compile/leak.h"
#include "optimize/skillpkg.h"
#include "optimize/traces.h"

/* NULL with e set (ERR_INPUT naming the file) when a file cannot be read;
 * ts may be NULL. Binary files (a NUL byte) are skipped. Free with leak_free. */
struct leak_index *leak_load(const char *task_dir, const struct trace_set *ts, const struct pkgset *set,
			     struct err *e);
/* task and every task of more (may be NULL): leak_load_tasks. */
struct leak_index *leak_load_more(const char *task, const struct strlist *more,
                                  const struct trace_set *ts, const struct pkgset *set,
                                  struct err *e);
/* The same over n tasks (a skill run's pooled train tasks): every task's
 * held-out files, named "<task folder name>: <path>" when n > 1, every
 * instruction known. */
struct leak_index *leak_load_tasks(const char *const *task_dirs, size_t n,
                                   const struct trace_set *ts, const struct pkgset *set,
                                   struct err *e);

#endif
