/* task.h — a Harbor/SkillsBench task folder as the local runner needs it:
 * task.toml settings (time limits, network, preflight programs, env), the
 * instruction, and the Dockerfile's COPY/WORKDIR lines turned into a copy
 * plan, since the runner builds no image.
 *
 * task.toml keys read (everything else is ignored):
 *   [agent] timeout_sec, network_mode        [verifier] timeout_sec, network_mode, env
 *   [environment] workdir, network_mode, allow_internet, env,
 *                 build_timeout_sec, cpus, memory_mb (memory = "2G")   (SANDBOX=docker)
 *   [metadata] required_programs = ["python3", ...]   (our preflight list) */
#ifndef SKILLC_LOCAL_TASK_H
#define SKILLC_LOCAL_TASK_H

#include <stdbool.h>
#include <cJSON.h>

#include "base/util.h"

/* One COPY source: a host file or directory, and where it lands in the
 * sandbox. as_child: at dest/<base name of src>; otherwise src becomes dest
 * (a file is written at dest, a directory's contents merge into dest), as
 * Docker does. */
struct task_copy {
	char *src;   /* host path */
	char *dest;  /* absolute sandbox path */
	bool as_child;
};

struct task {
	char *dir;           /* the task folder as given */
	char *name;          /* its base name (validated with name_is_safe) */
	cJSON *config;       /* task.toml with overrides merged in */
	char *instruction;   /* instruction.md */
	char *workdir;       /* absolute: [environment] workdir, else the last WORKDIR, else /root */
	double agent_timeout;     /* seconds; [agent].timeout_sec, default 900 */
	double verifier_timeout;  /* seconds; [verifier].timeout_sec, default 600 */
	double build_timeout;     /* seconds; [environment].build_timeout_sec, default 600 */
	double cpus;              /* [environment].cpus; 0: no limit */
	long memory_mb;           /* [environment].memory_mb (or memory = "2G"); 0: no limit */
	bool agent_network, verifier_network;
	struct strlist requires;  /* [metadata] required_programs */
	struct task_copy *copies;
	size_t ncopies;
	int skill_copies_dropped; /* COPY lines naming skills/ (replaced by injection) */
	struct strlist ignored;   /* Dockerfile instructions we cannot honour (RUN, ENV, ...) */
	char *base_image;    /* the last FROM's image (the final stage's base), else NULL */
	char *base_platform; /* its --platform=..., else NULL */
	char *skills_dir;    /* <dir>/environment/skills when it exists, else NULL */
	char *tests_dir;     /* <dir>/tests */
	cJSON *env;          /* [environment.env]: object of strings (borrowed from config) */
	cJSON *verifier_env; /* [verifier.env] (borrowed) */
};

/* Default time limits when task.toml names none. */
#define TASK_AGENT_TIMEOUT 900.0
#define TASK_VERIFIER_TIMEOUT 600.0
#define TASK_BUILD_TIMEOUT 600.0

/* Loads dir; override (may be NULL) is deep-merged into task.toml first,
 * as `bench --config-override` does. Errors are ERR_INPUT and name the file. */
int task_load(const char *dir, const cJSON *override, struct task *t, struct err *e);
void task_free(struct task *t);

/* Parses one --config-override value into (merging with) *acc: a JSON
 * object, "@file" holding one, or "a.b.c=value" (value read as JSON when it
 * parses, else as a string). */
int task_parse_override(const char *spec, cJSON **acc, struct err *e);

/* Parses Dockerfile text (exposed for tests): fills copies, workdir and the
 * counters of t; ctx is the build context (environment/). */
int task_parse_dockerfile(struct task *t, const char *text, const char *ctx, const char *name, struct err *e);

/* The Dockerfile instructions of t a sandbox over the host's programs
 * cannot reproduce (RUN, ENV, USER, ...), appended to out: a trial there
 * runs in an environment other than the task's. */
void task_unreproduced(const struct task *t, struct strlist *out);

/* Dockerfile text for building the task's image without its skills: the
 * sources under skills/ leave COPY/ADD (an instruction left with none
 * becomes a comment), since the skill is mounted at /skills instead.
 * Everything else is kept as written, comments dropped. Caller frees. */
char *task_dockerfile_without_skills(const char *text);

#endif
