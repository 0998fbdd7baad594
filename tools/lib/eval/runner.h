/* runner.h — the runners an evaluation trial goes through: benchflow
 * (`bench eval run`), local (`skillc-local eval run`, which writes our own
 * trial record) and harbor (`harbor run -c <job config>`). Their command lines, the
 * environment they get (keys travel there, never on the command line), the
 * run under a hard deadline, and the cleanup of a killed run's containers. */
#ifndef SKILLC_EVAL_RUNNER_H
#define SKILLC_EVAL_RUNNER_H

#include "eval/job.h"
#include "base/proc.h"
#include "base/util.h"

/* The program a runner needs on PATH: "bench", "harbor" or "skillc-local". */
const char *runner_program(const char *runner);

/* 0 when the runner's program is on PATH; else ERR_INPUT saying how to
 * install it or which other RUNNER to pick. */
int runner_check_installed(const char *runner, struct err *e);

/* Appends the command line of j's runner for a trial built in tmp (an
 * absolute path; the runner writes its files to tmp/raw). skills_root holds
 * the skills to inject (NULL: no skill). harbor first writes its job config
 * to tmp/harbor-job.json. */
int runner_argv(const struct eval_job *j, const char *tmp, const char *skills_root, struct strlist *argv,
		struct err *e);

/* "NAME=value" for every variable of the env file that the environment
 * does not already hold (the real environment wins). Secrets: free with
 * redact_wipe. */
int runner_env_load(const char *env_file, struct strlist *extra, struct err *e);

/* Runs argv with the environment plus extra, its output merged into
 * log_path (which starts with "$ <argv>"), killed with its process group
 * after deadline seconds; j's progress lines say it still runs when it
 * runs long (runner_say_running). From here on SIGINT/SIGTERM/SIGHUP stay
 * blocked (proc_defer_stops) so the bookkeeping after the run is not cut
 * short. Returns proc_run's result. */
int runner_run(const struct eval_job *j, char *const *argv, const struct strlist *extra, const char *log_path,
	       double deadline, struct proc_result *pr, struct err *e);

/* No silent waits, no flood: the first "still running" line after a tenth
 * of the deadline (at most RUNNER_SAY_FIRST seconds), then at doubling
 * gaps of at most RUNNER_SAY_MAX seconds. */
#define RUNNER_SAY_FIRST 120
#define RUNNER_SAY_MAX 900

/* Best effort after a kill: removes the docker containers (and podman's,
 * with SANDBOX=podman) that bind-mount anything inside trial_dir
 * (BenchFlow mounts each rollout's agent/, verifier/ and artifacts/ from
 * there). Nothing without the engine's CLI on PATH. */
void runner_docker_cleanup(const char *trial_dir);

#endif
